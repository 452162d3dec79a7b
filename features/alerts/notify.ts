/**
 * @module features/alerts/notify — raising and resolving alerts, and telling the environment's alert channel.
 *
 * The alert webhook reuses the webhook machinery (features/webhooks): an `alert` event and one delivery
 * to the environment's alert_webhook_url are committed with the alert itself, then a
 * webhookDeliveryWorkflow signs (features/webhooks/sign.ts, the same headers and key as every other
 * webhook), POSTs and retries it, and every attempt shows in GET /webhook-deliveries?type=alert.
 * The channel hears of an alert twice: when it opens (not on its repeats) and when it resolves.
 * A dead alert delivery raises no alert (that would loop); it is logged.
 *
 * Alerting never fails the caller: errors are logged and swallowed.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Config } from '../../lib/config.js';
import type { SecretBox } from '../../lib/crypto.js';
import { recordEvent } from '../webhooks/events.js';
import { withTransaction, type Db, type DbClient, type Queryable } from '../../lib/db/pool.js';
import { environmentNameById } from '../environments/store.js';
import type { Logger } from '../../lib/log.js';
import { metric } from '../../lib/otel/metrics.js';
import { insertDelivery, type Delivery } from '../webhooks/deliveries.js';
import { startDeliveryWorkflow } from '../webhooks/emit.js';
import { getSettings } from '../webhooks/settings.js';
import { stableStringify } from '../webhooks/sign.js';
import { hasOpenAlert, presentAlert, resolveAlert, upsertAlert, type Alert, type AlertOccurrence } from './store.js';

export interface AlertDeps {
  db: Db;
  box: SecretBox;
  temporal: Client;
  config: Config;
  log?: Logger;
}

const envNames = new Map<number, string>();

/** Environment names never change; cached per process. */
export async function environmentName(db: Queryable, id: number): Promise<string> {
  const known = envNames.get(id);
  if (known) return known;
  const name = (await environmentNameById(db, id)) ?? String(id);
  envNames.set(id, name);
  return name;
}

async function queueNotification(tx: DbClient, deps: AlertDeps, alert: Alert, operation: 'opened' | 'resolved', envName: string): Promise<Delivery | null> {
  const settings = await getSettings(tx, deps.box, alert.environmentId);
  if (!settings.alertWebhookUrl) return null;
  const payload = { from: 'switchyard', type: 'alert', operation, environment: envName, alert: presentAlert(alert) };
  const eventId = await recordEvent(tx, {
    environmentId: alert.environmentId,
    type: 'alert',
    integration: alert.integration,
    connectionId: alert.connectionId,
    payload,
  });
  return insertDelivery(tx, {
    id: randomUUID(),
    environmentId: alert.environmentId,
    eventId,
    url: settings.alertWebhookUrl,
    type: 'alert',
    integration: alert.integration,
    connectionId: alert.connectionId,
    body: stableStringify(payload),
  });
}

async function send(deps: AlertDeps, delivery: Delivery | null, envName: string): Promise<void> {
  if (!delivery) return;
  try {
    await startDeliveryWorkflow(deps, delivery, envName);
  } catch (err) {
    deps.log?.warn({ err, deliveryId: delivery.id }, 'alert webhook workflow not started');
  }
}

/** Opens the cause's alert (and notifies) or counts a repeat on the open one. */
export async function raiseAlert(deps: AlertDeps, occurrence: AlertOccurrence): Promise<Alert | null> {
  try {
    const envName = await environmentName(deps.db, occurrence.environmentId);
    const { alert, created, delivery } = await withTransaction(deps.db, async (tx) => {
      const { alert, created } = await upsertAlert(tx, occurrence);
      return { alert, created, delivery: created ? await queueNotification(tx, deps, alert, 'opened', envName) : null };
    });
    if (created) {
      metric.alert(alert.kind, envName);
      deps.log?.warn({ alertId: alert.id, kind: alert.kind, cause: alert.cause, message: alert.message }, 'alert opened');
    }
    await send(deps, delivery, envName);
    return alert;
  } catch (err) {
    deps.log?.error({ err, cause: occurrence.cause }, 'raising an alert failed');
    return null;
  }
}

/** Resolves the cause's open alert, if any (and notifies). `by`: the run, check or delivery that succeeded. */
export async function resolveAlerts(deps: AlertDeps, environmentId: number, cause: string, by: string | null): Promise<Alert | null> {
  try {
    // The common case, nothing open, costs one index lookup and no transaction.
    if (!(await hasOpenAlert(deps.db, environmentId, cause))) return null;
    const envName = await environmentName(deps.db, environmentId);
    const { alert, delivery } = await withTransaction(deps.db, async (tx) => {
      const alert = await resolveAlert(tx, environmentId, cause, by);
      return { alert, delivery: alert ? await queueNotification(tx, deps, alert, 'resolved', envName) : null };
    });
    if (alert) deps.log?.info({ alertId: alert.id, kind: alert.kind, cause, by }, 'alert resolved');
    await send(deps, delivery, envName);
    return alert;
  } catch (err) {
    deps.log?.error({ err, cause }, 'resolving an alert failed');
    return null;
  }
}
