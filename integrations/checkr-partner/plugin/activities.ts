/**
 * @module integrations/checkr-partner/plugin/activities — what backgroundCheckWorkflow does outside: polling Checkr
 * for one check, and reporting a change (record + event); and starting the workflow once a
 * `trigger-background-check` action has succeeded (the plugin's afterAction).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ActionRun } from '../../../features/actions/runs.js';
import { MODEL, saveSnapshot, startBackgroundCheckWorkflow } from './background-checks.js';
import { providerTarget } from '../../../features/connections/target.js';
import { getConnectionByPk, type Connection } from '../../../features/connections/store.js';
import { environmentNameById } from '../../../features/environments/store.js';
import { recordModifiedAt } from '../../../features/records/store.js';
import { UpstreamHttpError } from '../../../lib/http/index.js';
import { emitEvent } from '../../../features/webhooks/emit.js';
import { TRIGGER_ACTION } from '../index.js';
import { checkStatusOf, type InvitationFacts, type ReportFacts } from '../status.js';
import type { BackgroundCheckActivities } from '../workflows/contracts.js';
import type { PluginDeps } from '../../plugin.js';
import { throwIfRetryable } from '../../../features/scripts/failures.js';

/**
 * Starts backgroundCheckWorkflow for a successful `trigger-background-check` run of a Checkr
 * connection; any other run is left alone. Idempotent (one workflow per check), so the action
 * activity calls it again when retried after the run was recorded.
 */
export async function startBackgroundCheckAfterTrigger(deps: PluginDeps, run: ActionRun, connection: Connection): Promise<void> {
  if (run.actionName !== TRIGGER_ACTION) return;
  const invitationId = (run.output as { applicationId?: unknown } | null)?.applicationId;
  if (typeof invitationId !== 'string') return;
  const env = await environmentNameById(deps.db, connection.environmentId);
  if (!env) return;
  await startBackgroundCheckWorkflow(deps.temporal, deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, {
    env,
    connectionPk: connection.id,
    integration: connection.integrationKey,
    connectionId: connection.connectionId,
    invitationId,
  });
}

export function backgroundCheckActivities(deps: PluginDeps): BackgroundCheckActivities {
  return {
    async pollBackgroundCheck(input) {
      const connection = await getConnectionByPk(deps.db, deps.box, input.connectionPk);
      if (!connection) return { stopped: 'the connection was deleted' };
      const target = await providerTarget(deps, connection);
      const get = async <T>(path: string): Promise<T> => {
        const res = await deps.http.requestOrThrow({
          method: 'GET',
          baseUrl: target.baseUrl,
          path,
          headers: { accept: 'application/json' },
          auth: target.auth,
          context: { environmentId: connection.environmentId, integration: connection.integrationKey, connectionId: connection.connectionId, kind: 'sync' },
        });
        return JSON.parse(res.body?.toString('utf8') || '{}') as T;
      };
      try {
        const invitation = await get<InvitationFacts>(`/v1/invitations/${encodeURIComponent(input.invitationId)}`);
        const report = invitation.report_id ? await get<ReportFacts>(`/v1/reports/${encodeURIComponent(invitation.report_id)}`) : undefined;
        return {
          invitation: { id: invitation.id, status: invitation.status, deleted_at: invitation.deleted_at ?? null, report_id: invitation.report_id ?? null },
          ...(report ? { report: { id: report.id, status: report.status, result: report.result ?? null } } : {}),
        };
      } catch (err) {
        if (err instanceof UpstreamHttpError && err.status === 404) return { stopped: 'Checkr no longer knows the invitation' };
        throwIfRetryable(err);
        throw ApplicationFailure.nonRetryable((err as Error).message, 'BackgroundCheckPollFailed');
      }
    },

    async reportBackgroundCheck(input) {
      const connection = await getConnectionByPk(deps.db, deps.box, input.connectionPk);
      if (!connection) return;
      const s = input.snapshot;
      await saveSnapshot(deps.db, connection.id, s);
      const modifiedAt = await recordModifiedAt(deps.db, connection.id, MODEL, s.invitationId);
      const modifiedAfter = new Date((modifiedAt ?? deps.clock.now()).getTime() - 1).toISOString();
      const status = checkStatusOf(s);
      await emitEvent(
        deps,
        {
          environmentId: connection.environmentId,
          type: 'sync',
          integration: input.integration,
          connectionId: input.connectionId,
          payload: {
            from: 'switchyard',
            type: 'sync',
            connectionId: input.connectionId,
            providerConfigKey: input.integration,
            syncName: 'background-checks',
            syncVariant: 'base',
            model: MODEL,
            syncType: 'WEBHOOK',
            success: true,
            modifiedAfter,
            queryTimeStamp: modifiedAfter,
            responseResults: { added: 0, updated: 1, deleted: 0 },
            environment: await environmentNameById(deps.db, connection.environmentId),
            backgroundCheck: {
              id: s.invitationId,
              check_status: status,
              previous_check_status: input.previousStatus,
              status: s.invitationStatus,
              report_id: s.reportId,
              report_status: s.reportStatus,
              result: s.result,
              source: input.source,
            },
          },
        },
        { idempotencyKey: `bgcheck:${connection.id}:${s.invitationId}:${s.invitationStatus}:${s.reportStatus ?? ''}:${s.result ?? ''}` },
      );
    },
  };
}
