/**
 * @module features/connections/resolve — the one way a use case loads the integration and connection a
 * request names: through the cached lookups (features/connections/lookups.ts), answering a missing row
 * from the table below.
 */
import { BadRequest, NotFound, type SwitchyardError } from '../../lib/errors.js';
import type { Environment } from '../environments/store.js';
import type { Integration } from '../integrations/store.js';
import type { Lookups } from './lookups.js';
import type { Connection } from './store.js';

interface MissingAnswers {
  integration: (key: string) => SwitchyardError;
  connection: (connectionId: string, key: string) => SwitchyardError;
}

/**
 * What "no such integration / connection" answers, per kind of request. The differences are
 * deliberate: each matches what Nango answers on the same route, so its clients branch the same way.
 */
const ANSWERS = {
  /** Sync control, status, frequency and variants: Nango answers 400 for anything unknown. */
  syncs: {
    integration: (key) => new BadRequest('unknown_provider_config', `Integration ${key} does not exist`),
    connection: () => new BadRequest('unknown_connection', 'Connection not found'),
  },
  /** A sync's frequency or variants on one connection: Nango answers 400 unknown_connection for either. */
  syncConnection: {
    integration: () => new BadRequest('unknown_connection', 'Connection not found'),
    connection: () => new BadRequest('unknown_connection', 'Connection not found'),
  },
  /** Reading or updating one connection: an unknown integration is a 400, an unknown connection a 404 (Nango). */
  connection: {
    integration: () => new BadRequest('unknown_provider_config', 'Provider does not exists'),
    connection: () => new NotFound('not_found', 'Failed to find connection'),
  },
  /** Deleting a connection: Nango answers 400 unknown_connection for either. */
  connectionDelete: {
    integration: () => new BadRequest('unknown_connection', 'Connection not found'),
    connection: () => new BadRequest('unknown_connection', 'Connection not found'),
  },
  /** Dashboard pages: one 404 page, whichever is missing. */
  page: {
    integration: () => new NotFound('not_found', 'No such connection in this environment'),
    connection: () => new NotFound('not_found', 'No such connection in this environment'),
  },
  /** The integration API and importing a connection: 404 not_found (Nango). */
  integration: {
    integration: () => new NotFound('not_found', 'Integration does not exist'),
    connection: () => new NotFound('not_found', 'Connection does not exist'),
  },
  /** A provider's webhook and the Connect UI's authorization: 404 naming the key. */
  webhook: {
    integration: (key) => new NotFound('unknown_provider_config', `Integration ${key} does not exist`),
    connection: (id) => new NotFound('unknown_connection', `Connection ${id} does not exist`),
  },
  /** MCP tools: 400, as Nango's MCP server answers. */
  mcp: {
    integration: (key) => new BadRequest('unknown_provider', `Failed to find provider ${key}`),
    connection: (id, key) => new BadRequest('unknown_connection', `Failed to find connection ${id} of ${key}`),
  },
} satisfies Record<string, MissingAnswers>;

export type MissingKind = keyof typeof ANSWERS;
export const MISSING: Record<MissingKind, MissingAnswers> = ANSWERS;

export async function requireIntegration(lookups: Lookups, env: Pick<Environment, 'id'>, key: string, kind: MissingKind): Promise<Integration> {
  const integration = await lookups.integration(env.id, key);
  if (!integration) throw MISSING[kind].integration(key);
  return integration;
}

/** The connection and its integration; the integration is checked first, as every kind answers it first. */
export async function requireConnection(
  lookups: Lookups,
  env: Pick<Environment, 'id'>,
  key: string,
  connectionId: string,
  kind: MissingKind,
): Promise<{ integration: Integration; connection: Connection }> {
  const integration = await requireIntegration(lookups, env, key, kind);
  const connection = await lookups.connection(env.id, key, connectionId);
  if (!connection) throw MISSING[kind].connection(connectionId, key);
  return { integration, connection };
}
