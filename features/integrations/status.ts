/**
 * @module features/integrations/status — the queries behind one integration's health at a glance
 * (`GET /integrations/:uniqueKey/status`): its connections by health, the syncs failing now with
 * their streak, the latest errors on its connections, and how many alerts are open.
 *
 * A connection is failing when its last check failed or it carries errors.
 */
import type { Queryable } from '../../lib/db/pool.js';
import type { ConnectionError } from '../connections/store.js';

const LIST_LIMIT = 100;
const LAST_ERRORS = 20;

const FAILING = `(c.status = 'failing' OR jsonb_array_length(c.errors) > 0)`;

export interface IntegrationHealthRows {
  counts: { total: number; failing: number; ok: number };
  failingConnections: { connection_id: string; status: string; errors: ConnectionError[]; last_check_at: Date | null }[];
  failingSyncs: {
    connection_id: string;
    sync_name: string;
    last_error: { type: string; description: string } | null;
    last_finished_at: Date | null;
    since: Date | null;
    failed_runs: number;
  }[];
  lastErrors: { connection_id: string; error: ConnectionError }[];
  openAlerts: number;
}

export async function integrationHealthRows(
  db: Queryable,
  environmentId: number,
  integration: { id: number; uniqueKey: string },
): Promise<IntegrationHealthRows> {
  const counts = (
    await db.query<IntegrationHealthRows['counts']>(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE ${FAILING})::int AS failing,
              count(*) FILTER (WHERE c.status = 'ok' AND jsonb_array_length(c.errors) = 0)::int AS ok
         FROM connections c WHERE c.integration_id = $1`,
      [integration.id],
    )
  ).rows[0]!;

  const failingConnections = await db.query<IntegrationHealthRows['failingConnections'][number]>(
    `SELECT c.connection_id, c.status, c.errors, c.last_check_at FROM connections c
      WHERE c.integration_id = $1 AND ${FAILING} ORDER BY c.connection_id LIMIT ${LIST_LIMIT}`,
    [integration.id],
  );

  // A failing sync's streak: its ERROR runs since its last SUCCESS.
  const failingSyncs = await db.query<IntegrationHealthRows['failingSyncs'][number]>(
    `SELECT c.connection_id, s.sync_name, s.last_error, s.last_finished_at, streak.since, streak.failed_runs
       FROM sync_states s
       JOIN connections c ON c.id = s.connection_pk
       LEFT JOIN LATERAL (
         SELECT min(COALESCE(r.finished_at, r.started_at)) AS since, count(*)::int AS failed_runs
           FROM sync_runs r
          WHERE r.connection_pk = s.connection_pk AND r.sync_name = s.sync_name AND r.status = 'ERROR'
            AND r.started_at > COALESCE((SELECT max(ok.started_at) FROM sync_runs ok
                                          WHERE ok.connection_pk = s.connection_pk AND ok.sync_name = s.sync_name AND ok.status = 'SUCCESS'),
                                        '-infinity'::timestamptz)
       ) streak ON true
      WHERE c.integration_id = $1 AND s.last_status = 'ERROR'
      ORDER BY s.last_finished_at DESC NULLS LAST LIMIT ${LIST_LIMIT}`,
    [integration.id],
  );

  const lastErrors = await db.query<IntegrationHealthRows['lastErrors'][number]>(
    `SELECT c.connection_id, e AS error FROM connections c, jsonb_array_elements(c.errors) e
      WHERE c.integration_id = $1 ORDER BY e->>'at' DESC NULLS LAST LIMIT ${LAST_ERRORS}`,
    [integration.id],
  );

  const openAlerts = (
    await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE environment_id = $1 AND integration = $2 AND status = 'open'`, [
      environmentId,
      integration.uniqueKey,
    ])
  ).rows[0]!.n;

  return { counts, failingConnections: failingConnections.rows, failingSyncs: failingSyncs.rows, lastErrors: lastErrors.rows, openAlerts };
}
