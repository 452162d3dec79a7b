/**
 * @module http/retry-policy — which failed provider calls may be sent again. A 429 and a failure
 * before the request left (refused, DNS, connect timeout) are always safe to repeat; after that only
 * idempotent methods are, or a POST/PATCH carrying an Idempotency-Key, because the provider may
 * already have acted on the request whose answer was lost.
 */
import { createHash } from 'node:crypto';
import { NetworkError, RateLimited } from './errors.js';

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Methods for which the script context adds a key when the script asks for retries. */
const KEYABLE_METHODS = new Set(['POST', 'PATCH']);
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

export function hasIdempotencyKey(headers: Record<string, string> | undefined): boolean {
  return Object.entries(headers ?? {}).some(([name, value]) => name.toLowerCase() === IDEMPOTENCY_KEY_HEADER && value !== '');
}

/** True when sending the request twice may act twice at the provider. */
export function isUnsafeToRepeat(method: string, headers: Record<string, string> | undefined): boolean {
  return !IDEMPOTENT_METHODS.has(method.toUpperCase()) && !hasIdempotencyKey(headers);
}

export function wantsIdempotencyKey(method: string, headers: Record<string, string> | undefined, retries: number): boolean {
  return retries > 0 && KEYABLE_METHODS.has(method.toUpperCase()) && !hasIdempotencyKey(headers);
}

/** False when the error proves the provider never received the request (so it cannot have acted on it). */
export function mayHaveReachedProvider(err: unknown): boolean {
  return !(err instanceof RateLimited) && !(err instanceof NetworkError && !err.sent);
}

/** Whether a failed call may be sent again; `err.retryable` still decides whether it is worth it. */
export function mayRetry(err: unknown, method: string, headers: Record<string, string> | undefined): boolean {
  if (!(err as { retryable?: unknown }).retryable) return false;
  return !mayHaveReachedProvider(err) || !isUnsafeToRepeat(method, headers);
}

/**
 * The key of one call of a run: the same for every attempt of that call, including Temporal's
 * retries of the activity (same run id, same position), and different for every other call.
 */
export function idempotencyKey(runId: string, position: number): string {
  return createHash('sha256').update(`switchyard:${runId}:${position}`).digest('hex').slice(0, 40);
}
