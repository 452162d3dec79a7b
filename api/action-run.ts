/**
 * @module api/action-run — the one path every action run takes, whoever asks for it: `POST
 * /action/trigger`, the script endpoints, the MCP server's `tools/call` and the tools API. It
 * checks the integration, connection, action, its activated endpoint and its input; records the
 * run; starts actionWorkflow (retries, the output limit, request logs and traces happen there);
 * and for a synchronous call waits for the result.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { createActionRun, getActionRun, type ActionRun } from '../features/actions/runs.js';
import type { Environment } from '../features/environments/store.js';
import { enabledEndpoints, isEnabledIn, scriptOf } from '../features/scripts/catalog.js';
import { BadRequest, NotFound, ValidationFailed } from '../lib/errors.js';
import { annotate } from '../lib/otel/attributes.js';
import { eagerStart } from '../lib/temporal/client.js';
import { actionWorkflowId, searchAttributesFor, startWorkflow, taskQueueFor } from '../workflows/contracts.js';
import type { AppDeps } from './context.js';
import { problemsOf } from './validate.js';

/** How long a synchronous trigger waits before answering 202 with the run's status URL. */
export const SYNC_WAIT_MS = 120_000;

export interface ActionRequest {
  env: Environment;
  integrationKey: string;
  connectionId: string;
  /** The connection row the caller means (MCP): another row of the same id is refused as unknown. */
  connectionPk?: number;
  actionName: string;
  input: unknown;
  isAsync: boolean;
  /** X-Max-Retries: how many times a failed run is tried again (asynchronous runs, as Nango). */
  maxRetries?: number;
  /** The agent session making the call (MCP), recorded on the run. */
  agentSessionId?: string;
}

/** A run still going (async, or past the synchronous wait), or a finished one with its output or error. */
export type ActionRunOutcome = { done: false; id: string; statusUrl: string } | { done: true; run: ActionRun };

/** Validates, records the run, starts actionWorkflow; for a synchronous call, waits for the result. */
export async function runAction(deps: AppDeps, req: ActionRequest): Promise<ActionRunOutcome> {
  const integration = await deps.lookups.integration(req.env.id, req.integrationKey);
  if (!integration) throw new BadRequest('unknown_provider', 'Failed to find provider');
  const connection = await deps.lookups.connection(req.env.id, req.integrationKey, req.connectionId);
  if (!connection || (req.connectionPk !== undefined && connection.id !== req.connectionPk))
    throw new BadRequest('unknown_connection', 'Failed to find connection');
  const [script, enabled] = await Promise.all([scriptOf(deps, integration, 'action', req.actionName), enabledEndpoints(deps.db, integration)]);
  if (!script) throw new NotFound('not_found', 'Action not found');
  if (!isEnabledIn(enabled, script)) {
    throw new NotFound(
      'endpoint_not_enabled',
      script.endpoint
        ? `The endpoint ${script.endpoint.method} ${script.endpoint.path} of ${req.actionName} is not activated on ${integration.uniqueKey} (its Endpoints tab)`
        : `The action ${req.actionName} is not activated on ${integration.uniqueKey} (its Endpoints tab)`,
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
    maxRetries: req.isAsync ? (req.maxRetries ?? 0) : 0,
    agentSessionId: req.agentSessionId ?? null,
  });
  if (req.agentSessionId) {
    deps.log.info(
      { agentSessionId: req.agentSessionId, runId, integration: integration.uniqueKey, connectionId: connection.connectionId, action: req.actionName },
      'agent session call',
    );
  }
  // Before the start, so the run cannot finish unheard.
  const notice = req.isAsync ? undefined : deps.actionRunNotices?.(runId);
  const handle = await startActionWorkflow(deps, req, { runId, integration, connection }).catch((err: unknown) => {
    notice?.cancel();
    throw err;
  });
  const running = { done: false as const, id: runId, statusUrl: `/action/${runId}` };
  if (req.isAsync) return running;
  const ended = handle.result().then(
    () => true,
    (err: unknown) => {
      if (err instanceof WorkflowFailedError) return true;
      throw err;
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    ended,
    ...(notice ? [notice.finished.then(() => true)] : []),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), SYNC_WAIT_MS))),
  ]).finally(() => {
    clearTimeout(timer);
    notice?.cancel();
  });
  if (!finished) return running;
  // Read from the committed result: when its notice came first, the workflow's end is still on its way.
  return { done: true, run: (await getActionRun(deps.db, runId))! };
}

function startActionWorkflow(
  deps: AppDeps,
  req: ActionRequest,
  r: { runId: string; integration: { uniqueKey: string }; connection: { connectionId: string } },
) {
  const { runId, integration, connection } = r;
  return startWorkflow(deps.temporal, 'actionWorkflow', {
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
    ...eagerStart(deps.temporal),
  });
}
