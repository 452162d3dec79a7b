/**
 * @module features/dashboard/activity — what the dashboard's charts draw, for each of the last N days
 * (UTC): how many sync runs, action runs and webhook deliveries of one environment (or one
 * integration) succeeded and failed; per sync, the records its runs added, updated and deleted; and
 * how long webhooks took from their event to their receipt. One query each, grouped by day.
 */
import type { Queryable } from '../../lib/db/pool.js';

export interface DayActivity {
  /** YYYY-MM-DD (UTC). */
  day: string;
  success: number;
  error: number;
}

/** The last $2 days (UTC), oldest first. */
const DAYS = `SELECT (generate_series(0, $2::int - 1) * interval '1 day' + (date_trunc('day', now() AT TIME ZONE 'UTC') - ($2::int - 1) * interval '1 day'))::date AS day`;

// Finished runs only: a running sync or a pending delivery is neither a success nor a failure yet.
const ACTIVITY = `
  WITH days AS (${DAYS}), finished AS (
    SELECT (r.started_at AT TIME ZONE 'UTC')::date AS day, r.status = 'SUCCESS' AS ok
      FROM sync_runs r JOIN connections c ON c.id = r.connection_pk JOIN integrations i ON i.id = c.integration_id
     WHERE c.environment_id = $1 AND r.status IN ('SUCCESS', 'ERROR') AND ($3::text IS NULL OR i.unique_key = $3)
    UNION ALL
    SELECT (a.created_at AT TIME ZONE 'UTC')::date, a.status = 'success'
      FROM action_runs a
     WHERE a.environment_id = $1 AND a.status IN ('success', 'failed') AND ($3::text IS NULL OR a.integration = $3)
    UNION ALL
    SELECT (d.created_at AT TIME ZONE 'UTC')::date, d.status = 'delivered'
      FROM webhook_deliveries d
     WHERE d.environment_id = $1 AND d.status IN ('delivered', 'dead') AND ($3::text IS NULL OR d.integration = $3)
  )
  SELECT to_char(days.day, 'YYYY-MM-DD') AS day,
         count(f.ok) FILTER (WHERE f.ok)::int AS success,
         count(f.ok) FILTER (WHERE NOT f.ok)::int AS error
    FROM days LEFT JOIN finished f ON f.day = days.day
   GROUP BY days.day ORDER BY days.day`;

/** The last `days` days, oldest first, each with its successes and failures; `integration` narrows to one. */
export async function dailyActivity(db: Queryable, environmentId: number, days: number, integration?: string): Promise<DayActivity[]> {
  const { rows } = await db.query<DayActivity>(ACTIVITY, [environmentId, days, integration ?? null]);
  return rows;
}

export interface DayRecords {
  day: string;
  added: number;
  updated: number;
  deleted: number;
}

// The counts every run keeps per model (sync_runs.results), summed per sync name over its connections.
const SYNC_RECORDS = `
  WITH days AS (${DAYS}), changes AS (
    SELECT r.sync_name, (r.started_at AT TIME ZONE 'UTC')::date AS day,
           sum(COALESCE((m.value->>'added')::int, 0))::int AS added,
           sum(COALESCE((m.value->>'updated')::int, 0))::int AS updated,
           sum(COALESCE((m.value->>'deleted')::int, 0))::int AS deleted
      FROM sync_runs r JOIN connections c ON c.id = r.connection_pk JOIN integrations i ON i.id = c.integration_id
           CROSS JOIN LATERAL jsonb_each(r.results) m
     WHERE c.environment_id = $1 AND i.unique_key = $3 AND r.started_at >= (SELECT min(day) FROM days) AT TIME ZONE 'UTC'
     GROUP BY 1, 2
  )
  SELECT s.sync_name, to_char(days.day, 'YYYY-MM-DD') AS day,
         COALESCE(ch.added, 0) AS added, COALESCE(ch.updated, 0) AS updated, COALESCE(ch.deleted, 0) AS deleted
    FROM (SELECT DISTINCT sync_name FROM changes) s CROSS JOIN days
         LEFT JOIN changes ch ON ch.sync_name = s.sync_name AND ch.day = days.day
   ORDER BY s.sync_name, days.day`;

/** Per sync of the integration that ran in the last `days` days: its records added, updated and deleted per day, oldest first. */
export async function dailySyncRecords(db: Queryable, environmentId: number, days: number, integration: string): Promise<Map<string, DayRecords[]>> {
  const { rows } = await db.query<DayRecords & { sync_name: string }>(SYNC_RECORDS, [environmentId, days, integration]);
  const out = new Map<string, DayRecords[]>();
  for (const { sync_name, ...day } of rows) out.set(sync_name, [...(out.get(sync_name) ?? []), day]);
  return out;
}

export interface DayLatency {
  day: string;
  /** Delivered webhooks of that day's events. */
  delivered: number;
  /** Milliseconds from the event to its receipt (0 when none was delivered). */
  p50: number;
  p95: number;
}

// Original deliveries only: a replay's delay is the time someone took to replay it.
const LATENCY = `
  WITH days AS (${DAYS}), latencies AS (
    SELECT (e.created_at AT TIME ZONE 'UTC')::date AS day, EXTRACT(EPOCH FROM d.delivered_at - e.created_at) * 1000 AS ms
      FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE d.environment_id = $1 AND d.status = 'delivered' AND d.replay_of IS NULL
       AND e.created_at >= (SELECT min(day) FROM days) AT TIME ZONE 'UTC'
  )
  SELECT to_char(days.day, 'YYYY-MM-DD') AS day, count(l.ms)::int AS delivered,
         COALESCE(round(percentile_cont(0.5) WITHIN GROUP (ORDER BY l.ms)), 0)::int AS p50,
         COALESCE(round(percentile_cont(0.95) WITHIN GROUP (ORDER BY l.ms)), 0)::int AS p95
    FROM days LEFT JOIN latencies l ON l.day = days.day
   GROUP BY days.day ORDER BY days.day`;

/** The last `days` days, oldest first: the median and 95th percentile time from an event to the receipt of its webhook. */
export async function dailyWebhookLatency(db: Queryable, environmentId: number, days: number): Promise<DayLatency[]> {
  const { rows } = await db.query<DayLatency>(LATENCY, [environmentId, days]);
  return rows;
}
