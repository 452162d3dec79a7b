/**
 * @module features/webhooks/sign — the bytes we send and the headers that sign them.
 *
 * The body is JSON with object keys sorted recursively (safe-stable-stringify, as Nango uses;
 * lib/canonical-json.ts), so a receiver that re-serializes the parsed body with JSON.stringify gets the same
 * bytes back: that is what keeps Nango's legacy `verifyWebhookSignature` working.
 *
 * Headers, each a lowercase hex digest:
 * - `X-Switchyard-Hmac-Sha256` and `X-Nango-Hmac-Sha256`: HMAC-SHA256(current key, body).
 * - `X-Switchyard-Timestamp`: unix seconds of this attempt.
 * - `X-Switchyard-Signature-V2`: HMAC-SHA256(key, `${timestamp}.${body}`), one per active key,
 *   comma-separated, current key first. During the grace period after a rotation the previous key
 *   signs too, so a receiver still holding the old key keeps verifying. Receivers refuse
 *   timestamps outside their window, which stops replays of captured requests.
 * - `X-Nango-Signature`: SHA-256(key + body), legacy (open to length extension), kept for old clients.
 * - Standard Webhooks (standardwebhooks.com): `webhook-id` (the delivery's message id, the same on every
 *   retry of a delivery and on its replays, so receivers can deduplicate), `webhook-timestamp` (unix
 *   seconds of this attempt) and `webhook-signature`: `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`,
 *   one per active key, space-separated, current key first.
 *
 * Standard Webhooks secrets are `whsec_` + base64 of the key bytes. Our signing key is an opaque string
 * whose UTF-8 bytes are the HMAC key for every header above, so the same key as a Standard Webhooks
 * secret is `whsec_` + base64(UTF-8 bytes of the signing key): see {@link standardWebhooksSecret}.
 */
import { canonicalJson } from '../../lib/canonical-json.js';
import { hmacDigest, hmacSha256Hex, sha256Hex } from '../../lib/crypto.js';

export const HEADER = {
  hmac: 'X-Switchyard-Hmac-Sha256',
  nangoHmac: 'X-Nango-Hmac-Sha256',
  timestamp: 'X-Switchyard-Timestamp',
  v2: 'X-Switchyard-Signature-V2',
  nangoLegacy: 'X-Nango-Signature',
  stdId: 'webhook-id',
  stdTimestamp: 'webhook-timestamp',
  stdSignature: 'webhook-signature',
} as const;

/** The Standard Webhooks message id of a delivery: a replay resends its original's message. */
export function messageId(delivery: { id: string; replayOf: string | null }): string {
  return `msg_${delivery.replayOf ?? delivery.id}`;
}

/** Our signing key as a Standard Webhooks secret (what a receiver passes to `new Webhook(secret)`). */
export function standardWebhooksSecret(key: string): string {
  return `whsec_${Buffer.from(key, 'utf8').toString('base64')}`;
}

/** One Standard Webhooks signature: `v1,` + base64 HMAC-SHA256(key, `${id}.${timestamp}.${body}`). */
export function standardSignature(key: string, messageId: string, timestamp: number, body: string): string {
  return `v1,${hmacDigest('sha256', key, `${messageId}.${timestamp}.${body}`, 'base64')}`;
}

/** JSON.stringify semantics with object keys sorted recursively: the bytes of every webhook body. */
export function stableStringify(value: unknown): string {
  return canonicalJson(value);
}

export interface SigningKeys {
  current: string;
  /** The key before the last rotation, while its grace period lasts. */
  previous?: string | null;
}

export function v2Signature(key: string, timestamp: number, body: string): string {
  return hmacSha256Hex(key, `${timestamp}.${body}`);
}

/**
 * The signature headers for one attempt. `timestamp` is unix seconds; `messageId` is the Standard
 * Webhooks message id (stable across the retries of one delivery).
 */
export function signatureHeaders(body: string, keys: SigningKeys, timestamp: number, messageId: string): Record<string, string> {
  const hmac = hmacSha256Hex(keys.current, body);
  const active = [keys.current, ...(keys.previous ? [keys.previous] : [])];
  const v2 = active.map((k) => v2Signature(k, timestamp, body));
  return {
    [HEADER.stdId]: messageId,
    [HEADER.stdTimestamp]: String(timestamp),
    [HEADER.stdSignature]: active.map((k) => standardSignature(k, messageId, timestamp, body)).join(' '),
    [HEADER.hmac]: hmac,
    [HEADER.nangoHmac]: hmac,
    [HEADER.timestamp]: String(timestamp),
    [HEADER.v2]: v2.join(','),
    [HEADER.nangoLegacy]: sha256Hex(`${keys.current}${body}`),
  };
}
