/**
 * @module features/logs/script-lines — the lines a function writes (`nango.log`, `logger`, console)
 * into its runs, sync and action alike, newest run first and in order within a run: what
 * `GET /logs/scripts` lists.
 */
import type { Queryable } from '../../lib/db/pool.js';
import { pageQuery, Where } from '../../lib/db/where.js';

export interface ScriptLine {
  runId: string;
  kind: 'sync' | 'action';
  script: string;
  integration: string;
  connectionId: string;
  at: string;
  level: string;
  message: string;
  fields?: unknown;
}

export interface ScriptLineFilters {
  runId?: string;
  kind?: 'sync' | 'action';
  integration?: string;
  connectionId?: string;
  script?: string;
}

const LINES = `
  SELECT * FROM (
    SELECT 'sync' AS kind, r.id AS run_id, r.sync_name AS script, i.unique_key AS integration, c.connection_id, c.environment_id,
           r.started_at, l.n, l.line
      FROM sync_runs r JOIN connections c ON c.id = r.connection_pk JOIN integrations i ON i.id = c.integration_id
      CROSS JOIN LATERAL jsonb_array_elements(r.logs) WITH ORDINALITY AS l(line, n)
    UNION ALL
    SELECT 'action', a.id::text, a.action_name, a.integration, a.connection_id, a.environment_id, a.created_at, l.n, l.line
      FROM action_runs a CROSS JOIN LATERAL jsonb_array_elements(a.logs) WITH ORDINALITY AS l(line, n)
  ) lines`;

interface Row {
  kind: 'sync' | 'action';
  run_id: string;
  script: string;
  integration: string;
  connection_id: string;
  line: { at?: string; level?: string; message?: string; fields?: unknown };
}

export async function listScriptLines(db: Queryable, environmentId: number, f: ScriptLineFilters, limit: number): Promise<ScriptLine[]> {
  const where = new Where('environment_id = ?', environmentId);
  if (f.runId) where.and('run_id = ?', f.runId);
  if (f.kind) where.and('kind = ?', f.kind);
  if (f.integration) where.and('integration = ?', f.integration);
  if (f.connectionId) where.and('connection_id = ?', f.connectionId);
  if (f.script) where.and('script = ?', f.script);
  const { rows } = await db.query<Row>(...pageQuery(LINES, where, { orderBy: 'started_at DESC, run_id, n', limit }));
  return rows.map((r) => ({
    runId: r.run_id,
    kind: r.kind,
    script: r.script,
    integration: r.integration,
    connectionId: r.connection_id,
    at: String(r.line.at ?? ''),
    level: String(r.line.level ?? 'info'),
    message: String(r.line.message ?? ''),
    ...(r.line.fields !== undefined && { fields: r.line.fields }),
  }));
}
