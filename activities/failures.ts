/**
 * @module activities/failures — typed errors mapped once to Temporal failures: a 429 waits exactly
 * what the provider asked (nextRetryDelay), 5xx and network errors back off, the rest end the run.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { NetworkError, RateLimited, UpstreamHttpError } from '../lib/http/index.js';

/** Rethrows retryable errors as retryable Temporal failures; returns false for final ones. */
export function throwIfRetryable(err: unknown): void {
  if (err instanceof RateLimited) {
    throw ApplicationFailure.create({ type: 'RateLimited', message: err.message, nonRetryable: false, nextRetryDelay: Math.max(1, err.retryAfterMs) });
  }
  if ((err instanceof UpstreamHttpError && err.retryable) || (err instanceof NetworkError && err.retryable)) {
    throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: false });
  }
}
