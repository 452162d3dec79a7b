/**
 * @module activities/token-refresh — what an OAuth token refresh's outcome sets off, for the API and
 * the workers alike (start/platform.ts puts it in both's deps as `onTokenRefresh`, and
 * features/connections/service.ts calls it): a success resolves the connection's
 * `auth_refresh_failed` alert; a failure raises it and emits the `auth` webhook (operation
 * `refresh`, success false), as Nango does.
 */
import type { TokenRefreshListener } from '../features/connections/service.js';
import type { Connection } from '../features/connections/store.js';
import { alertHooks, type AlertDeps } from '../features/alerts/index.js';
import { environmentNameById } from '../features/environments/store.js';
import { emitEvent } from '../features/webhooks/emit.js';

export function tokenRefreshListener(deps: AlertDeps): TokenRefreshListener {
  return {
    refreshed: (connection: Connection) => alertHooks.refreshSucceeded(deps, connection),
    async refreshFailed(connection: Connection, message: string): Promise<void> {
      await alertHooks.refreshFailed(deps, connection, message);
      await emitEvent(deps, {
        environmentId: connection.environmentId,
        type: 'auth',
        integration: connection.integrationKey,
        connectionId: connection.connectionId,
        payload: {
          type: 'auth',
          operation: 'refresh',
          connectionId: connection.connectionId,
          providerConfigKey: connection.integrationKey,
          provider: connection.provider,
          authMode: connection.authMode,
          environment: (await environmentNameById(deps.db, connection.environmentId)) ?? 'unknown',
          success: false,
          error: { type: 'refresh_token_error', description: message },
          tags: connection.tags,
        },
      });
    },
  };
}
