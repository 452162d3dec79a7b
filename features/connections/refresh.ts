/**
 * @module features/connections/refresh — OAuth and TWO_STEP tokens refreshed before they expire (or when forced),
 * under a per-connection row lock so two refreshes never race: whoever waits re-reads the row and
 * finds the fresh token. The token URL and parameters come from the resolver's endpoints
 * (target.ts), checked like every other URL. What a refresh's outcome sets off (alerts, the `auth`
 * webhook) is the `onTokenRefresh` listener's (activities/token-refresh.ts).
 */
import { withTransaction } from '../../lib/db/pool.js';
import { BadRequest, NotFound } from '../../lib/errors.js';
import type { StoredCredentials } from './credentials.js';
import { clientCredentialsToken, refreshToken } from './oauth.js';
import { twoStepToken } from './two-step.js';
import type { ConnectionDeps } from './service.js';
import { getConnectionByPk, recordCheck, saveCredentials, type Connection } from './store.js';
import type { Endpoints } from './target.js';

export const REFRESH_MARGIN_MS = 15 * 60 * 1000;

function needsRefresh(c: Connection, now: Date, force: boolean): boolean {
  if (c.credentials.type === 'OAUTH2_CC' || c.credentials.type === 'TWO_STEP') {
    // A client-credentials or TWO_STEP token is fetched again (no refresh token) when it is about to expire.
    const expiresAt = c.expiresAt ?? (c.credentials.expires_at ? new Date(c.credentials.expires_at) : null);
    return force || Boolean(expiresAt && expiresAt.getTime() - now.getTime() < REFRESH_MARGIN_MS);
  }
  if (c.credentials.type !== 'OAUTH2') return false;
  if (force) return Boolean(c.credentials.refresh_token);
  return Boolean(c.credentials.refresh_token && c.expiresAt && c.expiresAt.getTime() - now.getTime() < REFRESH_MARGIN_MS);
}

/**
 * Returns the connection with credentials valid for at least the refresh margin, refreshing its
 * OAuth token first when needed, at the token URL `endpointsOf` resolves for the locked row's config.
 */
export async function withFreshCredentials(
  deps: ConnectionDeps,
  connection: Connection,
  endpointsOf: (connectionConfig: Record<string, unknown>) => Endpoints,
  opts: { force?: boolean } = {},
): Promise<Connection> {
  if (!needsRefresh(connection, deps.clock.now(), opts.force ?? false)) return connection;
  let refreshed = false;
  try {
    const result = await withTransaction(deps.db, async (tx) => {
      const locked = await getConnectionByPk(tx, deps.box, connection.id, true);
      if (!locked) throw new NotFound('not_found', 'Failed to find connection');
      if (locked.credentials.type !== 'OAUTH2' && locked.credentials.type !== 'OAUTH2_CC' && locked.credentials.type !== 'TWO_STEP') return locked;
      const stillNeeded = opts.force ? locked.updatedAt.getTime() <= connection.updatedAt.getTime() : needsRefresh(locked, deps.clock.now(), false);
      if (!stillNeeded) return locked;
      const endpoints = endpointsOf(locked.connectionConfig);
      const context = {
        environmentId: locked.environmentId,
        integration: endpoints.integration.uniqueKey,
        connectionId: locked.connectionId,
        kind: 'auth',
      } as const;
      let fresh: StoredCredentials;
      if (locked.credentials.type === 'TWO_STEP') {
        fresh = await twoStepToken({ http: deps.http, endpoints, credentials: locked.credentials, now: deps.clock.now(), context });
      } else if (locked.credentials.type === 'OAUTH2_CC') {
        fresh = await clientCredentialsToken({ http: deps.http, endpoints, connectionCredentials: locked.credentials, now: deps.clock.now(), context });
      } else {
        const client = endpoints.integration.credentials;
        if (!client) throw new BadRequest('invalid_credentials', 'The integration has no OAuth client credentials to refresh with');
        fresh = await refreshToken({ http: deps.http, endpoints, client, refreshToken: locked.credentials.refresh_token!, now: deps.clock.now(), context });
      }
      await saveCredentials(tx, deps.box, locked.id, fresh);
      refreshed = true;
      return (await getConnectionByPk(tx, deps.box, locked.id))!;
    });
    // A successful refresh resolves the connection's auth_refresh_failed alert, if one is open.
    if (refreshed) await deps.onTokenRefresh.refreshed(connection);
    return result;
  } catch (err) {
    if (err instanceof NotFound) throw err;
    const message = (err as Error).message;
    await recordCheck(deps.db, connection.id, false, { type: 'auth', log_id: `refresh-${Date.now()}`, message, at: deps.clock.now().toISOString() });
    // Raises the auth_refresh_failed alert and emits the `auth` webhook (refresh, success: false).
    await deps.onTokenRefresh.refreshFailed(connection, message);
    throw new BadRequest('invalid_credentials', `Refreshing the token failed: ${message}`);
  }
}
