/**
 * @module features/dashboard/activity — what the dashboard's activity chart draws: for each of the
 * last N days (UTC), how many sync runs, action runs and webhook deliveries of one environment (or
 * one integration) succeeded and failed. One query, grouped by day.
 */
import type { Queryable } from '../../lib/db/pool.js';

export interface DayActivity {
  /** YYYY-MM-DD (UTC). */
  day: string;
  success: number;
  error: number;
}

// Finished runs only: a running sync or a pending delivery is neither a success nor a failure yet.
const ACTIVITY = `
  WITH days AS (
    SELECT (generate_series(0, $2::int - 1) * interval '1 day' + (date_trunc('day', now() AT TIME ZONE 'UTC') - ($2::int - 1) * interval '1 day'))::date AS day
  ), finished AS (
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
