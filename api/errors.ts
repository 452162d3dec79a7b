/**
 * @module api/errors — the one place where errors become HTTP answers, in the envelope
 * `{"error":{"code","message","errors"?,"payload"?}}`.
 */
import { randomUUID } from 'node:crypto';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { SwitchyardError, UpstreamError, ValidationFailed } from '../lib/errors.js';
import { isTemporalUnavailable } from '../lib/temporal/unavailable.js';
import { isPoolBusy } from '../lib/db/pool.js';

const statusOfKind: Record<SwitchyardError['kind'], ContentfulStatusCode> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  unsupported_media_type: 415,
  too_large: 413,
  upgrade_required: 426,
  upstream: 502,
  unavailable: 503,
  internal: 500,
};

/** The error envelope every error answer has, described once: the document and ErrorBody come from it. */
export const errorEnvelope = z.object({
  error: z
    .object({
      code: z.string().meta({ description: 'A stable, machine-readable code (Nango-compatible where Nango has one)' }),
      message: z.string().optional(),
      errors: z
        .array(z.object({ code: z.string(), message: z.string(), path: z.array(z.union([z.string(), z.number()])) }))
        .optional()
        .meta({ description: 'Validation failures: every bad field with its path' }),
      payload: z.unknown().optional(),
    })
    .catchall(z.unknown()),
});

export type ErrorBody = z.output<typeof errorEnvelope>;

export function errorResponse(err: unknown): { status: ContentfulStatusCode; body: ErrorBody; unexpected: boolean } {
  if (err instanceof UpstreamError) {
    const error = { code: err.code, message: err.message, payload: err.payload, ...(err.upstream && { upstream: err.upstream }) };
    return { status: err.status as ContentfulStatusCode, body: { error }, unexpected: false };
  }
  if (err instanceof ValidationFailed) {
    return { status: 400, body: { error: { code: err.code, message: err.message, errors: err.errors } }, unexpected: false };
  }
  if (err instanceof SwitchyardError) {
    const body: ErrorBody = { error: { code: err.code, message: err.message } };
    if (err.payload !== undefined) body.error.payload = err.payload;
    return { status: statusOfKind[err.kind], body, unexpected: false };
  }
  if (isPoolBusy(err)) {
    return {
      status: 503,
      body: { error: { code: 'database_busy', message: 'Every database connection stayed busy for too long; retry the request' } },
      unexpected: false,
    };
  }
  if (isTemporalUnavailable(err)) {
    return {
      status: 503,
      body: { error: { code: 'temporal_unavailable', message: 'The workflow engine did not answer in time; retry the request' } },
      unexpected: false,
    };
  }
  const id = randomUUID();
  return {
    status: 500,
    body: { error: { code: 'server_error', message: `An unexpected error occurred. Quote this id when you report it: "${id}"`, payload: id } },
    unexpected: true,
  };
}
