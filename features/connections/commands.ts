/**
 * @module features/connections/commands — the connection use cases that sequence several steps:
 * updating a connection's end user, tags and webhook URL, and deleting a connection (its
 * pre-deletion scripts, its schedules, then the row). Routes parse, call one of these, map the result.
 */
import { dates } from '../../lib/clock.js';
import type { Logger } from '../../lib/log.js';
import { BadRequest } from '../../lib/errors.js';
import { assertUrlAllowed } from '../../lib/http/index.js';
import type { Environment } from '../environments/store.js';
import type { Lifecycle } from '../lifecycle/lifecycle.js';
import { runPreConnectionDeletion } from '../scripts/on-event.js';
import type { Lookups } from './lookups.js';
import { requireConnection } from './resolve.js';
import type { ConnectionDeps } from './service.js';
import { deleteConnection, patchConnection, setEndUserOfAllConnections, type Connection, type EndUser } from './store.js';
import { tagsFrom } from './tags.js';

export interface ConnectionCommandDeps extends ConnectionDeps {
  log: Logger;
  lookups: Lookups;
  lifecycle: Lifecycle;
}

export interface ConnectionRef {
  integrationKey: string;
  connectionId: string;
}

export interface ConnectionChange {
  endUser?: EndUser;
  tags?: Record<string, string>;
  /** '' clears the override. */
  webhookUrlOverride?: string;
}

export type ConnectionCommands = ReturnType<typeof connectionCommands>;

export function connectionCommands(deps: ConnectionCommandDeps) {
  /** A webhook URL a connection may override its integration's with: public, unless allow-listed. */
  async function checkWebhookUrl(url: string | undefined, path: string[]): Promise<void> {
    if (!url) return;
    try {
      await assertUrlAllowed(url, deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS);
    } catch (err) {
      throw new BadRequest('invalid_body', `${path.join('.')}: ${(err as Error).message}`);
    }
  }

  async function update(env: Environment, ref: ConnectionRef, change: ConnectionChange): Promise<Connection> {
    const { connection } = await requireConnection(deps.lookups, env, ref.integrationKey, ref.connectionId, 'connection');
    await checkWebhookUrl(change.webhookUrlOverride, ['webhook_url_override']);
    const tags = change.tags ?? (change.endUser ? tagsFrom(change.endUser, undefined) : undefined);
    await patchConnection(deps.db, connection.id, {
      ...(tags !== undefined ? { tags: change.tags ? change.tags : { ...connection.tags, ...tags } } : {}),
      ...(change.endUser !== undefined ? { endUser: change.endUser } : {}),
      ...(change.webhookUrlOverride !== undefined ? { webhookUrlOverride: change.webhookUrlOverride } : {}),
    });
    // Before 2025-09-08 an end-user update applied to every connection of that end user.
    if (change.endUser && deps.clock.now() < dates.endUserIsolation) await setEndUserOfAllConnections(deps.db, env.id, change.endUser);
    return connection;
  }

  /** The integration's pre-connection-deletion scripts (bounded; a failure does not stop the delete), the schedules, the row. */
  async function remove(env: Environment, ref: ConnectionRef): Promise<void> {
    const { connection } = await requireConnection(deps.lookups, env, ref.integrationKey, ref.connectionId, 'connectionDelete');
    await runPreConnectionDeletion(deps, connection);
    await deps.lifecycle.connectionDeleting(env, connection);
    await deleteConnection(deps.db, connection.id);
  }

  return { checkWebhookUrl, update, remove };
}
