/**
 * @module http/retry-after — how long a 429 asks us to wait, from `Retry-After` and the
 * `X-RateLimit-Reset` family of headers.
 */

export type HeaderBag = Record<string, string | string[] | undefined>;

/** Used by RateLimited when no header says how long to wait. */
export const DEFAULT_RATE_LIMIT_DELAY_MS = 1000;

function header(headers: HeaderBag, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name || v === undefined) continue;
    const first = Array.isArray(v) ? v[0] : v;
    const trimmed = first?.trim();
    if (trimmed) return trimmed;
  }
  return undefined;
}

const NUMBER = /^\d+(?:\.\d+)?$/;
// Date.parse is lenient ('-5' and '1' parse as years); a value made only of digits, signs and dots is never a date.
const NUMERIC_LOOKING = /^[-+]?[\d.]+$/;

function parseDate(value: string): number | null {
  if (NUMERIC_LOOKING.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : at;
}

/** `Retry-After`: delta-seconds or an HTTP date. A date already past means "now" (0). */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  if (NUMBER.test(value)) return Math.ceil(Number(value) * 1000);
  const at = parseDate(value);
  return at === null ? null : Math.max(0, at - now.getTime());
}

/**
 * `X-RateLimit-Reset`: epoch seconds, epoch milliseconds (values above 1e12) or a date. A reset at
 * or before `now` says nothing about how long to wait and gives null.
 */
export function parseRateLimitReset(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  let at: number;
  if (NUMBER.test(value)) {
    const n = Number(value);
    at = n > 1e12 ? n : n * 1000;
  } else {
    const date = parseDate(value);
    if (date === null) return null;
    at = date;
  }
  const wait = Math.ceil(at - now.getTime());
  return wait > 0 ? wait : null;
}

/**
 * The longest wait any of the headers asks for, in milliseconds, or null when none says. Besides
 * `Retry-After` and `X-RateLimit-Reset`, a provider may name its own headers (`own.after`: seconds
 * to wait; `own.at`: the time to retry at), one or several.
 */
export function retryAfterMs(
  headers: HeaderBag,
  now: Date = new Date(),
  own?: { at?: string | readonly string[]; after?: string | readonly string[] },
): number | null {
  const names = (h: string | readonly string[] | undefined) => (h === undefined ? [] : typeof h === 'string' ? [h] : h);
  const waits = [
    parseRetryAfter(header(headers, 'retry-after'), now),
    parseRateLimitReset(header(headers, 'x-ratelimit-reset'), now),
    ...names(own?.after).map((h) => parseRetryAfter(header(headers, h.toLowerCase()), now)),
    ...names(own?.at).map((h) => parseRateLimitReset(header(headers, h.toLowerCase()), now)),
  ].filter((w): w is number => w !== null);
  return waits.length ? Math.max(...waits) : null;
}
