/**
 * @module features/webhooks/provider-defined — the pure half of third-party webhooks verified and routed
 * by the `webhook` settings of a provider's definition (features/providers/definition.ts), for providers
 * whose plugin does not handle its webhooks itself (a plugin's webhooks win: integrations/plugins.ts).
 *
 * - The signature: `signature_header` holds `signature_prefix` + the HMAC (`algorithm`) of the raw body
 *   (or of `signed_payload`: the body with the `timestamp_header` value around it), as `encoding` (hex
 *   compared case-insensitively, base64 as is), keyed by the integration's client secret or its
 *   webhook secret (`secret`). Compared in constant time.
 * - Replays: with `timestamp_header`, a webhook sent more than REPLAY_WINDOW_MS from now is refused.
 * - The routing: the value at `routing.body_path` (a dot path into the JSON body; a string or a
 *   number) names the connections whose `connection_config[routing.connection_config_key]` equals it
 *   (webhooks/routing keeps only the verified ones).
 *
 * No I/O: api/provider-webhooks.ts reads the integration and its connections.
 */
import { constantTimeEqual, hmacDigest } from '../../lib/crypto.js';
import type { IntegrationCredentials } from '../connections/credentials.js';
import type { ProviderWebhookSettings } from '../providers/definition.js';

export type DefinedSignatureCheck =
  { ok: true } | { ok: false; reason: 'missing_signature' | 'no_secret' | 'bad_signature' | 'missing_timestamp' | 'stale_timestamp' };

/** How far a signed timestamp may be from now, either way. */
export const REPLAY_WINDOW_MS = 5 * 60 * 1000;

/** The bytes the HMAC covers: the raw body, or `signed_payload` with the timestamp and the body in place. */
function signedBytes(settings: ProviderWebhookSettings, raw: Buffer, timestamp: string): Buffer {
  if (!settings.signed_payload) return raw;
  const [before = '', after = ''] = settings.signed_payload.split('${body}');
  const fill = (part: string) => Buffer.from(part.replaceAll('${timestamp}', timestamp));
  return Buffer.concat([fill(before), raw, fill(after)]);
}

/**
 * The secret the definition says signs the webhooks: the integration's client secret, or its webhook
 * secret — the one set in its credentials, else the integration's generated incoming-webhook secret
 * (`GET /integrations/:key/webhook-secret`; the only one an integration without OAuth credentials,
 * e.g. of an API_KEY provider, can have). Null: none.
 */
export function definedWebhookSecret(
  settings: ProviderWebhookSettings,
  credentials: IntegrationCredentials | null,
  generatedSecret: string | null = null,
): string | null {
  const secret = settings.secret === 'client_secret' ? credentials?.client_secret : credentials?.webhook_secret || generatedSecret;
  return secret ? secret : null;
}

/** Whether the generated incoming-webhook secret is needed (and so worth reading) for these settings and credentials. */
export function needsGeneratedSecret(settings: ProviderWebhookSettings, credentials: IntegrationCredentials | null): boolean {
  return settings.secret === 'webhook_secret' && !credentials?.webhook_secret;
}

/**
 * Whether `signature` (the value of `settings.signature_header`) is the definition's HMAC of `raw` with
 * `secret`, and, with `timestamp_header`, whether `timestamp` (its value) is within REPLAY_WINDOW_MS of `now`.
 */
export function checkDefinedSignature(
  settings: ProviderWebhookSettings,
  raw: Buffer,
  signature: string | undefined,
  secret: string | null,
  signed: { timestamp?: string | undefined; now: Date } = { now: new Date() },
): DefinedSignatureCheck {
  let given = signature?.trim() ?? '';
  if (given === '') return { ok: false, reason: 'missing_signature' };
  const timestamp = signed.timestamp?.trim() ?? '';
  if (settings.timestamp_header && !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'missing_timestamp' };
  if (!secret) return { ok: false, reason: 'no_secret' };
  const prefix = settings.signature_prefix ?? '';
  if (prefix !== '') {
    if (given.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return { ok: false, reason: 'bad_signature' };
    given = given.slice(prefix.length);
  }
  const expected = hmacDigest(settings.algorithm === 'hmac-sha1' ? 'sha1' : 'sha256', secret, signedBytes(settings, raw, timestamp), settings.encoding);
  if (!constantTimeEqual(expected, settings.encoding === 'hex' ? given.toLowerCase() : given)) return { ok: false, reason: 'bad_signature' };
  if (settings.timestamp_header && Math.abs(signed.now.getTime() - Number(timestamp) * 1000) > REPLAY_WINDOW_MS)
    return { ok: false, reason: 'stale_timestamp' };
  return { ok: true };
}

/** The value at a dot path (`data.account.id`) of a parsed JSON body; undefined when a step is missing. */
export function valueAtPath(body: unknown, path: string): unknown {
  let at: unknown = body;
  for (const step of path.split('.')) {
    if (typeof at !== 'object' || at === null || Array.isArray(at) || !Object.hasOwn(at, step)) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

/** Which connections the event is about: `connection_config[configKey] = value`; null when the body names none. */
export function definedRoute(
  routing: NonNullable<ProviderWebhookSettings['routing']>,
  event: Record<string, unknown>,
): { configKey: string; value: string } | null {
  const value = valueAtPath(event, routing.body_path);
  if (typeof value === 'number' && Number.isFinite(value)) return { configKey: routing.connection_config_key, value: String(value) };
  if (typeof value === 'string' && value !== '') return { configKey: routing.connection_config_key, value };
  return null;
}
