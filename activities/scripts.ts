/**
 * @module activities/scripts — script runs outside syncs and actions: the post-connection-creation
 * scripts of a new connection (onEventWorkflow) and a sync's onWebhook for a third-party webhook
 * (syncWebhookWorkflow).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { getConnectionByPk, setOnEventError } from '../features/connections/store.js';
import { getIntegrationById } from '../features/integrations/store.js';
import { environmentName } from '../features/alerts/index.js';
import { annotate } from '../lib/otel/index.js';
import { modelsOf, scriptOf } from '../features/scripts/catalog.js';
import { createScriptContext } from '../features/scripts/context.js';
import { OnEventScriptFailed, runOnEventScripts } from '../features/scripts/on-event.js';
import type { ModelResult } from '../features/syncs/state.js';
import { emitEvent } from '../features/webhooks/emit.js';
import type { OnEventWorkflowInput, SyncWebhookWorkflowInput } from '../workflows/contracts.js';
import type { ActivityDeps } from './deps.js';
import { throwIfDatabaseUnavailable, throwIfRetryable, throwIfWrittenBefore } from '../features/scripts/failures.js';
import { openWriteMarks } from '../features/scripts/write-marks.js';
import { heartbeating } from './heartbeat.js';

/** The activity's workflow run, as the run id of the script's logs and errors. */
function runRef(fallback: string): string {
  try {
    const { workflowExecution } = Context.current().info;
    if (workflowExecution) return `${workflowExecution.workflowId}/${workflowExecution.runId}`;
  } catch {}
  return `${fallback}-${Date.now()}`;
}

export function scriptActivities(deps: ActivityDeps) {
  return {
    async runConnectionEvent(input: OnEventWorkflowInput): Promise<{ ran: string[] }> {
      const connection = await getConnectionByPk(deps.db, deps.box, input.connectionPk);
      const integration = connection ? await getIntegrationById(deps.db, deps.box, connection.integrationId) : null;
      if (!connection || !integration) return { ran: [] };
      annotate({ integration: connection.integrationKey, connection: connection.connectionId, script: input.event });
      const runId = runRef(input.event);
      const { marks, previous } = await openWriteMarks(deps.db, `on-event:${runId}`);
      throwIfWrittenBefore(previous);
      const stop = heartbeating(5000);
      try {
        const ran = await runOnEventScripts(deps, connection, integration, input.event, {
          runId,
          log: (e) => deps.log[e.level]({ runId, ...e.fields }, e.message),
          writes: marks,
        });
        return { ran };
      } catch (err) {
        const cause = err instanceof OnEventScriptFailed ? err.cause : err;
        throwIfRetryable(cause, marks.landed);
        throwIfDatabaseUnavailable(cause);
        throw ApplicationFailure.nonRetryable((err as Error).message ?? String(err), 'OnEventScriptError');
      } finally {
        stop();
      }
    },

    async recordConnectionEventFailure(input: OnEventWorkflowInput, message: string): Promise<void> {
      deps.log.warn({ connectionPk: input.connectionPk, event: input.event }, message);
      await setOnEventError(deps.db, input.connectionPk, input.event, {
        type: 'on-event',
        log_id: runRef(input.event),
        message,
        at: deps.clock.now().toISOString(),
      });
    },

    /** Runs the sync's onWebhook; what it saves is in the records cache and announced as a WEBHOOK sync. */
    async runSyncWebhook(input: SyncWebhookWorkflowInput): Promise<{ results: Record<string, ModelResult> }> {
      const connection = await getConnectionByPk(deps.db, deps.box, input.connectionPk);
      const integration = connection ? await getIntegrationById(deps.db, deps.box, connection.integrationId) : null;
      const script = integration ? await scriptOf(deps, integration, 'sync', input.syncName) : undefined;
      if (!connection || !integration || !script?.onWebhook) return { results: {} };
      annotate({ integration: connection.integrationKey, connection: connection.connectionId, script: input.syncName });
      const runId = runRef(`webhook-${input.syncName}`);
      const { marks, previous } = await openWriteMarks(deps.db, `webhook:${runId}`);
      throwIfWrittenBefore(previous);
      const startedAt = deps.clock.now();
      const results: Record<string, ModelResult> = {};
      const add = (model: string, r: Partial<ModelResult>) => {
        const m = (results[model] ??= { added: 0, updated: 0, deleted: 0 });
        m.added += r.added ?? 0;
        m.updated += r.updated ?? 0;
        m.deleted += r.deleted ?? 0;
      };
      const ctx = createScriptContext(deps, connection, {
        kind: 'sync',
        runId,
        writes: marks,
        models: await modelsOf(deps, integration),
        log: (e) => deps.log[e.level]({ runId, ...e.fields }, e.message),
        onSaved: (model, r) => add(model, { added: r.added, updated: r.updated }),
        onDeleted: (model, n) => add(model, { deleted: n }),
      });
      const stop = heartbeating(5000);
      try {
        await script.onWebhook(ctx, input.payload);
      } catch (err) {
        throwIfRetryable(err, marks.landed);
        throwIfDatabaseUnavailable(err);
        const message = `The onWebhook of ${input.syncName} failed on a ${input.type} webhook: ${(err as Error).message ?? String(err)}`;
        deps.log.warn({ runId, integration: connection.integrationKey, connection: connection.connectionId }, message);
        throw ApplicationFailure.nonRetryable(message, 'SyncWebhookScriptError');
      } finally {
        stop();
      }
      const environment = await environmentName(deps.db, connection.environmentId);
      for (const [model, responseResults] of Object.entries(results)) {
        if (!responseResults.added && !responseResults.updated && !responseResults.deleted) continue;
        await emitEvent(
          deps,
          {
            environmentId: connection.environmentId,
            type: 'sync',
            integration: connection.integrationKey,
            connectionId: connection.connectionId,
            payload: {
              from: 'switchyard',
              type: 'sync',
              connectionId: connection.connectionId,
              providerConfigKey: connection.integrationKey,
              syncName: input.syncName,
              syncVariant: 'base',
              model,
              syncType: 'WEBHOOK',
              environment,
              success: true,
              modifiedAfter: startedAt.toISOString(),
              queryTimeStamp: startedAt.toISOString(),
              responseResults,
            },
          },
          { idempotencyKey: `sync-webhook:${runId}:${model}` },
        );
      }
      return { results };
    },
  };
}
