/**
 * @module http — the provider HTTP client and what goes with it.
 */
export * from './errors.js';
export { assertUrlAllowed, isPrivateAddress, isHostAllowListed, normalizeHost } from './address-policy.js';
export { DEFAULT_RATE_LIMIT_DELAY_MS, retryAfterMs } from './retry-after.js';
export { redactUrl, REDACTED } from './redact.js';
export type { BodySink, ResponseBody } from './streamed-body.js';
export { oauth1Header, OAUTH1_SIGNATURE_METHODS, percentEncode, type OAuth1SignatureMethod, type OAuth1Signer } from './oauth1.js';
export {
  authHeaders,
  createProviderHttpClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  type AuthInjection,
  type ClientCertificate,
  type RateLimitHeaders,
  type ProviderHttpClient,
  type ProviderHttpClientOptions,
  type ProviderRequest,
  type ProviderResponse,
  type AbortEmitter,
  type RequestContext,
  type RequestLogEntry,
  type RequestLogSink,
} from './provider-client.js';
