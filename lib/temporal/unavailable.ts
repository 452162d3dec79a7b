/**
 * @module lib/temporal/unavailable — recognising "Temporal did not answer" (as opposed to "Temporal said
 * no"): the server unreachable, a call past its deadline, or the server shedding load. The API
 * answers these with 503, never 500; a caller may retry.
 */
import { isGrpcServiceError, ServiceError } from '@temporalio/client';

// gRPC status codes: DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, UNAVAILABLE.
const NOT_ANSWERED = new Set([4, 8, 14]);

export function isTemporalUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(e) && NOT_ANSWERED.has(e.code)) return true;
    if (!(e instanceof ServiceError) && !isGrpcServiceError(e)) return false;
  }
  return false;
}
