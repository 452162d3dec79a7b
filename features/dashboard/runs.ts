/**
 * @module features/dashboard/runs — the runs the dashboard's Logs page lists: sync runs (`sync_runs`,
 * id `<workflowId>/<temporalRunId>`) and action runs (`action_runs`, workflow `action:<env>:<id>`)
 * and webhook deliveries (`webhook_deliveries`, kind `webhook`, finished once delivered or dead) of
 * one environment, newest first.
 */
import type { Queryable } from '../../lib/db/pool.js';
import { pageQuery, Where } from '../../lib/db/where.js';

export type RunKind = 'sync' | 'action';
/** What the list shows: runs, and the webhook deliveries the activity chart counts with them. */
export type ListedKind = RunKind | 'webhook';

export interface RunSummary {
  kind: ListedKind;
  id: string;
  name: string;
  /** Null only for a webhook delivery not about one connection. */
  integration: string | null;
  connectionId: string | null;
  status: string;
  mode: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  result: unknown;
  error: unknown;
  logs: unknown;
}

export interface RunFilters {
  kind?: ListedKind;
  status?: 'running' | 'success' | 'error';
  integration?: string;
  connectionId?: string;
  id?: string;
  /** YYYY-MM-DD: started that day (UTC). */
  day?: string;
  /** Started at or after this time (a live tail; it drops the ids it has shown). */
  startedSince?: Date;
}

// Both kinds in one shape; statuses normalised to running / success / error.
const RUNS = `
  SELECT 'sync' AS kind, r.id, r.sync_name AS name, i.unique_key AS integration, c.connection_id, c.environment_id,
         CASE r.status WHEN 'SUCCESS' THEN 'success' WHEN 'ERROR' THEN 'error' ELSE 'running' END AS status,
         r.mode, r.started_at, r.finished_at, r.results AS result, r.error, NULL::jsonb AS logs
    FROM sync_runs r JOIN connections c ON c.id = r.connection_pk JOIN integrations i ON i.id = c.integration_id
  UNION ALL
  SELECT 'action', a.id::text, a.action_name, a.integration, a.connection_id, a.environment_id,
         CASE a.status WHEN 'success' THEN 'success' WHEN 'failed' THEN 'error' ELSE 'running' END,
         CASE WHEN a.is_async THEN 'async' ELSE 'sync' END, a.created_at, a.finished_at, a.output, a.error, a.logs
    FROM action_runs a
  UNION ALL
  SELECT 'webhook', d.id::text, d.type, d.integration, d.connection_id, d.environment_id,
         CASE d.status WHEN 'delivered' THEN 'success' WHEN 'dead' THEN 'error' ELSE 'running' END,
         NULL, d.created_at, d.delivered_at, NULL::jsonb, to_jsonb(d.last_error), NULL::jsonb
    FROM webhook_deliveries d`;

interface Row {
  kind: ListedKind;
  id: string;
  name: string;
  integration: string | null;
  connection_id: string | null;
  status: string;
  mode: string | null;
  started_at: Date;
  finished_at: Date | null;
  result: unknown;
  error: unknown;
  logs: unknown;
}

export async function listRuns(db: Queryable, environmentId: number, f: RunFilters, page: { limit: number; offset: number }): Promise<RunSummary[]> {
  const where = new Where('environment_id = ?', environmentId);
  if (f.kind) where.and('kind = ?', f.kind);
  if (f.status) where.and('status = ?', f.status);
  if (f.integration) where.and('integration = ?', f.integration);
  if (f.connectionId) where.and('connection_id = ?', f.connectionId);
  if (f.id) where.and('id = ?', f.id);
  if (f.startedSince) where.and('started_at >= ?', f.startedSince);
  if (f.day) where.and("(started_at AT TIME ZONE 'UTC')::date = ?::date", f.day);
  const { rows } = await db.query<Row>(...pageQuery(`SELECT * FROM (${RUNS}) runs`, where, { orderBy: 'started_at DESC, id DESC', ...page }));
  return rows.map((r) => ({
    kind: r.kind,
    id: r.id,
    name: r.name,
    integration: r.integration,
    connectionId: r.connection_id,
    status: r.status,
    mode: r.mode,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    result: r.result,
    error: r.error,
    logs: r.logs,
  }));
}

export async function getRun(db: Queryable, environmentId: number, kind: RunKind, id: string): Promise<RunSummary | null> {
  const run = (await listRuns(db, environmentId, { kind, id }, { limit: 1, offset: 0 }))[0] ?? null;
  if (!run || kind !== 'sync') return run;
  // The list leaves a sync run's lines out (up to 2,000 a run); the run's own page shows them.
  const { rows } = await db.query<{ logs: unknown }>('SELECT logs FROM sync_runs WHERE id = $1', [id]);
  return { ...run, logs: rows[0]?.logs ?? null };
}
