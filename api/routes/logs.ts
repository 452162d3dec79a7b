/**
 * @module api/routes/logs — `GET /logs`: the request log of every call to a third party (proxy,
 * actions, syncs, checks, auth, webhooks) in the key's environment, newest first, filterable, with a
 * keyset cursor; `GET /logs/scripts`: the lines functions write into their runs; and the retention
 * job that prunes request-log entries older than SWITCHYARD_LOG_RETENTION_DAYS.
 */
import { z } from 'zod';
import { decodeCursor, listRequestLogs, pruneRequestLogs, type RequestLog, type RequestLogFilters, type RequestLogPage } from '../../features/logs/store.js';
import { listScriptLines } from '../../features/logs/script-lines.js';
import { ValidationFailed } from '../../lib/errors.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';

export const LOG_KINDS = ['proxy', 'action', 'sync', 'check', 'auth', 'webhook'] as const;
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/, 'must be an ISO 8601 date or date-time')
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date or date-time')
  .transform((v) => new Date(v));

const logsQuery = z
  .object({
    connection_id: z.string().min(1).max(255).optional(),
    integration: z.string().min(1).max(255).optional(),
    kind: z.enum(LOG_KINDS).optional(),
    status: z
      .union([
        z.enum(['error', 'success']),
        z
          .string()
          .regex(/^\d{3}$/, 'must be an HTTP status, `error` or `success`')
          .transform(Number),
      ])
      .optional(),
    after: isoDate.optional(),
    before: isoDate.optional(),
    run_id: z.string().min(1).max(255).optional(),
    agent_session_id: z.uuid().optional().describe('The calls of the actions an agent session ran (MCP)'),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: z.string().min(1).max(512).optional(),
  })
  .strict();

export const logEntry = z.object({
  id: z.number(),
  created_at: z.string(),
  kind: z.enum(LOG_KINDS),
  method: z.string(),
  url: z.string(),
  status: z.number().nullable(),
  duration_ms: z.number(),
  request_bytes: z.number().nullable(),
  response_bytes: z.number().nullable(),
  integration: z.string().nullable(),
  connection_id: z.string().nullable(),
  run_id: z.string().nullable(),
  error: z.string().nullable(),
});
const logsResponse = z.object({ data: z.array(logEntry), next_cursor: z.string().nullable() });

function present(log: RequestLog): z.infer<typeof logEntry> {
  return {
    id: log.id,
    created_at: log.createdAt.toISOString(),
    kind: log.kind,
    method: log.method,
    url: log.url,
    status: log.status,
    duration_ms: log.durationMs,
    request_bytes: log.requestBytes,
    response_bytes: log.responseBytes,
    integration: log.integration,
    connection_id: log.connectionId,
    run_id: log.runId,
    error: log.error,
  };
}

/** The request log as listRequestLogs reads it, this process's calls included as soon as they are made (not once their batch is due). */
export async function readRequestLogs(deps: Pick<AppDeps, 'db' | 'requestLogs'>, environmentId: number, filters: RequestLogFilters, page: RequestLogPage) {
  await deps.requestLogs.flush();
  return listRequestLogs(deps.db, environmentId, filters, page);
}

export const listLogs = defineRoute({
  method: 'get',
  path: '/logs',
  operationId: 'listLogs',
  summary: 'List the request log of calls to third parties, newest first (URLs redacted; headers and bodies are never logged)',
  tag: 'observability',
  auth: 'secret_key',
  scope: 'environment:logs:read',
  request: { query: logsQuery },
  responses: { 200: logsResponse },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  const env = c.get('environment');
  if (q.cursor !== undefined) {
    try {
      decodeCursor(q.cursor);
    } catch {
      throw new ValidationFailed('invalid_query_params', [{ code: 'invalid_cursor', message: 'the cursor is not valid', path: ['cursor'] }]);
    }
  }
  const { logs, nextCursor } = await readRequestLogs(
    deps,
    env.id,
    {
      connectionId: q.connection_id,
      integration: q.integration,
      kind: q.kind,
      status: q.status,
      after: q.after,
      before: q.before,
      runId: q.run_id,
      agentSessionId: q.agent_session_id,
    },
    { limit: q.limit, cursor: q.cursor },
  );
  return { data: logs.map(present), next_cursor: nextCursor };
});

const scriptLogsQuery = z
  .object({
    run_id: z.string().min(1).max(255).optional().describe('One run: a sync run id (as GET /logs shows it) or an action run id'),
    kind: z.enum(['sync', 'action']).optional(),
    integration: z.string().min(1).max(255).optional(),
    connection_id: z.string().min(1).max(255).optional(),
    script: z.string().min(1).max(255).optional().describe('The sync or action name'),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();

const scriptLine = z.object({
  run_id: z.string(),
  kind: z.enum(['sync', 'action']),
  script: z.string(),
  integration: z.string(),
  connection_id: z.string(),
  at: z.string(),
  level: z.string(),
  message: z.string(),
  fields: z.unknown().optional(),
});

export const listScriptLogs = defineRoute({
  method: 'get',
  path: '/logs/scripts',
  operationId: 'listScriptLogs',
  summary: "The lines functions wrote into their runs (nango.log, logger, console): newest run first, each run's lines in order",
  tag: 'observability',
  auth: 'secret_key',
  scope: 'environment:logs:read',
  request: { query: scriptLogsQuery },
  responses: { 200: z.object({ data: z.array(scriptLine) }) },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  const lines = await listScriptLines(
    deps.db,
    c.get('environment').id,
    { runId: q.run_id, kind: q.kind, integration: q.integration, connectionId: q.connection_id, script: q.script },
    q.limit,
  );
  return {
    data: lines.map((l) => ({
      run_id: l.runId,
      kind: l.kind,
      script: l.script,
      integration: l.integration,
      connection_id: l.connectionId,
      at: l.at,
      level: l.level,
      message: l.message,
      ...(l.fields !== undefined && { fields: l.fields }),
    })),
  };
});

/**
 * Prunes request-log entries older than SWITCHYARD_LOG_RETENTION_DAYS now and then every hour.
 * The timer does not keep the process alive. Returns the function that stops it.
 */
export function startLogRetention(deps: Pick<AppDeps, 'db' | 'config' | 'clock' | 'log'>): () => void {
  let running = false;
  let stopped = false;
  const run = async () => {
    if (running || stopped) return;
    running = true;
    try {
      const cutoff = new Date(deps.clock.now().getTime() - deps.config.SWITCHYARD_LOG_RETENTION_DAYS * DAY_MS);
      const deleted = await pruneRequestLogs(deps.db, cutoff);
      if (deleted > 0) deps.log.info({ deleted, before: cutoff.toISOString() }, 'request logs pruned');
    } catch (err) {
      if (!stopped) deps.log.warn({ err }, 'request log retention failed');
    } finally {
      running = false;
    }
  };
  const first = setTimeout(() => void run(), 0);
  first.unref();
  const timer = setInterval(() => void run(), RETENTION_INTERVAL_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(timer);
  };
}
