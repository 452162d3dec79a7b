/**
 * @module features/webhooks/deliveries — the delivery and attempt rows: one delivery per target URL of an
 * event, one attempt per HTTP request made for it.
 */
import type { Queryable } from '../../lib/db/pool.js';
import { pageQuery, Where } from '../../lib/db/where.js';
import type { EventType, NewEvent } from './events.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface Delivery {
  id: string;
  seq: number;
  environmentId: number;
  eventId: number;
  replayOf: string | null;
  url: string;
  type: EventType;
  integration: string | null;
  connectionId: string | null;
  body: string;
  headers: Record<string, string>;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  /** Sent by its endpoint's workflow (features/webhooks/outbox.ts), not by a workflow of its own. */
  viaEndpoint: boolean;
  createdAt: Date;
  deliveredAt: Date | null;
}

export interface Attempt {
  n: number;
  startedAt: Date;
  status: number | null;
  error: string | null;
  durationMs: number | null;
  responseExcerpt: string | null;
}

export interface Row {
  id: string;
  seq: number;
  environment_id: number;
  event_id: number;
  replay_of: string | null;
  url: string;
  type: EventType;
  integration: string | null;
  connection_id: string | null;
  body: string;
  headers: Record<string, string>;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  via_endpoint: boolean;
  created_at: Date;
  delivered_at: Date | null;
}

/**
 * Row's columns, for the statements prepared once per connection (`name`): a listed result keeps its
 * type when a migration adds a column, where `*` would fail with "cached plan must not change result type".
 */
export const DELIVERY_COLUMNS = `id, seq, environment_id, event_id, replay_of, url, type, integration, connection_id, body, headers, status, attempts,
  last_status, last_error, next_attempt_at, via_endpoint, created_at, delivered_at`;

export function fromRow(r: Row): Delivery {
  return {
    id: r.id,
    seq: r.seq,
    environmentId: r.environment_id,
    eventId: r.event_id,
    replayOf: r.replay_of,
    url: r.url,
    type: r.type,
    integration: r.integration,
    connectionId: r.connection_id,
    body: r.body,
    headers: r.headers,
    status: r.status,
    attempts: r.attempts,
    lastStatus: r.last_status,
    lastError: r.last_error,
    nextAttemptAt: r.next_attempt_at,
    viaEndpoint: r.via_endpoint,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
  };
}

export interface NewDelivery {
  id: string;
  environmentId: number;
  eventId: number;
  url: string;
  type: EventType;
  integration?: string | null;
  connectionId?: string | null;
  body: string;
  headers?: Record<string, string>;
  replayOf?: string | null;
  /** Sent by its endpoint's workflow (features/webhooks/outbox.ts); else by a webhookDeliveryWorkflow of its own. */
  viaEndpoint?: boolean;
}

export async function insertDelivery(db: Queryable, d: NewDelivery): Promise<Delivery> {
  const { rows } = await db.query<Row>(
    `INSERT INTO webhook_deliveries (id, environment_id, event_id, url, type, integration, connection_id, body, headers, replay_of, next_attempt_at, via_endpoint)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), $11) RETURNING *`,
    [
      d.id,
      d.environmentId,
      d.eventId,
      d.url,
      d.type,
      d.integration ?? null,
      d.connectionId ?? null,
      d.body,
      JSON.stringify(d.headers ?? {}),
      d.replayOf ?? null,
      d.viaEndpoint ?? false,
    ],
  );
  return fromRow(rows[0]!);
}

/** An event to record with its deliveries (one per URL, the same body and headers). */
export interface NewEventWithDeliveries {
  event: NewEvent;
  idempotencyKey: string | null;
  deliveries: { id: string; url: string }[];
  body: string;
  headers: Record<string, string>;
  viaEndpoint: boolean;
}

/**
 * Records events and their deliveries in one statement, so one commit for all (concurrent emits share
 * it: features/webhooks/emit.ts). An event whose idempotency key is already used in its environment
 * writes nothing and its result is null (the caller reads that event's deliveries). Each event's id
 * is drawn before its insert so that its deliveries, and its result, find it.
 */
export async function insertEventsWithDeliveries(
  db: Queryable,
  items: NewEventWithDeliveries[],
): Promise<({ eventId: number; deliveries: Delivery[] } | null)[]> {
  const col = <T>(f: (x: NewEventWithDeliveries) => T) => items.map(f);
  const targets = items.flatMap((x, i) => x.deliveries.map((d) => ({ i: i + 1, ...d })));
  const { rows } = await db.query<Row & { i: number; new_event_id: number | null }>({
    name: 'switchyard-insert-events-with-deliveries',
    text: `WITH input AS (
       SELECT nextval(pg_get_serial_sequence('events', 'id')) AS event_id, x.*
         FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::boolean[])
              WITH ORDINALITY AS x(environment_id, type, integration, connection_id, payload, idempotency_key, body, headers, via_endpoint, i)
     ), ev AS (
       INSERT INTO events (id, environment_id, type, integration, connection_id, payload, idempotency_key)
       SELECT event_id, environment_id, type, integration, connection_id, payload::jsonb, idempotency_key FROM input ORDER BY i
       ON CONFLICT (environment_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING id
     ), d AS (
       INSERT INTO webhook_deliveries (id, environment_id, event_id, url, type, integration, connection_id, body, headers, next_attempt_at, via_endpoint)
       SELECT u.id, x.environment_id, ev.id, u.url, x.type, x.integration, x.connection_id, x.body, x.headers::jsonb, now(), x.via_endpoint
         FROM unnest($10::int[], $11::uuid[], $12::text[]) WITH ORDINALITY AS u(i, id, url, k)
         JOIN input x ON x.i = u.i JOIN ev ON ev.id = x.event_id
        ORDER BY u.k
       RETURNING ${DELIVERY_COLUMNS}
     )
     SELECT x.i::int AS i, ev.id AS new_event_id, d.* FROM input x LEFT JOIN ev ON ev.id = x.event_id LEFT JOIN d ON d.event_id = ev.id`,
    values: [
      col((x) => x.event.environmentId),
      col((x) => x.event.type),
      col((x) => x.event.integration ?? null),
      col((x) => x.event.connectionId ?? null),
      col((x) => JSON.stringify(x.event.payload)),
      col((x) => x.idempotencyKey),
      col((x) => x.body),
      col((x) => JSON.stringify(x.headers)),
      col((x) => x.viaEndpoint),
      targets.map((t) => t.i),
      targets.map((t) => t.id),
      targets.map((t) => t.url),
    ],
  });
  const out: ({ eventId: number; deliveries: Delivery[] } | null)[] = items.map(() => null);
  for (const r of rows) {
    if (r.new_event_id === null) continue;
    const recorded = (out[r.i - 1] ??= { eventId: r.new_event_id, deliveries: [] });
    if (r.id !== null) recorded.deliveries.push(fromRow(r));
  }
  for (const o of out) o?.deliveries.sort((a, b) => a.seq - b.seq);
  return out;
}

export async function getDelivery(db: Queryable, id: string, environmentId?: number): Promise<Delivery | null> {
  const { rows } = await db.query<Row>(
    `SELECT * FROM webhook_deliveries WHERE id = $1 ${environmentId === undefined ? '' : 'AND environment_id = $2'}`,
    environmentId === undefined ? [id] : [id, environmentId],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  type?: EventType;
  /** Only deliveries with a smaller `seq` (the cursor of the previous page). */
  beforeSeq?: number;
  limit: number;
}

/** Newest first. */
export async function listDeliveries(db: Queryable, environmentId: number, f: DeliveryFilter): Promise<Delivery[]> {
  const where = new Where('environment_id = ?', environmentId);
  if (f.status) where.and('status = ?', f.status);
  if (f.type) where.and('type = ?', f.type);
  if (f.beforeSeq !== undefined) where.and('seq < ?', f.beforeSeq);
  const { rows } = await db.query<Row>(...pageQuery('SELECT * FROM webhook_deliveries', where, { orderBy: 'seq DESC', limit: f.limit }));
  return rows.map(fromRow);
}

export async function attemptsOf(db: Queryable, deliveryIds: string[]): Promise<Map<string, Attempt[]>> {
  const out = new Map<string, Attempt[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return out;
  const { rows } = await db.query<{
    delivery_id: string;
    n: number;
    started_at: Date;
    status: number | null;
    error: string | null;
    duration_ms: number | null;
    response_excerpt: string | null;
  }>('SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, n', [deliveryIds]);
  for (const r of rows) {
    out.get(r.delivery_id)!.push({
      n: r.n,
      startedAt: r.started_at,
      status: r.status,
      error: r.error,
      durationMs: r.duration_ms,
      responseExcerpt: r.response_excerpt,
    });
  }
  return out;
}

/**
 * Counts and records the start of an attempt. Null when the delivery is no longer pending (an
 * activity retried after its success was recorded), so nothing is sent twice from here.
 */
export async function beginAttempt(db: Queryable, deliveryId: string): Promise<{ delivery: Delivery; n: number } | null> {
  // One statement, so one commit: the count and the attempt row together.
  const { rows } = await db.query<Row>(
    `WITH d AS (
       UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = NULL WHERE id = $1 AND status = 'pending' RETURNING *
     ), a AS (
       INSERT INTO webhook_attempts (delivery_id, n, started_at) SELECT id, attempts, now() FROM d
     )
     SELECT * FROM d`,
    [deliveryId],
  );
  if (!rows[0]) return null;
  const delivery = fromRow(rows[0]);
  return { delivery, n: delivery.attempts };
}

/**
 * beginAttempt for several deliveries in one statement, so one commit for all: the drain's lanes
 * begin their attempts together (lib/coalesce.ts). Those no longer pending are not in the result.
 */
export async function beginAttempts(db: Queryable, deliveryIds: string[]): Promise<Map<string, { delivery: Delivery; n: number }>> {
  // next_attempt_at stays until the outcome sets it (the claim's lease covers the attempt): an update
  // of no indexed column can be a HOT update.
  const { rows } = await db.query<Row>({
    name: 'switchyard-begin-attempts',
    text: `WITH d AS (
       UPDATE webhook_deliveries SET attempts = attempts + 1 WHERE id = ANY($1::uuid[]) AND status = 'pending' RETURNING ${DELIVERY_COLUMNS}
     ), a AS (
       INSERT INTO webhook_attempts (delivery_id, n, started_at) SELECT id, attempts, now() FROM d
     )
     SELECT * FROM d`,
    values: [deliveryIds],
  });
  return new Map(rows.map((r) => [r.id, { delivery: fromRow(r), n: r.attempts }]));
}

export interface AttemptOutcome {
  status: number | null;
  error: string | null;
  durationMs: number;
  responseExcerpt: string | null;
  delivered: boolean;
  nextAttemptAt: Date | null;
}

/**
 * Records the attempt's outcome. An attempt that ends after its delivery was given up on (it ran
 * past the retry window) leaves the delivery's reason alone, unless it did deliver.
 */
export async function finishAttempt(db: Queryable, deliveryId: string, n: number, o: AttemptOutcome): Promise<void> {
  // One statement, so one commit: the attempt's row and its delivery's (whose claim, if any, ends).
  await db.query(
    `WITH a AS (
       UPDATE webhook_attempts SET status = $2, error = $3, duration_ms = $7, response_excerpt = $8 WHERE delivery_id = $1 AND n = $6
     )
     UPDATE webhook_deliveries
        SET last_status = $2, last_error = $3, next_attempt_at = $4, claimed_until = NULL,
            status = CASE WHEN $5 THEN 'delivered' ELSE status END,
            delivered_at = CASE WHEN $5 THEN now() ELSE delivered_at END
      WHERE id = $1 AND (status = 'pending' OR $5)`,
    [deliveryId, o.status, o.error, o.nextAttemptAt, o.delivered, n, o.durationMs, o.responseExcerpt],
  );
}

export interface FinishedAttempt extends AttemptOutcome {
  deliveryId: string;
  n: number;
}

/** finishAttempt for several attempts (of distinct deliveries) in one statement, so one commit for all: the drain's lanes record their outcomes together. */
export async function finishAttempts(db: Queryable, attempts: FinishedAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  const column = <T>(f: (a: FinishedAttempt) => T) => attempts.map(f);
  await db.query({
    name: 'switchyard-finish-attempts',
    text: `WITH o AS (
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::int[], $4::text[], $5::int[], $6::text[], $7::bool[], $8::timestamptz[])
                  AS o(delivery_id, n, status, error, duration_ms, excerpt, delivered, next_attempt_at)
     ), a AS (
       UPDATE webhook_attempts w SET status = o.status, error = o.error, duration_ms = o.duration_ms, response_excerpt = o.excerpt
         FROM o WHERE w.delivery_id = o.delivery_id AND w.n = o.n
     )
     UPDATE webhook_deliveries d
        SET last_status = o.status, last_error = o.error, next_attempt_at = o.next_attempt_at, claimed_until = NULL,
            status = CASE WHEN o.delivered THEN 'delivered' ELSE d.status END,
            delivered_at = CASE WHEN o.delivered THEN now() ELSE d.delivered_at END,
            workflow_started_at = COALESCE(d.workflow_started_at, now())
       FROM o
      WHERE d.id = o.delivery_id AND (d.status = 'pending' OR o.delivered)`,
    values: [
      column((a) => a.deliveryId),
      column((a) => a.n),
      column((a) => a.status),
      column((a) => a.error),
      column((a) => a.durationMs),
      column((a) => a.responseExcerpt),
      column((a) => a.delivered),
      column((a) => a.nextAttemptAt),
    ],
  });
}

/** What a dead delivery raises its alert with. */
export interface DeadDelivery {
  id: string;
  environmentId: number;
  type: EventType;
  url: string;
  attempts: number;
  reason: string;
  integration: string | null;
  connectionId: string | null;
}

/**
 * The one place a delivery is given up on: after a final refusal (4xx other than 408/429, 3xx) or
 * when the retry window is exhausted. Returns the dead delivery, null when it was no longer pending
 * (already delivered or dead). The caller (activities/webhooks.ts) logs it and raises the
 * `webhook_dead` alert of its URL (features/alerts), which the URL's next delivered webhook resolves.
 */
export async function markDeliveryDead(db: Queryable, deliveryId: string, reason: string): Promise<DeadDelivery | null> {
  const { rows } = await db.query<{
    environment_id: number;
    type: EventType;
    url: string;
    attempts: number;
    integration: string | null;
    connection_id: string | null;
  }>(
    `UPDATE webhook_deliveries
        SET status = 'dead', next_attempt_at = NULL, claimed_until = NULL,
            last_error = CASE WHEN last_error IS NULL OR strpos($2, last_error) > 0 THEN $2 ELSE $2 || ' (last error: ' || last_error || ')' END
      WHERE id = $1 AND status = 'pending' RETURNING environment_id, type, url, attempts, integration, connection_id`,
    [deliveryId, reason],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: deliveryId,
    environmentId: row.environment_id,
    type: row.type,
    url: row.url,
    attempts: row.attempts,
    reason,
    integration: row.integration,
    connectionId: row.connection_id,
  };
}

export async function markWorkflowStarted(db: Queryable, deliveryId: string): Promise<void> {
  await db.query('UPDATE webhook_deliveries SET workflow_started_at = now() WHERE id = $1 AND workflow_started_at IS NULL', [deliveryId]);
}

/** For deliveries sent by their endpoint's workflow: the workflow was started or signalled after they were committed. */
export async function markEndpointWoken(db: Queryable, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db.query('UPDATE webhook_deliveries SET workflow_started_at = now() WHERE id = ANY($1::uuid[]) AND workflow_started_at IS NULL', [deliveryIds]);
}

/**
 * Pending deliveries whose workflow start (or, for those sent by their endpoint's workflow, its
 * wake-up or a first outcome) was never confirmed, older than `minAgeMs` and held by no drain.
 */
export async function unstartedDeliveries(db: Queryable, minAgeMs: number, limit: number): Promise<Delivery[]> {
  const { rows } = await db.query<Row>(
    `SELECT * FROM webhook_deliveries
      WHERE status = 'pending' AND workflow_started_at IS NULL AND created_at < now() - make_interval(secs => $1)
        AND (claimed_until IS NULL OR claimed_until <= now())
      ORDER BY created_at LIMIT $2`,
    [minAgeMs / 1000, limit],
  );
  return rows.map(fromRow);
}

/**
 * The messages that failed since `since`: for each original delivery created since then whose
 * delivery and replays are all dead (none delivered, none still pending), its newest dead copy.
 */
export async function failedDeliveriesSince(db: Queryable, environmentId: number, since: Date, limit: number): Promise<Delivery[]> {
  const { rows } = await db.query<Row>(
    `SELECT latest.* FROM (
        SELECT DISTINCT ON (COALESCE(d.replay_of, d.id)) d.*
          FROM webhook_deliveries d
         WHERE d.environment_id = $1
         ORDER BY COALESCE(d.replay_of, d.id), d.seq DESC
      ) latest
      JOIN webhook_deliveries orig ON orig.id = COALESCE(latest.replay_of, latest.id)
     WHERE latest.status = 'dead'
       AND orig.created_at >= $2
       AND NOT EXISTS (
         SELECT 1 FROM webhook_deliveries o
          WHERE COALESCE(o.replay_of, o.id) = orig.id AND o.status <> 'dead'
       )
     ORDER BY latest.seq
     LIMIT $3`,
    [environmentId, since, limit],
  );
  return rows.map(fromRow);
}

/** The original deliveries of an event (not its replays). */
export async function deliveriesOfEvent(db: Queryable, eventId: number): Promise<Delivery[]> {
  const { rows } = await db.query<Row>('SELECT * FROM webhook_deliveries WHERE event_id = $1 AND replay_of IS NULL ORDER BY seq', [eventId]);
  return rows.map(fromRow);
}
