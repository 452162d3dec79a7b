/**
 * @module features/webhooks/outbox — the deliveries an endpoint's workflow sends in batches
 * (workflows/webhook-endpoint.ts). The delivery rows are the outbox: an emitter commits them, then
 * wakes the workflow of their endpoint (one per environment and target URL); the workflow's drain
 * activity claims the due ones of its URL, sends them, and records each attempt and outcome on the
 * row (a retry moves `next_attempt_at`; a refusal or an exhausted window makes it dead).
 *
 * Waking is cheap: after its commit, the first emitter since the flag was cleared sets the
 * endpoint's `wake_pending` and sends the signal; later emitters find it set and send nothing. A
 * drain leaves it set while its claims find work (emitters then signal nothing during a burst) and
 * clears it before it stops, in its own statement, then reads the outbox again in a later one: that
 * read sees every delivery committed before an emitter found the flag set.
 */
import { sha256Hex } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';
import { DELIVERY_COLUMNS, fromRow, type Delivery, type Row } from './deliveries.js';

/** The endpoint's name in its workflow id: a hash of the URL, never the URL (it may carry a secret). */
export function endpointKey(url: string): string {
  return sha256Hex(url).slice(0, 32);
}

/**
 * After the emitter's deliveries to `url` are committed: marks the endpoint as asked to drain. True
 * when this emitter must send the wake-up signal (no one has since the last claim); false when one
 * is already on its way. Then the drain it causes clears the flag after this call read it, so after
 * this emitter's commit, and its claim (a later statement) sees the deliveries. When the flag is
 * already set nothing is written or locked: most emits of a burst cost one read here.
 */
export async function requestWake(db: Queryable, environmentId: number, url: string): Promise<boolean> {
  const { rows } = await db.query<{ flipped: boolean; known: boolean }>({
    name: 'switchyard-request-wake',
    text: `WITH up AS (
       UPDATE webhook_endpoints SET wake_pending = true WHERE environment_id = $1 AND url = $2 AND NOT wake_pending RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM up) AS flipped, EXISTS (SELECT 1 FROM webhook_endpoints WHERE environment_id = $1 AND url = $2) AS known`,
    values: [environmentId, url],
  });
  if (rows[0]!.flipped) return true;
  if (rows[0]!.known) return false;
  // The endpoint's first delivery: register it, asked to drain (or, when another emitter just did, as above).
  const first = await db.query(
    `INSERT INTO webhook_endpoints AS e (environment_id, url, key, wake_pending) VALUES ($1, $2, $3, true)
     ON CONFLICT (environment_id, url) DO UPDATE SET wake_pending = true WHERE NOT e.wake_pending
     RETURNING 1`,
    [environmentId, url, endpointKey(url)],
  );
  return first.rows.length > 0;
}

/** The endpoint's URL, registering the endpoint when needed (the sweeper wakes endpoints of rows committed before any wake). */
export async function ensureEndpoint(db: Queryable, environmentId: number, url: string): Promise<string> {
  const key = endpointKey(url);
  await db.query('INSERT INTO webhook_endpoints (environment_id, url, key) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [environmentId, url, key]);
  return key;
}

export interface ClaimOptions {
  limit: number;
  leaseMs: number;
  /**
   * Also take the deliveries whose lease is still running: the caller is a retry of the drain
   * activity, whose previous attempt Temporal has given up on (a killed worker's claims).
   */
  takeOver: boolean;
  /**
   * Begin an attempt of each claimed delivery in the claim's statement (its count and attempt row,
   * as beginAttempts): for a caller that sends every claimed delivery at once, without a throttle.
   */
  begin: boolean;
}

/** The URL of the endpoint named `key` (its workflow's name for it), null when the endpoint is unknown. */
export async function endpointUrl(db: Queryable, environmentId: number, key: string): Promise<string | null> {
  const { rows } = await db.query<{ url: string }>('SELECT url FROM webhook_endpoints WHERE environment_id = $1 AND key = $2', [environmentId, key]);
  return rows[0]?.url ?? null;
}

/**
 * Clears the endpoint's wake request, waiting for an emitter that is setting it. The caller then
 * reads the outbox in a later statement (a later snapshot), which sees every delivery committed
 * before an emitter found the flag set and sent no signal.
 */
export async function clearWake(db: Queryable, environmentId: number, url: string): Promise<void> {
  await db.query({
    name: 'switchyard-clear-wake',
    text: 'UPDATE webhook_endpoints SET wake_pending = false WHERE environment_id = $1 AND url = $2 AND wake_pending',
    values: [environmentId, url],
  });
}

/**
 * Claims up to `limit` due deliveries of the endpoint for `leaseMs`, marking them handed over (the
 * sweeper leaves held ones alone). Only columns no index covers change (the lease, the attempt
 * count), so the row's new version can be a HOT update.
 */
export async function claimDue(db: Queryable, environmentId: number, url: string, o: ClaimOptions): Promise<Delivery[]> {
  const { rows } = await db.query<Row>({
    name: 'switchyard-claim-due',
    text: `WITH c AS (
       UPDATE webhook_deliveries SET claimed_until = now() + make_interval(secs => $4), attempts = attempts + CASE WHEN $6 THEN 1 ELSE 0 END
        WHERE id IN (
          SELECT id FROM webhook_deliveries
           WHERE environment_id = $1 AND url = $2 AND status = 'pending' AND via_endpoint
             AND COALESCE(next_attempt_at, '-infinity') <= now()
             AND (claimed_until IS NULL OR claimed_until <= now() OR $5)
           ORDER BY next_attempt_at NULLS FIRST, seq
           LIMIT $3
           FOR UPDATE SKIP LOCKED)
       RETURNING ${DELIVERY_COLUMNS}
     ), a AS (
       INSERT INTO webhook_attempts (delivery_id, n, started_at) SELECT id, attempts, now() FROM c WHERE $6
     )
     SELECT * FROM c`,
    values: [environmentId, url, o.limit, o.leaseMs / 1000, o.takeOver, o.begin],
  });
  return rows.map(fromRow).sort((a, b) => a.seq - b.seq);
}

/** Ms until the endpoint's next pending delivery is due (0: now), or null when none is pending. */
export async function nextDueInMs(db: Queryable, environmentId: number, url: string): Promise<number | null> {
  // min() over no rows is NULL; GREATEST would turn that into 0, so it is kept out of it.
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT CASE WHEN due IS NULL THEN NULL WHEN due <= now() THEN 0 ELSE (EXTRACT(EPOCH FROM (due - now())) * 1000)::float8 END AS ms
       FROM (SELECT min(GREATEST(COALESCE(next_attempt_at, '-infinity'), COALESCE(claimed_until, '-infinity'))) AS due
               FROM webhook_deliveries
              WHERE environment_id = $1 AND url = $2 AND status = 'pending' AND via_endpoint) pending`,
    [environmentId, url],
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Math.ceil(ms);
}

/**
 * Endpoints with a delivery overdue by more than `graceMs` and not held by a drain: their workflow
 * was not woken (or has ended) although its emitter confirmed the wake-up. The sweeper wakes them.
 * A delivery sent by its endpoint's workflow has its endpoint's row once its wake-up was confirmed
 * (before, the sweeper's unstarted pass finds it), so each endpoint is probed in the outbox index.
 */
export async function overdueEndpoints(db: Queryable, graceMs: number, limit: number): Promise<{ environmentId: number; url: string }[]> {
  const { rows } = await db.query<{ environment_id: number; url: string }>(
    `SELECT e.environment_id, e.url FROM webhook_endpoints e
      WHERE EXISTS (
        SELECT 1 FROM webhook_deliveries d
         WHERE d.environment_id = e.environment_id AND d.url = e.url AND d.status = 'pending' AND d.via_endpoint
           AND (d.next_attempt_at IS NULL OR d.next_attempt_at < now() - make_interval(secs => $1))
           AND (d.claimed_until IS NULL OR d.claimed_until < now()))
      LIMIT $2`,
    [graceMs / 1000, limit],
  );
  return rows.map((r) => ({ environmentId: r.environment_id, url: r.url }));
}
