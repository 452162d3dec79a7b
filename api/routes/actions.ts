/**
 * @module api/routes/actions — triggering actions (synchronously or async) and reading results.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { Hono, type Context } from 'hono';
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
import { requireSecretKey } from '../middleware/auth.js';
import { describeRoute } from '../openapi.js';
import { check, headers, params, problemsOf, readJson, stringBool } from '../validate.js';
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
    return c.json({ id: runId, statusUrl }, 202);
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
    return c.json({ id: runId, statusUrl }, 202);
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

export function actionRoutes(deps: AppDeps) {
  const auth = requireSecretKey(deps);
  describeRoute({
    method: 'post',
    path: '/action/trigger',
    summary: 'Run an action (its output, or 202 with X-Async: true)',
    tag: 'actions',
    headers: triggerHeaders,
    body: triggerBody,
  });
  describeRoute({ method: 'get', path: '/action/:id', summary: 'The result of an action run', tag: 'actions' });
  return new Hono<AppEnv>()
    .post('/action/trigger', auth, async (c) => {
      const h = headers(c, triggerHeaders);
      const b = check(triggerBody, await readActionBody(deps, c), 'invalid_body');
      return triggerAction(deps, c, {
        env: c.get('environment'),
        integrationKey: h['provider-config-key'],
        connectionId: h['connection-id'],
        actionName: b.action_name,
        input: b.input,
        isAsync: h['x-async'] ?? false,
      });
    })
    .get('/action/:id', auth, async (c) => {
      const { id } = params(c, idParam);
      const run = await getActionRun(deps.db, id);
      if (!run || run.environmentId !== c.get('environment').id || run.status === 'running') throw new NotFound('not_found', `No action '${id}' found`);
      return resultResponse(c, run);
    });
}
