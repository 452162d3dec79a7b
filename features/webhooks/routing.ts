/**
 * @module features/webhooks/routing — which connections a third party's webhook goes to when the event
 * names them by a connection_config value (e.g. Checkr's `account_id` ↔ `checkr_account_id`). Only
 * values the provider returned (token response, a call after connecting) or the developer set (secret
 * key) route: connections/store `verifiedConfigKeys`. A connection whose value the end user typed
 * gets nothing, or anyone could copy another customer's events into their own connection by typing
 * that customer's account id. Every claimant hears how it stands through its `webhook` error (the
 * connection's errors, shown in the dashboard) and the logs: a typed value that is not routed, or one
 * value verified on several connections (each gets the event; the others are named).
 */
import { connectionsOfIntegration, setWebhookRoutingError, type Connection } from '../connections/store.js';
import { tokenMetadata } from '../connections/oauth.js';
import type { Integration } from '../integrations/store.js';
import { findProvider } from '../providers/store.js';
import type { Provider } from '../providers/providers.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Db } from '../../lib/db/pool.js';
import type { Logger } from '../../lib/log.js';

export interface RoutingDeps {
  db: Db;
  box: SecretBox;
  log: Logger;
}

/** Whether the connection's `configKey` value came from the provider or the developer. */
function isVerified(c: Connection, configKey: string, value: string, provider: Provider | null): boolean {
  if (c.verifiedConfigKeys) return c.verifiedConfigKeys.includes(configKey);
  // Saved before provenance was kept: verified only when the stored token response says the same.
  if (!provider || c.credentials.type !== 'OAUTH2' || !c.credentials.raw) return false;
  const returned = tokenMetadata(provider, c.credentials.raw)[configKey];
  return (typeof returned === 'string' || typeof returned === 'number') && String(returned) === value;
}

/** The connections of the integration a webhook naming `connection_config[configKey] = value` goes to. */
export async function connectionsRoutedBy(deps: RoutingDeps, integration: Integration, configKey: string, value: string): Promise<Connection[]> {
  const claimants = await connectionsOfIntegration(deps.db, deps.box, integration.id, { configKey, value });
  if (claimants.length === 0) return [];
  const provider = claimants.some((c) => c.verifiedConfigKeys === null)
    ? ((await findProvider(deps.db, integration.environmentId, integration.provider)) ?? null)
    : null;
  const routed = claimants.filter((c) => isVerified(c, configKey, value, provider));
  const typed = claimants.filter((c) => !routed.includes(c));
  const where = { integration: integration.uniqueKey, configKey };
  if (typed.length > 0) {
    deps.log.warn(
      { ...where, connections: typed.map((c) => c.connectionId), routedTo: routed.map((c) => c.connectionId) },
      `third-party webhook not routed to connections whose ${configKey} was entered by the end user`,
    );
  }
  if (routed.length > 1) {
    deps.log.warn(
      { ...where, connections: routed.map((c) => c.connectionId) },
      `${routed.length} connections claim the same ${configKey}: the webhook goes to each`,
    );
  }
  const log_id = `webhook-routing:${integration.uniqueKey}:${configKey}`;
  for (const c of typed) {
    await setWebhookRoutingError(deps.db, c.id, {
      type: 'webhook',
      log_id,
      message: `Webhooks for ${configKey} ${value} are not routed to this connection: the value was entered by the end user, not returned by the provider or set with the secret key`,
    });
  }
  for (const c of routed) {
    const others = routed.filter((o) => o !== c).map((o) => o.connectionId);
    await setWebhookRoutingError(
      deps.db,
      c.id,
      others.length === 0
        ? null
        : {
            type: 'webhook',
            log_id,
            message: `Webhooks for ${configKey} ${value} also go to ${others.join(', ')}: ${routed.length} connections claim this value`,
          },
    );
  }
  return routed;
}
