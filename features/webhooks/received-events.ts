/**
 * @module features/webhooks/received-events — provider webhook events already received, by the event
 * id in their body: a redelivery, or a replay of a captured event, is acknowledged without being
 * processed again. An event is claimed before it is processed and marked done after; a failed
 * processing gives the claim back (the provider's retry then runs it), and a claim left by a process
 * that died lapses after a minute.
 */
import type { Queryable } from '../../lib/db/pool.js';

/** How long a claim blocks other deliveries of the event while it is processed. */
const CLAIM_LEASE_SECONDS = 60;
/** Events are remembered this long; providers redeliver for at most a few days. */
export const RECEIVED_EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** True when this delivery is the one to process the event; false when it was (or is being) processed. */
export async function claimWebhookEvent(db: Queryable, integrationId: number, eventId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO provider_webhook_events (integration_id, event_id) VALUES ($1, $2)
     ON CONFLICT (integration_id, event_id) DO UPDATE SET claimed_at = now()
       WHERE NOT provider_webhook_events.done AND provider_webhook_events.claimed_at < now() - make_interval(secs => $3)`,
    [integrationId, eventId.slice(0, 512), CLAIM_LEASE_SECONDS],
  );
  return rowCount === 1;
}

export async function finishWebhookEvent(db: Queryable, integrationId: number, eventId: string): Promise<void> {
  await db.query('UPDATE provider_webhook_events SET done = true WHERE integration_id = $1 AND event_id = $2', [integrationId, eventId.slice(0, 512)]);
}

export async function releaseWebhookEvent(db: Queryable, integrationId: number, eventId: string): Promise<void> {
  await db.query('DELETE FROM provider_webhook_events WHERE integration_id = $1 AND event_id = $2 AND NOT done', [integrationId, eventId.slice(0, 512)]);
}

export async function pruneWebhookEvents(db: Queryable, olderThan: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM provider_webhook_events WHERE claimed_at < $1', [olderThan]);
  return rowCount ?? 0;
}
