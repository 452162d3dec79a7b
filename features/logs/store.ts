/**
 * @module features/logs/store — the log of every call to a third party (see lib/http), listed newest
 * first with a keyset cursor, and pruned by age.
 */
import { BadRequest } from '../../lib/errors.js';
import type { RequestContext, RequestLogEntry } from '../../lib/http/provider-client.js';
import type { Queryable } from '../../lib/db/pool.js';
import { pageQuery, Where } from '../../lib/db/where.js';

export interface RequestLog {
  id: number;
  environmentId: number;
  integration: string | null;
  connectionId: string | null;
  runId: string | null;
  kind: RequestContext['kind'];
  method: string;
  url: string;
  status: number | null;
  durationMs: number;
  requestBytes: number | null;
  responseBytes: number | null;
  error: string | null;
  createdAt: Date;
}

export interface RequestLogFilters {
  connectionId?: string;
  integration?: string;
  kind?: RequestContext['kind'];
  /** A status, or 'error' (no response, status ≥ 400, or an error) / 'success' (status < 400 and no error). */
  status?: number | 'error' | 'success';
  after?: Date;
  before?: Date;
  runId?: string;
  /** The calls of the action runs an agent session started (MCP). */
  agentSessionId?: string;
  /** Entries stored after this one (ids grow with each insert): what a live tail has not shown yet. */
  afterId?: number;
}

export interface RequestLogPage {
  limit: number;
  cursor?: string;
}

interface Row {
  id: number;
  environment_id: number;
  integration: string | null;
  connection_id: string | null;
  run_id: string | null;
  kind: RequestContext['kind'];
  method: string;
  url: string;
  status: number | null;
  duration_ms: number;
  request_bytes: number | null;
  response_bytes: number | null;
  error: string | null;
  created_at: Date;
  created_at_exact: string;
}

// created_at is carried in the cursor as text with microseconds: a JS Date keeps only milliseconds
// and would skip or repeat rows that share one.
const COLUMNS = `id, environment_id, integration, connection_id, run_id, kind, method, url, status, duration_ms,
  request_bytes, response_bytes, error, created_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_exact`;

const MAX_LIMIT = 1000;
const PRUNE_BATCH = 10_000;

function toLog(r: Row): RequestLog {
  return {
    id: r.id,
    environmentId: r.environment_id,
    integration: r.integration,
    connectionId: r.connection_id,
    runId: r.run_id,
    kind: r.kind,
    method: r.method,
    url: r.url,
    status: r.status,
    durationMs: r.duration_ms,
    requestBytes: r.request_bytes,
    responseBytes: r.response_bytes,
    error: r.error,
    createdAt: r.created_at,
  };
}

export function encodeCursor(createdAtExact: string, id: number): string {
  return Buffer.from(`${createdAtExact}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: number } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || !/^\d+$/.test(id) || Number.isNaN(Date.parse(createdAt))) throw new BadRequest('invalid_cursor', 'the cursor is not valid');
  return { createdAt, id: Number(id) };
}

export async function insertRequestLog(db: Queryable, entry: RequestLogEntry): Promise<void> {
  await insertRequestLogs(db, [entry]);
}

// One statement text whatever the batch size, prepared once per connection, and the batch as one JSON
// parameter: pg escapes 13 array parameters element by element, which cost more than the rest of a
// proxied call's logging; JSON.stringify is native. A lone surrogate becomes U+FFFD, as pg sends it in
// a text parameter (PostgreSQL refuses it in JSON); the URL (percent-encoded) and method (an HTTP
// token) have none.
const INSERT_LOGS = {
  name: 'switchyard-insert-request-logs-json',
  text: `INSERT INTO request_logs (environment_id, integration, connection_id, run_id, kind, method, url, status, duration_ms,
       request_bytes, response_bytes, error, created_at)
     SELECT e, i, c, r, k, m, u, s, d, q, p, x, t
     FROM json_to_recordset($1::json) AS l(e int, i text, c text, r text, k text, m text, u text, s int, d int, q bigint, p bigint, x text, t timestamptz)`,
};

const LONE_SURROGATE = /\p{Surrogate}/gu;
const wellFormed = (v: string | undefined): string | null => (v === undefined ? null : v.replace(LONE_SURROGATE, '\uFFFD'));

/** Several entries in one INSERT, in order. */
export async function insertRequestLogs(db: Queryable, entries: RequestLogEntry[]): Promise<void> {
  const rows = entries.map((entry) => ({
    e: entry.environmentId,
    i: wellFormed(entry.integration),
    c: wellFormed(entry.connectionId),
    r: wellFormed(entry.runId),
    k: entry.kind,
    m: entry.method,
    u: entry.url,
    s: entry.status,
    d: Math.round(entry.durationMs),
    q: entry.requestBytes,
    p: entry.responseBytes,
    x: wellFormed(entry.error),
    t: entry.createdAt.toISOString(),
  }));
  await db.query({ ...INSERT_LOGS, values: [JSON.stringify(rows)] });
}

export async function listRequestLogs(
  db: Queryable,
  environmentId: number,
  filters: RequestLogFilters,
  page: RequestLogPage,
): Promise<{ logs: RequestLog[]; nextCursor: string | null }> {
  const where = new Where('environment_id = ?', environmentId);
  if (filters.connectionId !== undefined) where.and('connection_id = ?', filters.connectionId);
  if (filters.integration !== undefined) where.and('integration = ?', filters.integration);
  if (filters.kind !== undefined) where.and('kind = ?', filters.kind);
  if (filters.runId !== undefined) where.and('run_id = ?', filters.runId);
  if (filters.agentSessionId !== undefined) {
    where.and('run_id IN (SELECT id::text FROM action_runs WHERE agent_session_id = ?::uuid AND environment_id = ?)', filters.agentSessionId, environmentId);
  }
  if (filters.after !== undefined) where.and('created_at > ?', filters.after);
  if (filters.before !== undefined) where.and('created_at < ?', filters.before);
  if (filters.afterId !== undefined) where.and('id > ?', filters.afterId);
  if (filters.status === 'error') where.and('(status IS NULL OR status >= 400 OR error IS NOT NULL)');
  else if (filters.status === 'success') where.and('(status < 400 AND error IS NULL)');
  else if (filters.status !== undefined) where.and('status = ?', filters.status);
  if (page.cursor) {
    const c = decodeCursor(page.cursor);
    where.and('(created_at, id) < (?::timestamptz, ?)', c.createdAt, c.id);
  }
  const limit = Math.min(Math.max(Math.trunc(page.limit) || 1, 1), MAX_LIMIT);
  const { rows } = await db.query<Row>(...pageQuery(`SELECT ${COLUMNS} FROM request_logs`, where, { orderBy: 'created_at DESC, id DESC', limit: limit + 1 }));
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { logs: pageRows.map(toLog), nextCursor: more && last ? encodeCursor(last.created_at_exact, last.id) : null };
}

/** The id of the environment's newest entry (0 when none): where a live tail starts. */
export async function newestRequestLogId(db: Queryable, environmentId: number): Promise<number> {
  const { rows } = await db.query<{ id: string | null }>('SELECT max(id) AS id FROM request_logs WHERE environment_id = $1', [environmentId]);
  return Number(rows[0]?.id ?? 0);
}

/** Deletes entries older than `olderThan`, in batches so a large backlog does not hold one long transaction. */
export async function pruneRequestLogs(db: Queryable, olderThan: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await db.query(`DELETE FROM request_logs WHERE id IN (SELECT id FROM request_logs WHERE created_at < $1 LIMIT ${PRUNE_BATCH})`, [
      olderThan,
    ]);
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < PRUNE_BATCH) return total;
  }
}
