/**
 * @module features/scripts/failures — typed errors mapped once to Temporal failures: a 429 waits exactly
 * what the provider asked (nextRetryDelay), 5xx and network errors back off, the rest end the run.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { NetworkError, ProviderError, RateLimited, UpstreamHttpError } from '../../lib/http/index.js';
import type { UnkeyedWrite } from './write-marks.js';

/**
 * Rethrows retryable errors as retryable Temporal failures; returns for final ones. With
 * `unkeyedWrite` (a write without an Idempotency-Key that may have landed), a retry would run the
 * script from the start and repeat that write, so the failure is final: type WriteNotRetried.
 */
export function throwIfRetryable(err: unknown, unkeyedWrite?: UnkeyedWrite): void {
  const retryable = err instanceof RateLimited || ((err instanceof UpstreamHttpError || err instanceof NetworkError) && err.retryable);
  if (retryable && unkeyedWrite) {
    throw ApplicationFailure.create({
      type: 'WriteNotRetried',
      message: `${err.message}; not retried because ${unkeyedWrite.method} ${unkeyedWrite.endpoint} may have reached the provider without an Idempotency-Key (pass retries to let the script context send one)`,
      nonRetryable: true,
    });
  }
  if (err instanceof RateLimited) {
    throw ApplicationFailure.create({ type: 'RateLimited', message: err.message, nonRetryable: false, nextRetryDelay: Math.max(1, err.retryAfterMs) });
  }
  if ((err instanceof UpstreamHttpError && err.retryable) || (err instanceof NetworkError && err.retryable)) {
    throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: false });
  }
}

/**
 * A new attempt of a run whose earlier attempt marked a write without an Idempotency-Key
 * (features/scripts/write-marks): that write may have landed, so the script is not run again.
 */
export function throwIfWrittenBefore(previous: UnkeyedWrite | null): void {
  if (!previous) return;
  throw ApplicationFailure.create({
    type: 'WriteNotRetried',
    message: `not run again: an earlier attempt's ${previous.method} ${previous.endpoint} may have reached the provider without an Idempotency-Key (pass retries to let the script context send one)`,
    nonRetryable: true,
  });
}

/** SQLSTATEs of a database that is unreachable for now: connection exceptions, shutdown, not yet accepting, too many connections. */
const DB_UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;
/** Socket errors (from the pg driver: provider network errors are NetworkError) and pg's own messages for a lost connection. */
const DB_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
const PG_LOST_CONNECTION = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/;

/** True for an error of Switchyard's own Postgres being unavailable (a restart, a failover), never for a provider's error. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof ProviderError) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (DB_UNAVAILABLE_SQLSTATE.test(code) || DB_SOCKET_CODES.has(code))) return true;
  return PG_LOST_CONNECTION.test(err.message);
}

/**
 * A sync script that failed because Postgres went away (saving a page, its position, a checkpoint)
 * did nothing wrong: the retry resumes from the saved position once the database is back.
 */
export function throwIfDatabaseUnavailable(err: unknown): void {
  if (isDatabaseUnavailable(err)) {
    throw ApplicationFailure.create({ type: 'DatabaseUnavailable', message: (err as Error).message, nonRetryable: false });
  }
}
