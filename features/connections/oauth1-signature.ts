/**
 * @module features/connections/oauth1-signature — OAuth 1.0a request signatures (RFC 5849 section
 * 3.4): the signature base string from the method, the base string URI and the normalized request
 * parameters (query, form body and `oauth_*` protocol parameters), signed with HMAC-SHA1 under the
 * key `consumer_secret&token_secret`, and the `Authorization: OAuth` header that carries it.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** RFC 5849 section 3.6: unreserved characters stay, everything else is %XX of its UTF-8 bytes (upper-case hex). */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Section 3.4.1.2: scheme and host lower-case, the default port left out, no query or fragment. */
function baseStringUri(url: URL): string {
  const port = url.port && !((url.protocol === 'http:' && url.port === '80') || (url.protocol === 'https:' && url.port === '443')) ? `:${url.port}` : '';
  return `${url.protocol.toLowerCase()}//${url.hostname.toLowerCase()}${port}${url.pathname}`;
}

/** Section 3.4.1.3.2: every name and value encoded, sorted by name then value, joined with `=` and `&`. */
function normalizedParameters(params: [string, string][]): string {
  return params
    .map(([k, v]) => [percentEncode(k), percentEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

export interface SignatureInput {
  method: string;
  url: string;
  /** The parameters of an `application/x-www-form-urlencoded` body; none for other bodies. */
  form?: [string, string][];
  /** The `oauth_*` protocol parameters without `oauth_signature` (nor `realm`). */
  oauth: Record<string, string>;
}

/** Section 3.4.1: the signature base string. */
export function signatureBaseString(input: SignatureInput): string {
  const url = new URL(input.url);
  const params: [string, string][] = [...url.searchParams.entries(), ...(input.form ?? []), ...Object.entries(input.oauth)];
  return [input.method.toUpperCase(), baseStringUri(url), normalizedParameters(params)].map(percentEncode).join('&');
}

/** Section 3.4.2: HMAC-SHA1 of the base string, base64. */
export function hmacSha1Signature(input: SignatureInput, consumerSecret: string, tokenSecret = ''): string {
  return createHmac('sha1', `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`)
    .update(signatureBaseString(input))
    .digest('base64');
}

/**
 * The `Authorization: OAuth ...` header of a signed request: the protocol parameters (consumer key,
 * token when there is one, HMAC-SHA1, timestamp, nonce, version, and any extra such as
 * `oauth_callback` or `oauth_verifier`) with their signature.
 */
export function oauth1Header(opts: {
  method: string;
  url: string;
  form?: [string, string][];
  consumerKey: string;
  consumerSecret: string;
  token?: string;
  tokenSecret?: string;
  extra?: Record<string, string>;
  now: Date;
  nonce?: string;
}): string {
  const oauth: Record<string, string> = {
    oauth_consumer_key: opts.consumerKey,
    ...(opts.token ? { oauth_token: opts.token } : {}),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(Math.floor(opts.now.getTime() / 1000)),
    oauth_nonce: opts.nonce ?? randomBytes(16).toString('hex'),
    oauth_version: '1.0',
    ...opts.extra,
  };
  const signature = hmacSha1Signature({ method: opts.method, url: opts.url, form: opts.form, oauth }, opts.consumerSecret, opts.tokenSecret);
  return `OAuth ${Object.entries({ ...oauth, oauth_signature: signature })
    .map(([k, v]) => `${percentEncode(k)}="${percentEncode(v)}"`)
    .join(', ')}`;
}
