import { providerTarget, verifyCredentials } from '../lib/connections/service.js';
import { getConnectionByPk, recordCheck } from '../lib/db/connections.js';
import type { ActivityDeps } from './deps.js';

export function connectionActivities(deps: ActivityDeps) {
  return {
    async checkConnection(connectionPk: number): Promise<{ ok: boolean; reason?: string }> {
      const connection = await getConnectionByPk(deps.db, deps.box, connectionPk);
      if (!connection) return { ok: false, reason: 'connection deleted' };
      let result: { ok: boolean; reason?: string };
      try {
        const target = await providerTarget(deps, connection);
        result = await verifyCredentials(
          deps,
          {
            provider: target.provider,
            integration: target.integration,
            connectionConfig: target.connection.connectionConfig,
            credentials: target.connection.credentials,
          },
          { environmentId: connection.environmentId, integration: connection.integrationKey, connectionId: connection.connectionId, kind: 'check' },
        );
      } catch (err) {
        result = { ok: false, reason: (err as Error).message };
      }
      await recordCheck(
        deps.db,
        connectionPk,
        result.ok,
        result.ok ? null : { type: 'auth', log_id: `check-${Date.now()}`, message: result.reason, at: deps.clock.now().toISOString() },
      );
      return result;
    },
  };
}
