/**
 * @module features/webhooks/throttle — per-endpoint webhook throttling. Each webhook URL of an
 * environment gets at most `webhook_max_per_second` requests per second (the environment's setting,
 * else SWITCHYARD_WEBHOOK_MAX_PER_SECOND; none or 0: no limit). Before each attempt the delivery's
 * workflow reserves the endpoint's next free send slot here (one row per endpoint, moved on by
 * 1 / rate seconds under its row lock, so concurrent workers never share a slot) and waits for it on a
 * durable Temporal timer: deliveries beyond the rate are delayed, never dropped.
 */
import type { Queryable } from '../../lib/db/pool.js';

/**
 * Reserves the next send slot of the delivery's endpoint and returns how long to wait for it (ms,
 * 0 when the slot is now, when the endpoint has no limit, or when the delivery is no longer pending).
 */
export async function reserveSendSlot(db: Queryable, deliveryId: string, defaultPerSecond: number): Promise<number> {
  const { rows } = await db.query<{ environment_id: number; url: string; rate: number | null }>(
    `SELECT d.environment_id, d.url, COALESCE(s.webhook_max_per_second, $2::float8) AS rate
       FROM webhook_deliveries d LEFT JOIN environment_settings s ON s.environment_id = d.environment_id
      WHERE d.id = $1 AND d.status = 'pending'`,
    [deliveryId, defaultPerSecond],
  );
  const target = rows[0];
  if (!target || !target.rate || target.rate <= 0) return 0;
  const { rows: slot } = await db.query<{ wait_ms: number }>(
    `INSERT INTO webhook_endpoint_slots AS s (environment_id, url, next_slot_at)
     VALUES ($1, $2, statement_timestamp() + make_interval(secs => $3))
     ON CONFLICT (environment_id, url) DO UPDATE
        SET next_slot_at = GREATEST(s.next_slot_at, statement_timestamp()) + make_interval(secs => $3)
     RETURNING GREATEST(0, EXTRACT(EPOCH FROM (s.next_slot_at - make_interval(secs => $3) - clock_timestamp())) * 1000)::float8 AS wait_ms`,
    [target.environment_id, target.url, 1 / target.rate],
  );
  return Math.ceil(slot[0]!.wait_ms);
}

/** The environment's per-endpoint rate (requests per second), null when unlimited. */
export async function endpointRate(db: Queryable, environmentId: number, defaultPerSecond: number): Promise<number | null> {
  const { rows } = await db.query<{ rate: number | null }>(
    'SELECT COALESCE((SELECT webhook_max_per_second FROM environment_settings WHERE environment_id = $1), $2::float8) AS rate',
    [environmentId, defaultPerSecond],
  );
  const rate = rows[0]?.rate;
  return rate && rate > 0 ? rate : null;
}
