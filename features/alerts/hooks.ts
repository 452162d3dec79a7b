/**
 * @module features/alerts/hooks — what the platform calls when a run, check, refresh or delivery fails or
 * succeeds. Each failure raises (or repeats) the alert of its cause; the next success of the same
 * thing resolves it. Sync outcomes also keep the connection's `{type: 'sync'}` errors current.
 */
import { sha256Hex } from '../../lib/crypto.js';
import { setSyncError, type Connection } from '../connections/store.js';
import { redactUrl } from '../../lib/http/redact.js';
import type { DeadDelivery } from '../webhooks/deliveries.js';
import { raiseAlert, resolveAlerts, type AlertDeps } from './notify.js';
import { causeOf } from './store.js';

type ConnectionRef = Pick<Connection, 'id' | 'environmentId' | 'integrationKey' | 'connectionId'>;

export async function syncFailed(deps: AlertDeps, c: ConnectionRef, syncName: string, runId: string, message: string, at: Date): Promise<void> {
  try {
    await setSyncError(deps.db, c.id, syncName, { type: 'sync', log_id: runId, message, at: at.toISOString() });
  } catch (err) {
    deps.log?.error({ err, connectionPk: c.id, syncName }, 'recording the sync error on the connection failed');
  }
  await raiseAlert(deps, {
    environmentId: c.environmentId,
    kind: 'sync_failed',
    cause: causeOf.sync(c.integrationKey, c.connectionId, syncName),
    integration: c.integrationKey,
    connectionId: c.connectionId,
    script: syncName,
    message: `Sync ${syncName} of ${c.integrationKey}/${c.connectionId} failed: ${message}`,
    details: { run_id: runId, error: message },
    ref: runId,
  });
}

export async function syncSucceeded(deps: AlertDeps, c: ConnectionRef, syncName: string, runId: string): Promise<void> {
  try {
    await setSyncError(deps.db, c.id, syncName, null);
  } catch (err) {
    deps.log?.error({ err, connectionPk: c.id, syncName }, 'clearing the sync error on the connection failed');
  }
  await resolveAlerts(deps, c.environmentId, causeOf.sync(c.integrationKey, c.connectionId, syncName), runId);
}

export async function checkFailed(deps: AlertDeps, c: ConnectionRef, reason: string, ref: string): Promise<void> {
  await raiseAlert(deps, {
    environmentId: c.environmentId,
    kind: 'connection_check_failed',
    cause: causeOf.check(c.integrationKey, c.connectionId),
    integration: c.integrationKey,
    connectionId: c.connectionId,
    script: 'connection-check',
    message: `The check of ${c.integrationKey}/${c.connectionId} failed: ${reason}`,
    details: { reason },
    ref,
  });
}

export async function checkSucceeded(deps: AlertDeps, c: ConnectionRef, ref: string): Promise<void> {
  await resolveAlerts(deps, c.environmentId, causeOf.check(c.integrationKey, c.connectionId), ref);
}

export async function refreshFailed(deps: AlertDeps, c: ConnectionRef, message: string): Promise<void> {
  await raiseAlert(deps, {
    environmentId: c.environmentId,
    kind: 'auth_refresh_failed',
    cause: causeOf.auth(c.integrationKey, c.connectionId),
    integration: c.integrationKey,
    connectionId: c.connectionId,
    script: 'token-refresh',
    message: `Refreshing the token of ${c.integrationKey}/${c.connectionId} failed: ${message}`,
    details: { error: message },
  });
}

export async function refreshSucceeded(deps: AlertDeps, c: ConnectionRef): Promise<void> {
  await resolveAlerts(deps, c.environmentId, causeOf.auth(c.integrationKey, c.connectionId), 'token-refresh');
}

/** The alert of a webhook target stands for its URL (hashed), across deliveries and event types. */
export function webhookCause(url: string): string {
  return causeOf.webhook(sha256Hex(url).slice(0, 32));
}

export async function deliveryDead(deps: AlertDeps, d: DeadDelivery): Promise<void> {
  // Alerts about the alert channel itself would loop: those are only logged (activities/webhooks.ts).
  if (d.type === 'alert') return;
  const url = redactUrl(d.url);
  await raiseAlert(deps, {
    environmentId: d.environmentId,
    kind: 'webhook_dead',
    cause: webhookCause(d.url),
    integration: d.integration,
    connectionId: d.connectionId,
    script: 'webhook-delivery',
    message: `A ${d.type} webhook to ${url} was given up after ${d.attempts} attempt(s): ${d.reason}`,
    details: { delivery_id: d.id, url, type: d.type, attempts: d.attempts, reason: d.reason },
    ref: d.id,
  });
}

export async function delivered(deps: AlertDeps, d: { id: string; environmentId: number; type: string; url: string }): Promise<void> {
  if (d.type === 'alert') return;
  await resolveAlerts(deps, d.environmentId, webhookCause(d.url), d.id);
}
