import { ApplicationFailure, Context } from '@temporalio/activity';
import { dates } from '../lib/clock.js';
import { appendActionLog, finishActionRun, getActionRun, type ActionFailure } from '../features/actions/runs.js';
import { getConnectionByPk, type Connection } from '../features/connections/store.js';
import { emitEvent } from '../features/webhooks/emit.js';
import { getIntegrationById } from '../features/integrations/store.js';
import { UpstreamHttpError } from '../lib/http/index.js';
import { createScriptContext } from '../features/scripts/context.js';
import { modelsIn, scriptIn, scriptsOf } from '../features/scripts/catalog.js';
import { SandboxError, ScriptError } from '../lib/sandbox/index.js';
import { ActionError } from '../sdk/errors.js';
import { environmentName } from '../features/alerts/index.js';
import { annotate, metric } from '../lib/otel/index.js';
import type { ActivityDeps } from './deps.js';
import { throwIfRetryable, throwIfWrittenBefore } from '../features/scripts/failures.js';
import { newWriteMarks, openWriteMarks } from '../features/scripts/write-marks.js';
import { pluginFor } from '../integrations/plugins.js';
import { heartbeating } from './heartbeat.js';
import { inOrder } from '../lib/in-order.js';
import type { LogLine } from '../sdk/helpers.js';

export const ACTION_OUTPUT_LIMIT_BYTES = 2 * 1024 * 1024;

export type ActionOutcome = { ok: true } | { ok: false; error: ActionFailure };

export function describeFailure(err: unknown): ActionFailure {
  if (err instanceof ActionError) {
    const payload = typeof err.payload === 'object' && err.payload !== null && !Array.isArray(err.payload) ? err.payload : { message: err.payload };
    // A failure the script chose to report (Nango's ActionError): a 500 with its payload, as Nango's runner answers it.
    return { status: 500, code: 'action_script_runtime_error', message: 'The action script failed with a runtime error', payload };
  }
  if (err instanceof UpstreamHttpError) {
    return {
      status: 424,
      code: 'script_http_error',
      message: `The provider answered ${err.status}`,
      payload: err.body,
      upstream: { status: err.status, headers: pickHeaders(err.headers), body: err.body },
    };
  }
  if (err instanceof SandboxError) return { status: 500, code: err.code, message: err.message };
  if (err instanceof ScriptError) return { status: 500, code: 'action_script_failure', message: `The action script failed with an error: ${err.message}` };
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'NetworkError') return { status: 500, code: 'script_network_error', message: e.message ?? 'network error', payload: { code: e.code } };
  return { status: 500, code: 'action_script_failure', message: `The action script failed with an error: ${e.message ?? String(err)}` };
}

function pickHeaders(h: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(h).filter(([k]) => k === 'content-type' || k.startsWith('x-rate') || k === 'retry-after'));
}

/**
 * The provider plugin's follow-ups of a successful run (e.g. a workflow to start). Idempotent, so
 * the action activity calls it again when retried after the run was recorded.
 */
async function startActionFollowUps(deps: ActivityDeps, runId: string, knownConnection?: Connection): Promise<void> {
  // Most providers have none: nothing to read again.
  if (knownConnection && !pluginFor(knownConnection.provider)?.afterAction) return;
  const run = await getActionRun(deps.db, runId);
  if (!run || run.status !== 'success' || !run.connectionPk) return;
  const connection = await getConnectionByPk(deps.db, deps.box, run.connectionPk);
  const afterAction = connection ? pluginFor(connection.provider)?.afterAction : undefined;
  if (connection && afterAction) await afterAction(deps, run, connection);
}

export function actionActivities(deps: ActivityDeps) {
  const fail = async (runId: string, error: ActionFailure): Promise<ActionOutcome> => {
    await finishActionRun(deps.db, runId, { error });
    return { ok: false, error };
  };

  return {
    /** Runs the action script once; retryable failures throw (Temporal retries), final ones are stored. */
    async runAction(runId: string): Promise<ActionOutcome> {
      const run = await getActionRun(deps.db, runId);
      if (!run) throw new Error(`action run ${runId} does not exist`);
      // A retry after the run was recorded: make sure its follow-up workflow started (idempotent).
      if (run.status === 'success') await startActionFollowUps(deps, runId);
      if (run.status !== 'running') return run.status === 'success' ? { ok: true } : { ok: false, error: run.error! };
      // A first attempt has no earlier write to find (write-marks.ts): its read is only for retries.
      const [connection, { marks, previous }] = await Promise.all([
        run.connectionPk ? getConnectionByPk(deps.db, deps.box, run.connectionPk) : null,
        Context.current().info.attempt > 1 ? openWriteMarks(deps.db, `action:${runId}`) : { marks: newWriteMarks(deps.db, `action:${runId}`), previous: null },
      ]);
      if (!connection) return fail(runId, { status: 400, code: 'unknown_connection', message: 'Failed to find connection' });
      const [integration, scripts] = await Promise.all([
        getIntegrationById(deps.db, deps.box, connection.integrationId),
        scriptsOf(deps, { id: connection.integrationId, provider: connection.provider }),
      ]);
      const script = scriptIn(scripts, 'action', run.actionName);
      if (!integration || !script) return fail(runId, { status: 404, code: 'not_found', message: 'Action not found' });
      annotate({ integration: integration.uniqueKey, connection: connection.connectionId, script: run.actionName, runId });
      const labels = { environment: await environmentName(deps.db, connection.environmentId), integration: integration.uniqueKey, script: run.actionName };
      const startedAt = Date.now();

      // The run is finished only after its log lines are stored: a caller that has the answer has its logs.
      const runLog = inOrder((entry: LogLine) => appendActionLog(deps.db, runId, entry));
      throwIfWrittenBefore(previous);
      const ctx = createScriptContext(deps, connection, {
        kind: 'action',
        runId,
        models: modelsIn(scripts),
        log: (entry) => runLog.push(entry),
        writes: marks,
      });
      const stopHeartbeat = heartbeating(5000);
      let output: unknown;
      try {
        output = await script.exec(ctx, script.input.parse(run.input));
      } catch (err) {
        await runLog.flushed();
        throwIfRetryable(err, marks.landed);
        metric.run('action', labels, false, Date.now() - startedAt);
        const failure = describeFailure(err);
        // X-Max-Retries: Temporal's retry of this activity is the next try (its attempt counts from 1).
        const attempt = Context.current().info.attempt;
        if (attempt <= run.maxRetries) {
          await appendActionLog(deps.db, runId, { level: 'warn', message: `Try ${attempt} of ${run.maxRetries + 1} failed: ${failure.message}` });
          throw ApplicationFailure.retryable(failure.message, 'ActionTryFailed');
        }
        return fail(runId, failure);
      } finally {
        stopHeartbeat();
      }
      await runLog.flushed();
      const checked = script.output.safeParse(output);
      if (!checked.success) {
        return fail(runId, {
          status: 400,
          code: 'invalid_action_output',
          message: 'The action returned an output that does not match its schema',
          payload: checked.error.issues.map((i) => ({ path: i.path, message: i.message })),
        });
      }
      const bytes = Buffer.byteLength(JSON.stringify(checked.data) ?? 'null');
      if (bytes > ACTION_OUTPUT_LIMIT_BYTES) {
        const message = `The action's output is ${bytes} bytes; the limit is ${ACTION_OUTPUT_LIMIT_BYTES}. Return large payloads through the proxy instead.`;
        if (deps.clock.now() >= dates.actionOutputLimit) return fail(runId, { status: 400, code: 'action_output_too_large', message });
        await appendActionLog(deps.db, runId, { level: 'warn', message: `${message} From 2025-10-01 this is an error.` });
      }
      // A run whose provider starts follow-ups is answered once they have started (after the activity).
      await finishActionRun(deps.db, runId, { output: checked.data }, !pluginFor(connection.provider)?.afterAction);
      metric.run('action', labels, true, Date.now() - startedAt);
      // The provider plugin's follow-ups (a workflow to start); a failure here retries the
      // activity, which then finds the run recorded and only starts what is missing.
      await startActionFollowUps(deps, runId, connection);
      return { ok: true };
    },

    /** The `async_action` event: the consumer then reads `GET /action/:id`. */
    async emitActionCompleted(runId: string): Promise<void> {
      const run = await getActionRun(deps.db, runId);
      if (!run) return;
      await emitEvent(
        deps,
        {
          environmentId: run.environmentId,
          type: 'async_action',
          integration: run.integration,
          connectionId: run.connectionId,
          payload: {
            from: 'switchyard',
            type: 'async_action',
            connectionId: run.connectionId,
            providerConfigKey: run.integration,
            payload: { id: run.id, statusUrl: `/action/${run.id}` },
          },
        },
        { idempotencyKey: `action:${run.id}` },
      );
    },

    /** Called by the workflow when retries ran out. */
    async failActionRun(runId: string, error: ActionFailure): Promise<ActionOutcome> {
      return fail(runId, error);
    },
  };
}
