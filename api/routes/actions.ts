/**
 * @module api/routes/actions — triggering actions (synchronously or async) and reading results.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import type { Context } from 'hono';
import { z } from 'zod';
import { createActionRun, getActionRun, type ActionRun } from '../../features/actions/runs.js';
import { getConnection } from '../../features/connections/store.js';
import type { Environment } from '../../features/environments/store.js';
import { getIntegration } from '../../features/integrations/store.js';
import { BadRequest, NotFound, PayloadTooLarge, UpstreamError, ValidationFailed } from '../../lib/errors.js';
import { actionWorkflowId, searchAttributesFor, startWorkflow, taskQueueFor } from '../../workflows/contracts.js';
import { annotate } from '../../lib/otel/attributes.js';
import { isScriptEnabled, scriptOf } from '../../features/scripts/catalog.js';
import type { AppDeps, AppEnv } from '../context.js';
import { defineRoute } from '../route.js';
import { problemsOf, readJson, stringBool } from '../validate.js';
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
const actionAccepted = z.object({ id: z.string(), statusUrl: z.string() });

/** How long a synchronous trigger waits before answering 202 with the run's status URL. */
export const SYNC_WAIT_MS = 120_000;

export interface ActionRequest {
  env: Environment;
  integrationKey: string;
  connectionId: string;
  actionName: string;
  input: unknown;
  isAsync: boolean;
  /** The unified endpoints say endpoint_not_enabled; /action/trigger says the same. */
}

function resultResponse(c: Context<AppEnv>, run: ActionRun) {
  if (run.status === 'success') return c.json(run.output as object, 200);
  const e = run.error!;
  throw new UpstreamError(e.code, e.message, e.status, e.payload);
}

/** Validates, records the run, starts actionWorkflow; answers with the output or 202. */
export async function triggerAction(deps: AppDeps, c: Context<AppEnv>, req: ActionRequest) {
  const integration = await getIntegration(deps.db, deps.box, req.env.id, req.integrationKey);
  if (!integration) throw new BadRequest('unknown_provider', 'Failed to find provider');
  const connection = await getConnection(deps.db, deps.box, req.env.id, req.integrationKey, req.connectionId);
  if (!connection) throw new BadRequest('unknown_connection', 'Failed to find connection');
  const script = await scriptOf(deps, integration, req.actionName);
  if (!script || script.type !== 'action') throw new NotFound('not_found', 'Action not found');
  if (!(await isScriptEnabled(deps.db, integration, script))) {
    throw new NotFound(
      'endpoint_not_enabled',
      `The endpoint ${script.endpoint.method} ${script.endpoint.path} of ${req.actionName} is not activated on ${integration.uniqueKey} (its Endpoints tab)`,
    );
  }
  const parsed = script.input.safeParse(req.input ?? {});
  if (!parsed.success) throw new ValidationFailed('invalid_action_input', problemsOf(parsed.error), 'The input does not match the action input schema');

  const runId = randomUUID();
  annotate({ integration: integration.uniqueKey, connection: connection.connectionId, script: req.actionName, runId });
  await createActionRun(deps.db, {
    id: runId,
    environmentId: req.env.id,
    connectionPk: connection.id,
    integration: integration.uniqueKey,
    connectionId: connection.connectionId,
    actionName: req.actionName,
    input: parsed.data,
    isAsync: req.isAsync,
  });
  const handle = await startWorkflow(deps.temporal, 'actionWorkflow', {
    workflowId: actionWorkflowId(req.env.name, runId),
    taskQueue: taskQueueFor(deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, req.env.name),
    args: [{ runId, isAsync: req.isAsync }],
    typedSearchAttributes: searchAttributesFor({
      environment: req.env.name,
      integration: integration.uniqueKey,
      connection: connection.connectionId,
      script: req.actionName,
    }),
    staticSummary: `Action ${req.actionName} on ${integration.uniqueKey}/${connection.connectionId}`,
  });
  const statusUrl = `/action/${runId}`;
  if (req.isAsync) {
    c.header('Location', statusUrl);
    return c.json({ id: runId, statusUrl } satisfies z.output<typeof actionAccepted>, 202);
  }
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    handle.result().then(
      () => true,
      (err: unknown) => {
        if (err instanceof WorkflowFailedError) return true;
        throw err;
      },
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), SYNC_WAIT_MS))),
  ]);
  clearTimeout(timer);
  if (!finished) {
    c.header('Location', statusUrl);
    return c.json({ id: runId, statusUrl } satisfies z.output<typeof actionAccepted>, 202);
  }
  return resultResponse(c, (await getActionRun(deps.db, runId))!);
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
    'An unknown integration or connection answers 400, as Nango does. A failed run answers with its error: 400/404 for what the run could not find, 424 when the provider refused, 500 when the script failed.',
  tag: 'actions',
  auth: 'secret_key',
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
  request: { params: idParam },
  responses: { 200: actionResponses[200] },
  errors: [404, 424, 500],
}).handle(async ({ deps, params }, c) => {
  const run = await getActionRun(deps.db, params.id);
  if (!run || run.environmentId !== c.get('environment').id || run.status === 'running') throw new NotFound('not_found', `No action '${params.id}' found`);
  return resultResponse(c, run);
});
