import { verifyCredentials } from '../features/connections/service.js';
import { providerTarget } from '../features/connections/target.js';
import { getConnectionByPk, recordCheck } from '../features/connections/store.js';
import { Context } from '@temporalio/activity';
import { alertHooks } from '../features/alerts/index.js';
import { annotate } from '../lib/otel/index.js';
import type { ActivityDeps } from './deps.js';

/** The check's workflow run (what resolves or repeats its alert), or a timestamp outside an activity. */
function checkRef(): string {
  try {
    const { workflowExecution } = Context.current().info;
    if (workflowExecution) return `${workflowExecution.workflowId}/${workflowExecution.runId}`;
  } catch {}
  return `check-${Date.now()}`;
}

export function connectionActivities(deps: ActivityDeps) {
  return {
    async checkConnection(connectionPk: number): Promise<{ ok: boolean; reason?: string }> {
      const connection = await getConnectionByPk(deps.db, deps.box, connectionPk);
      if (!connection) return { ok: false, reason: 'connection deleted' };
      annotate({ integration: connection.integrationKey, connection: connection.connectionId, script: 'connection-check' });
      let result: { ok: boolean; reason?: string };
      try {
        const target = await providerTarget(deps, connection);
        result = await verifyCredentials(deps, target.endpoints, target.connection.credentials, {
          environmentId: connection.environmentId,
          integration: connection.integrationKey,
          connectionId: connection.connectionId,
          kind: 'check',
        });
      } catch (err) {
        result = { ok: false, reason: (err as Error).message };
      }
      await recordCheck(
        deps.db,
        connectionPk,
        result.ok,
        result.ok ? null : { type: 'auth', log_id: `check-${Date.now()}`, message: result.reason, at: deps.clock.now().toISOString() },
      );
      if (result.ok) await alertHooks.checkSucceeded(deps, connection, checkRef());
      else await alertHooks.checkFailed(deps, connection, result.reason ?? 'the check failed', checkRef());
      return result;
    },
  };
}
