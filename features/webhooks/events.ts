/**
 * @module features/webhooks/events — the outbox of events for the developer's backend. Webhook delivery reads it.
 */
import type { Queryable } from '../../lib/db/pool.js';

/** `alert`: sent to the environment's alert webhook by features/alerts, never through emitEvent. */
export type EventType = 'auth' | 'sync' | 'async_action' | 'forward' | 'alert';

export interface NewEvent {
  environmentId: number;
  type: EventType;
  integration?: string | null;
  connectionId?: string | null;
  payload: Record<string, unknown>;
}

export async function recordEvent(db: Queryable, e: NewEvent): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    'INSERT INTO events (environment_id, type, integration, connection_id, payload) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [e.environmentId, e.type, e.integration ?? null, e.connectionId ?? null, JSON.stringify(e.payload)],
  );
  return rows[0]!.id;
}

export async function listEvents(
  db: Queryable,
  environmentId: number,
  type?: EventType,
): Promise<{ id: number; type: EventType; payload: Record<string, unknown> }[]> {
  const { rows } = await db.query<{ id: number; type: EventType; payload: Record<string, unknown> }>(
    `SELECT id, type, payload FROM events WHERE environment_id = $1 ${type ? 'AND type = $2' : ''} ORDER BY id`,
    type ? [environmentId, type] : [environmentId],
  );
  return rows;
}

/** The event an emitter with this idempotency key already recorded in the environment, if any. */
export async function eventIdByIdempotencyKey(db: Queryable, environmentId: number, key: string): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM events WHERE environment_id = $1 AND idempotency_key = $2', [environmentId, key]);
  return rows[0]?.id ?? null;
}

export async function setIdempotencyKey(db: Queryable, eventId: number, key: string): Promise<void> {
  await db.query('UPDATE events SET idempotency_key = $2 WHERE id = $1', [eventId, key]);
}
