/**
 * @module integrations/checkr-partner/plugin/account-hierarchy — Checkr's step after a connection is authorized
 * (the plugin's afterConnect, as Nango's post-connection scripts): whether the account has Account Hierarchy
 * (`GET /v1/nodes?page=1&per_page=1` succeeds only then), kept in
 * `connection_config.accountHierarchyEnabled` for the scripts that depend on it.
 */
import { mergeConnectionConfig, type Connection } from '../../../features/connections/store.js';
import type { ConnectionDeps } from '../../../features/connections/service.js';
import { providerTarget } from '../../../features/connections/target.js';

/** true / false; null when Checkr could not say (429, 5xx, network): the scripts then probe themselves. */
export async function detectCheckrHierarchy(deps: ConnectionDeps, connection: Connection): Promise<boolean | null> {
  try {
    const target = await providerTarget(deps, connection);
    const res = await deps.http.request({
      method: 'GET',
      baseUrl: target.baseUrl,
      path: '/v1/nodes',
      query: { page: 1, per_page: 1 },
      headers: { accept: 'application/json' },
      auth: target.auth,
      context: { environmentId: connection.environmentId, integration: connection.integrationKey, connectionId: connection.connectionId, kind: 'auth' },
      timeoutMs: 15_000,
    });
    if (res.status >= 200 && res.status < 300) return true;
    if (res.status === 429 || res.status === 408 || res.status >= 500) return null;
    return false;
  } catch {
    return null;
  }
}

/** Records whether the account has Account Hierarchy; never fails the connection (a failure leaves the flag unset). */
export async function recordAccountHierarchy(deps: ConnectionDeps, connection: Connection): Promise<void> {
  const enabled = await detectCheckrHierarchy(deps, connection);
  if (enabled === null) return;
  await mergeConnectionConfig(deps.db, connection.id, { accountHierarchyEnabled: enabled });
}
