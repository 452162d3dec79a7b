/**
 * @module features/webhooks/verify — checks a webhook from Switchyard on the receiving side (our sample
 * backend uses it; copy it into yours). Needs only node:crypto.
 *
 * It checks `X-Switchyard-Signature-V2` over `${timestamp}.${rawBody}` and refuses a timestamp
 * outside the tolerance window, so a captured request cannot be replayed later. Pass the raw body
 * exactly as received (not re-serialized JSON). `key` may be several keys (e.g. the new and the old
 * one while you roll out a rotation); a match with any of them passes. Comparisons are constant-time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

export interface VerifyOptions {
  /** Largest accepted distance between the timestamp and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The current time (tests). Default: the system clock. */
  now?: Date;
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'missing_signature' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature' };

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

function equalHex(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export function verifyWebhook(rawBody: string | Buffer, headers: HeaderBag, key: string | readonly string[], opts: VerifyOptions = {}): VerifyResult {
  const timestampText = header(headers, 'x-switchyard-timestamp')?.trim();
  const signatures = (header(headers, 'x-switchyard-signature-v2') ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (!timestampText || signatures.length === 0) return { ok: false, reason: 'missing_signature' };
  if (!/^\d{1,12}$/.test(timestampText)) return { ok: false, reason: 'bad_timestamp' };
  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > (opts.toleranceSeconds ?? 300)) return { ok: false, reason: 'stale_timestamp' };
  const keys = (typeof key === 'string' ? [key] : key).filter(Boolean);
  const signed = Buffer.concat([Buffer.from(`${timestamp}.`), typeof rawBody === 'string' ? Buffer.from(rawBody) : rawBody]);
  let match = false;
  // Every pair is compared (no early exit), so the time taken says nothing about which part matched.
  for (const k of keys) {
    const expected = createHmac('sha256', k).update(signed).digest('hex');
    for (const s of signatures) if (equalHex(expected, s)) match = true;
  }
  return match ? { ok: true } : { ok: false, reason: 'bad_signature' };
}
