/**
 * @module api/dashboard/logs — request logs (the calls made to third parties, as GET /logs lists
 * them) and runs (sync and action runs); a run shows its HTTP calls in the order they were made
 * and links to its workflow in the Temporal UI.
 */
import type { Hono } from 'hono';
import { listIntegrations } from '../../features/integrations/store.js';
import { decodeCursor, listRequestLogs, newestRequestLogId, type RequestLog, type RequestLogFilters } from '../../features/logs/store.js';
import { streamSSE } from 'hono/streaming';
import { BadRequest, NotFound } from '../../lib/errors.js';
import type { AppDeps } from '../context.js';
import { LOG_KINDS, readRequestLogs } from '../routes/logs.js';
import { noticeFrom, type DashContext, type DashEnv } from './context.js';
import { Badge, Empty, Json, Layout, renderPage, statusTone, When, withQuery, type Notice, type PageContext } from './layout.js';
import { DataTable, FilterForm, IntegrationFilter, Pager, SelectFilter, TextFilter } from './components.js';
import { temporalRunUrl } from './runs.js';
import { getRun, listRuns, type RunFilters, type RunKind, type RunSummary } from '../../features/dashboard/runs.js';
import { sessionIsLive } from '../../features/dashboard/sessions.js';

const RUN_PAGE_SIZE = 50;
const LOG_PAGE_SIZE = 50;

export function runHref(ctx: PageContext, kind: RunKind, id: string): string {
  return withQuery(`${ctx.base}/runs/view`, { kind, id });
}

function connectionHref(ctx: PageContext, integration: string | null, connectionId: string | null): string {
  if (!integration || !connectionId) return `${ctx.base}/webhooks`;
  return `${ctx.base}/connections/${encodeURIComponent(integration)}/${encodeURIComponent(connectionId)}`;
}

/** Request-log ids of sync runs are `<workflowId>/<runId>`; of action runs a UUID. */
function runKindOf(runId: string): RunKind {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(runId) ? 'action' : 'sync';
}

/** One request log entry as a row of RequestLogTable (also what the live tail sends). */
function RequestLogRow({ ctx, l, n }: { ctx: PageContext; l: RequestLog; n?: number }) {
  return (
    <tr data-log-id={String(l.id)}>
      {n !== undefined && <td>{n}</td>}
      <td>
        <When at={l.createdAt} />
      </td>
      <td>{l.kind}</td>
      <td class="url">
        <code class="method">{l.method}</code> <span class="break">{l.url}</span>
        {l.error && <div class="error-text">{l.error}</div>}
      </td>
      <td>
        <Badge tone={l.error || l.status === null ? 'error' : statusTone(l.status)}>{l.status ?? 'no answer'}</Badge>
      </td>
      <td>{l.durationMs} ms</td>
      <td>
        {l.connectionId && l.integration ? <a href={connectionHref(ctx, l.integration, l.connectionId)}>{l.connectionId}</a> : <span class="muted">—</span>}
      </td>
      {n === undefined && (
        <td>
          {l.runId ? (
            <a href={runHref(ctx, runKindOf(l.runId), l.runId)}>
              view<span class="sr-only"> run {l.runId}</span>
            </a>
          ) : (
            <span class="muted">—</span>
          )}
        </td>
      )}
    </tr>
  );
}

/** `live`: the table is drawn even when empty, for the live tail to fill. */
export function RequestLogTable(props: { ctx: PageContext; logs: RequestLog[]; caption: string; numbered?: boolean; live?: boolean }) {
  const { ctx, logs, caption, numbered } = props;
  if (logs.length === 0 && !props.live) return <Empty>No requests.</Empty>;
  return (
    <>
      {logs.length === 0 && (
        <p class="empty" data-empty>
          No requests yet.
        </p>
      )}
      <DataTable
        caption={`${caption}`}
        class="logs"
        columns={[numbered && '#', 'Time', 'Kind', 'Request', 'Status', 'Duration', 'Connection', !numbered && 'Run']}
      >
        {logs.map((l, n) => (
          <RequestLogRow ctx={ctx} l={l} n={numbered ? n + 1 : undefined} />
        ))}
      </DataTable>
    </>
  );
}

/** A run as an item of the Logs page's live list of runs. */
function LiveRunItem({ ctx, r }: { ctx: PageContext; r: RunSummary }) {
  return (
    <li data-run-id={r.id}>
      <When at={r.startedAt} /> {r.kind}{' '}
      {r.kind === 'webhook' ? <a href={`${ctx.base}/webhooks`}>{r.name}</a> : <a href={runHref(ctx, r.kind, r.id)}>{r.name}</a>}{' '}
      {r.integration && r.connectionId ? `${r.integration} / ${r.connectionId} ` : ''}
      <Badge tone={statusTone(r.status)}>{r.status}</Badge>
    </li>
  );
}

/** The Logs page's filters, as its query string has them. */
function logQuery(c: DashContext) {
  return {
    kind: c.req.query('kind') ?? '',
    outcome: c.req.query('outcome') ?? '',
    code: c.req.query('code') ?? '',
    integration: c.req.query('integration') ?? '',
    connection_id: c.req.query('connection_id')?.trim() ?? '',
    run_id: c.req.query('run_id')?.trim() ?? '',
    cursor: c.req.query('cursor') ?? '',
  };
}

function logFilters(q: ReturnType<typeof logQuery>): { filters: RequestLogFilters; problems: string[] } {
  const problems: string[] = [];
  const filters: RequestLogFilters = {};
  if (q.kind) {
    if ((LOG_KINDS as readonly string[]).includes(q.kind)) filters.kind = q.kind as RequestLogFilters['kind'];
    else problems.push(`Kind: one of ${LOG_KINDS.join(', ')}`);
  }
  if (q.code) {
    if (/^\d{3}$/.test(q.code)) filters.status = Number(q.code);
    else problems.push('HTTP status: three digits');
  } else if (q.outcome === 'error' || q.outcome === 'success') filters.status = q.outcome;
  if (q.integration) filters.integration = q.integration;
  if (q.connection_id) filters.connectionId = q.connection_id;
  if (q.run_id) filters.runId = q.run_id;
  return { filters, problems };
}

const TAIL_POLL_MS = 1000;
/** A tail sends at most this many entries per poll; more than that and the page is better reloaded. */
const TAIL_BATCH = 200;
/** Live tails one session may hold open at once (a few tabs); one more is refused with 429. */
export const TAILS_PER_SESSION = 4;

function TemporalLink({ href }: { href: string | null }) {
  if (!href) return <span class="muted">—</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      Temporal UI<span class="sr-only"> (opens in a new tab)</span>
    </a>
  );
}

function duration(run: RunSummary): string {
  if (!run.finishedAt) return '—';
  const ms = run.finishedAt.getTime() - run.startedAt.getTime();
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function logPages(deps: AppDeps, app: Hono<DashEnv>): void {
  /** Open live tails by session (the id's hash), in this process. */
  const openTails = new Map<string, number>();
  app.get('/logs', async (c) => {
    const ctx = c.get('page');
    const q = logQuery(c);
    const { filters, problems } = logFilters(q);
    let cursor: string | undefined;
    if (q.cursor) {
      try {
        decodeCursor(q.cursor);
        cursor = q.cursor;
      } catch {
        problems.push('The page cursor is not valid; showing the newest entries.');
      }
    }
    // The newest page tails: the stream starts after the newest entry as of now (rows it then
    // repeats are dropped by the page), and with the runs started from now.
    const live = !cursor && problems.length === 0;
    const tail = live
      ? withQuery(`${ctx.base}/logs/tail`, {
          ...q,
          cursor: undefined,
          after: await newestRequestLogId(deps.db, ctx.env.id),
          since: new Date().toISOString(),
        })
      : undefined;
    const { logs, nextCursor } = problems.length
      ? { logs: [], nextCursor: null }
      : await readRequestLogs(deps, ctx.env.id, filters, { limit: LOG_PAGE_SIZE, cursor });
    const integrations = await listIntegrations(deps.db, deps.box, ctx.env.id);
    const notice: Notice | null = problems.length ? { kind: 'error', text: problems.join(' ') } : noticeFrom(c);
    return renderPage(
      c,
      problems.length ? 400 : 200,
      <Layout ctx={ctx} section="logs" title="Request logs" notice={notice}>
        <p class="explain">
          Every call made to a third party (proxy, actions, syncs, checks, auth, webhooks), newest first. Headers and bodies are never logged.
        </p>
        <FilterForm action={`${ctx.base}/logs`} label="Filter request logs" clearHref={`${ctx.base}/logs`}>
          <SelectFilter id="f-kind" name="kind" label="Kind" value={q.kind} options={LOG_KINDS} />
          <SelectFilter id="f-outcome" name="outcome" label="Outcome" value={q.outcome} options={{ success: 'Success', error: 'Error' }} />
          <div class="field">
            <label for="f-code">HTTP status</label>
            <input id="f-code" name="code" type="text" inputmode="numeric" pattern="\d{3}" size={4} value={q.code} />
          </div>
          <IntegrationFilter id="f-integration" value={q.integration} integrations={integrations} />
          <TextFilter id="f-connection" name="connection_id" label="Connection ID" value={q.connection_id} />
          <TextFilter id="f-run" name="run_id" label="Run ID" value={q.run_id} />
        </FilterForm>
        {tail && (
          <p class="live" data-tail={tail} aria-live="polite">
            <span class="live-dot" aria-hidden="true" /> <span data-tail-status>Live: new entries appear at the top.</span>
          </p>
        )}
        <RequestLogTable ctx={ctx} logs={logs} caption="Request logs" live={live} />
        {nextCursor && (
          <Pager>
            <a href={withQuery(`${ctx.base}/logs`, { ...q, cursor: nextCursor })}>Older entries →</a>
          </Pager>
        )}
        {tail && (
          <section aria-labelledby="live-runs-heading">
            <h2 id="live-runs-heading">Runs started since this page opened</h2>
            <p class="empty" data-runs-empty>
              None yet.
            </p>
            <ul class="live-runs" id="live-runs" />
          </section>
        )}
      </Layout>,
    );
  });

  // The live tail of the Logs page: server-sent events, `log` (a table row) for each new request log
  // entry matching the page's filters and `run` (a list item) for each run started since the page
  // opened, narrowed by integration and connection. Polls the database each second, and asks each
  // time whether the session is still live: after a sign-out, a key rotation or the expiry it sends
  // `end` and stops.
  app.get('/logs/tail', (c) => {
    const ctx = c.get('page');
    const session = c.get('session');
    const held = openTails.get(session.idHash) ?? 0;
    if (held >= TAILS_PER_SESSION) return c.text(`This session already has ${TAILS_PER_SESSION} live tails open; close a Logs page first.`, 429);
    const q = logQuery(c);
    const { filters, problems } = logFilters(q);
    if (problems.length) throw new BadRequest('invalid_query_params', problems.join(' '));
    const lastEventId = c.req.header('last-event-id') ?? '';
    const after = /^\d{1,18}$/.test(lastEventId) ? Number(lastEventId) : /^\d{1,18}$/.test(c.req.query('after') ?? '') ? Number(c.req.query('after')) : 0;
    const since = new Date(c.req.query('since') ?? '');
    const runFilters: RunFilters = {
      integration: filters.integration,
      connectionId: filters.connectionId,
      startedSince: Number.isNaN(since.getTime()) ? new Date() : since,
    };
    openTails.set(session.idHash, held + 1);
    const release = () => {
      const left = (openTails.get(session.idHash) ?? 1) - 1;
      if (left > 0) openTails.set(session.idHash, left);
      else openTails.delete(session.idHash);
    };
    return streamSSE(
      c,
      async (stream) => {
        let open = true;
        stream.onAbort(() => {
          open = false;
        });
        try {
          let lastId = after;
          const shownRuns = new Set<string>();
          await stream.writeSSE({ event: 'ready', data: '' });
          while (open) {
            if (!(await sessionIsLive(deps.db, session))) {
              await stream.writeSSE({ event: 'end', data: 'Your session has ended. Sign in again.' });
              break;
            }
            const { logs } = await listRequestLogs(deps.db, ctx.env.id, { ...filters, afterId: lastId }, { limit: TAIL_BATCH });
            for (const l of logs.reverse()) {
              lastId = Math.max(lastId, l.id);
              await stream.writeSSE({ event: 'log', id: String(lastId), data: String(await (<RequestLogRow ctx={ctx} l={l} />).toString()) });
            }
            const runs = await listRuns(deps.db, ctx.env.id, runFilters, { limit: TAIL_BATCH, offset: 0 });
            for (const r of runs.reverse()) {
              const key = `${r.kind}:${r.id}:${r.status}`;
              if (shownRuns.has(key)) continue;
              shownRuns.add(key);
              await stream.writeSSE({ event: 'run', data: String(await (<LiveRunItem ctx={ctx} r={r} />).toString()) });
            }
            await stream.sleep(TAIL_POLL_MS);
          }
        } finally {
          release();
        }
      },
      async (err, stream) => {
        // The database went away (shutdown) or the client left mid-write: end the stream quietly.
        deps.log.debug({ err }, 'dashboard: live tail ended');
        await stream.close();
      },
    );
  });

  app.get('/runs', async (c) => {
    const ctx = c.get('page');
    const q = {
      kind: c.req.query('kind') ?? '',
      status: c.req.query('status') ?? '',
      integration: c.req.query('integration') ?? '',
      connection_id: c.req.query('connection_id')?.trim() ?? '',
      day: c.req.query('day') ?? '',
      page: c.req.query('page') ?? '',
    };
    const page = /^\d{1,6}$/.test(q.page) ? Number(q.page) : 0;
    const filters: RunFilters = {
      kind: q.kind === 'sync' || q.kind === 'action' || q.kind === 'webhook' ? q.kind : undefined,
      status: q.status === 'running' || q.status === 'success' || q.status === 'error' ? q.status : undefined,
      integration: q.integration || undefined,
      connectionId: q.connection_id || undefined,
      day: /^\d{4}-\d{2}-\d{2}$/.test(q.day) && !Number.isNaN(Date.parse(q.day)) ? q.day : undefined,
    };
    const rows = await listRuns(deps.db, ctx.env.id, filters, { limit: RUN_PAGE_SIZE + 1, offset: page * RUN_PAGE_SIZE });
    const runs = rows.slice(0, RUN_PAGE_SIZE);
    const integrations = await listIntegrations(deps.db, deps.box, ctx.env.id);
    return renderPage(
      c,
      200,
      <Layout ctx={ctx} section="runs" title="Runs" notice={noticeFrom(c)}>
        <p class="explain">
          Sync and action runs and webhook deliveries, newest first{filters.day ? `, of ${filters.day} (UTC)` : ''}. A run's page lists the HTTP calls it made,
          in order.
        </p>
        <FilterForm action={`${ctx.base}/runs`} label="Filter runs" clearHref={`${ctx.base}/runs`}>
          <SelectFilter id="r-kind" name="kind" label="Kind" value={q.kind} options={{ sync: 'Sync', action: 'Action', webhook: 'Webhook delivery' }} />
          <SelectFilter id="r-status" name="status" label="Status" value={q.status} options={['running', 'success', 'error']} />
          <IntegrationFilter id="r-integration" value={q.integration} integrations={integrations} />
          <TextFilter id="r-connection" name="connection_id" label="Connection ID" value={q.connection_id} />
          {filters.day && <input type="hidden" name="day" value={filters.day} />}
        </FilterForm>
        {runs.length === 0 ? (
          <Empty>No runs.</Empty>
        ) : (
          <DataTable caption="Runs" columns={['Started', 'Kind', 'Script', 'Connection', 'Status', 'Duration', 'Temporal']}>
            {runs.map((r) => (
              <tr>
                <td>
                  <a href={r.kind === 'webhook' ? `${ctx.base}/webhooks` : runHref(ctx, r.kind, r.id)}>
                    <When at={r.startedAt} />
                    <span class="sr-only">
                      {' '}
                      {r.kind} {r.name} run
                    </span>
                  </a>
                </td>
                <td>{r.kind}</td>
                <td>{r.name}</td>
                <td>
                  {r.integration && r.connectionId ? (
                    <a href={connectionHref(ctx, r.integration, r.connectionId)}>
                      {r.integration} / {r.connectionId}
                    </a>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
                <td>
                  <Badge tone={statusTone(r.status)}>{r.status}</Badge>
                </td>
                <td>{duration(r)}</td>
                <td>
                  <TemporalLink href={r.kind === 'webhook' ? null : temporalRunUrl(deps.config, ctx.env.name, { kind: r.kind, id: r.id })} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
        <Pager>
          {page > 0 && <a href={withQuery(`${ctx.base}/runs`, { ...q, page: page - 1 || undefined })}>← Newer</a>}
          {rows.length > RUN_PAGE_SIZE && <a href={withQuery(`${ctx.base}/runs`, { ...q, page: page + 1 })}>Older →</a>}
        </Pager>
      </Layout>,
    );
  });

  app.get('/runs/view', async (c: DashContext) => {
    const ctx = c.get('page');
    const kind = c.req.query('kind');
    const id = c.req.query('id') ?? '';
    if ((kind !== 'sync' && kind !== 'action') || !id) throw new NotFound('not_found', 'No such run');
    const run = await getRun(deps.db, ctx.env.id, kind, id);
    if (!run) throw new NotFound('not_found', 'No such run in this environment');
    // Oldest first: the order the run made its calls.
    const { logs } = await readRequestLogs(deps, ctx.env.id, { runId: run.id }, { limit: 1000 });
    logs.reverse();
    const temporal = temporalRunUrl(deps.config, ctx.env.name, { kind, id: run.id });
    return renderPage(
      c,
      200,
      <Layout ctx={ctx} section="runs" title={`${run.kind === 'sync' ? 'Sync' : 'Action'} run: ${run.name}`} crumbs={[[`${ctx.base}/runs`, 'Runs']]}>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <Badge tone={statusTone(run.status)}>{run.status}</Badge>
          </dd>
          <dt>Connection</dt>
          <dd>
            <a href={connectionHref(ctx, run.integration, run.connectionId)}>
              {run.integration} / {run.connectionId}
            </a>
          </dd>
          <dt>Mode</dt>
          <dd>{run.mode ?? '—'}</dd>
          <dt>Started</dt>
          <dd>
            <When at={run.startedAt} />
          </dd>
          <dt>Finished</dt>
          <dd>
            <When at={run.finishedAt} /> ({duration(run)})
          </dd>
          <dt>Run ID</dt>
          <dd>
            <code class="break">{run.id}</code>
          </dd>
          <dt>Temporal</dt>
          <dd>
            <TemporalLink href={temporal} />
          </dd>
        </dl>
        <section aria-labelledby="calls-heading">
          <h2 id="calls-heading">HTTP calls, in order ({logs.length})</h2>
          <RequestLogTable ctx={ctx} logs={logs} caption="HTTP calls of this run, oldest first" numbered />
        </section>
        <section aria-labelledby="result-heading">
          <h2 id="result-heading">{run.kind === 'sync' ? 'Results per model' : 'Output'}</h2>
          <Json value={run.result} label="Run result" />
          {run.error !== null && run.error !== undefined && (
            <>
              <h3>Error</h3>
              <Json value={run.error} label="Run error" />
            </>
          )}
          {Array.isArray(run.logs) && run.logs.length > 0 && (
            <>
              <h3>Script log</h3>
              <Json value={run.logs} label="Script log" />
            </>
          )}
        </section>
      </Layout>,
    );
  });
}
