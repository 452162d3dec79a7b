/**
 * @module api/routes/actions — triggering actions (synchronously or async) and reading results.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { getActionRun, type ActionRun } from '../../features/actions/runs.js';
import { NotFound, PayloadTooLarge, UpstreamError } from '../../lib/errors.js';
import { runAction, type ActionRequest } from '../action-run.js';
import type { AppDeps, AppEnv } from '../context.js';
import { defineRoute } from '../route.js';
import { readJson, stringBool } from '../validate.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';

const triggerHeaders = z.object({
  'connection-id': connectionIdSchema,
  'provider-config-key': uniqueKeySchema,
  'x-async': stringBool.optional(),
  'x-max-retries': z.coerce.number().int().min(0).max(5).optional(),
});
const triggerBody = z.object({ action_name: z.string().regex(/^[a-zA-Z0-9_-]+$/), input: z.unknown().optional() }).strict();
const idParam = z.object({ id: z.uuid() });
export const actionAccepted = z.object({ id: z.string(), statusUrl: z.string() });

/** A finished run's answer: its output, or its error as the trigger would have answered it. */
export function resultResponse(c: Context<AppEnv>, run: ActionRun) {
  if (run.status === 'success') return c.json(run.output as object, 200);
  const e = run.error!;
  throw new UpstreamError(e.code, e.message, e.status, e.payload, e.upstream);
}

/** Runs the action (api/action-run.ts) and answers with its output, its error or 202. */
export async function triggerAction(deps: AppDeps, c: Context<AppEnv>, req: ActionRequest) {
  const outcome = await runAction(deps, req);
  if (outcome.done) return resultResponse(c, outcome.run);
  c.header('Location', outcome.statusUrl);
  return c.json({ id: outcome.id, statusUrl: outcome.statusUrl } satisfies z.output<typeof actionAccepted>, 202);
}

async function readActionBody(deps: AppDeps, c: Context<AppEnv>): Promise<unknown> {
  const length = Number(c.req.header('content-length') ?? 0);
  const limit = deps.config.SWITCHYARD_ACTION_INPUT_LIMIT_BYTES;
  if (length > limit) throw new PayloadTooLarge('action_input_too_large', `The action input is ${length} bytes; the limit is ${limit}`);
  const body = await readJson(c);
  if (body !== undefined && Buffer.byteLength(JSON.stringify(body)) > limit)
    throw new PayloadTooLarge('action_input_too_large', `The action input is larger than ${limit} bytes`);
  return body;
}

export { readActionBody };
export type { ActionRequest };

/** The answers of an action trigger (also those of the action endpoints scripts declare). */
export const actionResponses = {
  200: { description: "The action's output (any JSON)", schema: z.unknown() },
  202: {
    description: 'Running (X-Async: true, or still running after two minutes): poll the Location',
    schema: actionAccepted,
    headers: { Location: { description: 'The run’s status URL (/action/{id})', required: true, schema: { type: 'string' } } },
  },
} as const;

/** Statuses a failed action run answers with besides validation: unknown things, a script error (500, as Nango), a provider error (424). */
export const ACTION_ERRORS = [404, 413, 424, 500] as const;

export const triggerActionRoute = defineRoute({
  method: 'post',
  path: '/action/trigger',
  operationId: 'triggerAction',
  summary: 'Run an action (its output, or 202 with X-Async: true)',
  description:
    'An unknown integration or connection answers 400, as Nango does. With X-Async, X-Max-Retries (0 to 5) tries a failed run again that many times, with backoff from 1 s; a try that may repeat a write sent without an Idempotency-Key is not made. A failed run answers with its error: 400/404 for what the run could not find, 424 when the provider refused, 500 when the script failed.',
  tag: 'actions',
  auth: 'secret_key',
  scope: 'environment:actions:execute',
  request: { headers: triggerHeaders, body: triggerBody },
  readBody: (c, deps) => readActionBody(deps, c),
  responses: actionResponses,
  errors: [...ACTION_ERRORS],
}).handle(async ({ deps, headers: h, body: b }, c) =>
  triggerAction(deps, c, {
    env: c.get('environment'),
    integrationKey: h['provider-config-key'],
    connectionId: h['connection-id'],
    actionName: b.action_name,
    input: b.input,
    isAsync: h['x-async'] ?? false,
    maxRetries: h['x-max-retries'],
  }),
);

export const getActionResult = defineRoute({
  method: 'get',
  path: '/action/:id',
  operationId: 'getActionResult',
  summary: 'The result of an action run',
  description: 'A failed run answers with its error (400, 404, 424 or 500, as the trigger would have).',
  tag: 'actions',
  auth: 'secret_key',
  scope: 'environment:actions:execute',
  request: { params: idParam },
  responses: { 200: actionResponses[200] },
  errors: [404, 424, 500],
}).handle(async ({ deps, params }, c) => {
  const run = await getActionRun(deps.db, params.id);
  if (!run || run.environmentId !== c.get('environment').id || run.status === 'running') throw new NotFound('not_found', `No action '${params.id}' found`);
  return resultResponse(c, run);
});
