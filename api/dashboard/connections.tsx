/**
 * @module api/dashboard/connections — the connections list (health, end user, tags) and a
 * connection's page: metadata, syncs with their controls (pause / start / trigger / frequency
 * override: the sync commands of features/syncs/commands.ts, as the API's routes call them), a paged records browser per model and
 * the connection's recent request logs.
 */
import type { Hono } from 'hono';
import { requireConnection } from '../../features/connections/resolve.js';
import { listConnections, type Connection } from '../../features/connections/store.js';
import { listIntegrations, type Integration } from '../../features/integrations/store.js';
import { BadRequest, NotFound, ValidationFailed } from '../../lib/errors.js';
import { InvalidCursor, readRecords } from '../../features/records/read.js';
import { modelsOf } from '../../features/scripts/catalog.js';
import type { SyncOverview } from '../../features/syncs/commands.js';
import { BASE_VARIANT } from '../../features/syncs/variants.js';
import type { AppDeps } from '../context.js';
import { field, noticeFrom, redirectWith, type DashContext, type DashEnv } from './context.js';
import { Badge, Csrf, Empty, Json, Layout, renderPage, statusTone, When, withQuery, type Notice, type PageContext } from './layout.js';
import { DataTable, FilterForm, IntegrationFilter, Pager } from './components.js';
import { RequestLogTable, runHref } from './logs.js';
import { readRequestLogs } from '../routes/logs.js';

const PAGE_SIZE = 50;
const RECORDS_PAGE_SIZE = 25;

export function connectionHref(ctx: PageContext, c: Pick<Connection, 'integrationKey' | 'connectionId'>): string {
  return `${ctx.base}/connections/${encodeURIComponent(c.integrationKey)}/${encodeURIComponent(c.connectionId)}`;
}

function Health({ c }: { c: Connection }) {
  return (
    <>
      <Badge tone={statusTone(c.status)}>{c.status}</Badge>
      {c.errors.length > 0 && (
        <span class="error-text">
          {' '}
          {c.errors.length} error{c.errors.length > 1 ? 's' : ''}
        </span>
      )}
    </>
  );
}

function EndUser({ c }: { c: Connection }) {
  if (!c.endUser) return <span class="muted">—</span>;
  const u = c.endUser;
  return (
    <span>
      {u.display_name ?? u.id}
      {u.email && <span class="muted"> &lt;{u.email}&gt;</span>}
      {u.organization && <span class="muted"> · {u.organization.display_name ?? u.organization.id}</span>}
    </span>
  );
}

function Tags({ tags }: { tags: Record<string, string> }) {
  const entries = Object.entries(tags);
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="tags">
      {entries.map(([k, v]) => (
        <li>
          <code>
            {k}={v}
          </code>
        </li>
      ))}
    </ul>
  );
}

type SyncRow = SyncOverview;

function syncStatus(s: SyncRow): { label: string; tone: 'ok' | 'warn' | 'error' | 'neutral' } {
  if (!s.enabled) return { label: 'not activated', tone: 'neutral' };
  if (!s.state) return { label: 'not started', tone: 'neutral' };
  if (s.state.runningRunId) return { label: 'running', tone: 'warn' };
  if (s.state.status === 'PAUSED') return { label: 'paused', tone: 'warn' };
  if (s.state.status === 'STOPPED') return { label: 'stopped', tone: 'neutral' };
  return { label: 'scheduled', tone: 'ok' };
}

function LastResult({ s }: { s: SyncRow }) {
  const st = s.state;
  if (!st?.lastStatus) return <span class="muted">never ran</span>;
  return (
    <div>
      <Badge tone={statusTone(st.lastStatus)}>{st.lastStatus.toLowerCase()}</Badge> {st.lastFinishedAt && <When at={st.lastFinishedAt} />}
      {st.lastResult && (
        <ul class="compact">
          {Object.entries(st.lastResult).map(([model, r]) => (
            <li>
              {model}: +{r.added} ~{r.updated} −{r.deleted}
            </li>
          ))}
        </ul>
      )}
      {st.lastError && <div class="error-text">{st.lastError.description}</div>}
    </div>
  );
}

export function connectionPages(deps: AppDeps, app: Hono<DashEnv>): void {
  async function connectionOf(c: DashContext): Promise<{ connection: Connection; integration: Integration }> {
    return requireConnection(deps.lookups, c.get('page').env, c.req.param('pck') ?? '', c.req.param('cid') ?? '', 'page');
  }

  app.get('/connections', async (c) => {
    const ctx = c.get('page');
    const q = { search: c.req.query('search')?.trim() ?? '', integration: c.req.query('integration') ?? '', page: c.req.query('page') ?? '' };
    const page = /^\d{1,6}$/.test(q.page) ? Number(q.page) : 0;
    const connections = await listConnections(deps.db, deps.box, ctx.env.id, {
      search: q.search.slice(0, 255) || undefined,
      integrationKeys: q.integration ? [q.integration] : undefined,
      limit: PAGE_SIZE,
      page,
    });
    // A full page may be the last one: the next then says so.
    const more = connections.length === PAGE_SIZE;
    const integrations = await listIntegrations(deps.db, deps.box, ctx.env.id);
    return renderPage(
      c,
      200,
      <Layout ctx={ctx} section="connections" title="Connections" notice={noticeFrom(c)}>
        <FilterForm action={`${ctx.base}/connections`} label="Filter connections" clearHref={`${ctx.base}/connections`}>
          <div class="field">
            <label for="c-search">Search</label>
            <input id="c-search" name="search" type="search" value={q.search} aria-describedby="c-search-hint" />
            <p class="hint" id="c-search-hint">
              Connection ID, end-user ID, email or name
            </p>
          </div>
          <IntegrationFilter id="c-integration" value={q.integration} integrations={integrations} />
        </FilterForm>
        {connections.length === 0 ? (
          <Empty>No connections{q.search || q.integration ? ' match' : ' yet'}.</Empty>
        ) : (
          <DataTable caption="Connections" columns={['Connection', 'Integration', 'Health', 'End user', 'Tags', 'Created']}>
            {connections.map((conn) => (
              <tr>
                <td>
                  <a href={connectionHref(ctx, conn)}>{conn.connectionId}</a>
                </td>
                <td>{conn.integrationKey}</td>
                <td>
                  <Health c={conn} />
                </td>
                <td>
                  <EndUser c={conn} />
                </td>
                <td>
                  <Tags tags={conn.tags} />
                </td>
                <td>
                  <When at={conn.createdAt} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
        <Pager>
          {page > 0 && <a href={withQuery(`${ctx.base}/connections`, { ...q, page: page - 1 || undefined })}>← Previous</a>}
          {more && <a href={withQuery(`${ctx.base}/connections`, { ...q, page: page + 1 })}>Next →</a>}
        </Pager>
      </Layout>,
    );
  });

  async function connectionPage(c: DashContext, status: 200 | 400 = 200, notice: Notice | null = noticeFrom(c)) {
    const ctx = c.get('page');
    const { connection: conn, integration } = await connectionOf(c);
    const syncs = await deps.syncs.overview(ctx.env, integration, conn);
    const models = Object.keys(await modelsOf(deps, integration));
    const model = models.includes(c.req.query('model') ?? '') ? c.req.query('model')! : models[0];
    const cursor = c.req.query('cursor') || undefined;
    let records: { records: Record<string, unknown>[]; nextCursor: string | null } = { records: [], nextCursor: null };
    let recordsProblem: string | null = null;
    if (model) {
      try {
        records = await readRecords(deps.db, { connectionPk: conn.id, model, cursor, limit: RECORDS_PAGE_SIZE });
      } catch (err) {
        if (!(err instanceof InvalidCursor)) throw err;
        recordsProblem = 'The page cursor is not valid.';
      }
    }
    const { logs } = await readRequestLogs(deps, ctx.env.id, { connectionId: conn.connectionId, integration: conn.integrationKey }, { limit: 20 });
    const href = connectionHref(ctx, conn);
    return renderPage(
      c,
      status,
      <Layout ctx={ctx} section="connections" title={`Connection ${conn.connectionId}`} notice={notice} crumbs={[[`${ctx.base}/connections`, 'Connections']]}>
        <section aria-labelledby="overview-heading">
          <h2 id="overview-heading">Overview</h2>
          <dl class="facts">
            <dt>Integration</dt>
            <dd>
              <a href={`${ctx.base}/integrations/${encodeURIComponent(integration.uniqueKey)}/authorization`}>{integration.uniqueKey}</a> ({conn.provider})
            </dd>
            <dt>Health</dt>
            <dd>
              <Health c={conn} /> · last check <When at={conn.lastCheckAt} />
            </dd>
            <dt>End user</dt>
            <dd>
              <EndUser c={conn} />
            </dd>
            <dt>Tags</dt>
            <dd>
              <Tags tags={conn.tags} />
            </dd>
            <dt>Auth</dt>
            <dd>{conn.authMode}</dd>
            <dt>Created</dt>
            <dd>
              <When at={conn.createdAt} />
            </dd>
          </dl>
          {conn.errors.length > 0 && (
            <>
              <h3>Errors</h3>
              <ul>
                {conn.errors.map((e) => (
                  <li class="error-text">
                    {e.type}: {e.message ?? e.log_id}
                  </li>
                ))}
              </ul>
            </>
          )}
          <div class="two-col">
            <div>
              <h3>Metadata</h3>
              <Json value={conn.metadata} label="Metadata" />
            </div>
            <div>
              <h3>Connection config</h3>
              <Json value={conn.connectionConfig} label="Connection config" />
            </div>
          </div>
        </section>

        <section aria-labelledby="syncs-heading">
          <h2 id="syncs-heading">Syncs</h2>
          {syncs.length === 0 ? (
            <Empty>This integration has no syncs.</Empty>
          ) : (
            <DataTable caption="Syncs of this connection" columns={['Sync', 'Status', 'Last result', 'Next run', 'Frequency', 'Controls']}>
              {syncs.map((s) => {
                const st = syncStatus(s);
                const action = `${href}/syncs/${encodeURIComponent(s.name)}`;
                return (
                  <tr data-sync={s.name}>
                    <th scope="row">{s.name}</th>
                    <td>
                      <Badge tone={st.tone}>{st.label}</Badge>
                    </td>
                    <td>
                      <LastResult s={s} />
                      {s.state?.lastRunId && (
                        <a href={runHref(ctx, 'sync', s.state.lastRunId)}>
                          last run<span class="sr-only"> of {s.name}</span>
                        </a>
                      )}
                    </td>
                    <td>
                      <When at={s.nextRun} />
                    </td>
                    <td>
                      <form method="post" action={`${action}/frequency`} class="inline-form">
                        <Csrf token={ctx.csrf} />
                        <label for={`freq-${s.name}`} class="sr-only">
                          Frequency of {s.name}
                        </label>
                        <input
                          id={`freq-${s.name}`}
                          name="frequency"
                          type="text"
                          size={14}
                          value={s.state?.frequencyOverride ?? ''}
                          placeholder={s.def.frequency}
                          aria-describedby={`freq-${s.name}-hint`}
                        />
                        <button type="submit" class="btn btn-small">
                          Set<span class="sr-only"> frequency of {s.name}</span>
                        </button>
                        <p class="hint" id={`freq-${s.name}-hint`}>
                          Default {s.def.frequency}; empty reverts to it.
                        </p>
                      </form>
                    </td>
                    <td>
                      <div class="controls">
                        {s.enabled && s.state?.status !== 'PAUSED' && s.state && (
                          <form method="post" action={`${action}/pause`}>
                            <Csrf token={ctx.csrf} />
                            <button type="submit" class="btn btn-small">
                              Pause<span class="sr-only"> {s.name}</span>
                            </button>
                          </form>
                        )}
                        {s.enabled && (!s.state || s.state.status !== 'RUNNING') && (
                          <form method="post" action={`${action}/start`}>
                            <Csrf token={ctx.csrf} />
                            <button type="submit" class="btn btn-small">
                              Start<span class="sr-only"> {s.name}</span>
                            </button>
                          </form>
                        )}
                        {s.enabled && (
                          <form method="post" action={`${action}/trigger`}>
                            <Csrf token={ctx.csrf} />
                            <button type="submit" class="btn btn-small">
                              Run now<span class="sr-only"> {s.name}</span>
                            </button>
                          </form>
                        )}
                        {!s.enabled && (
                          <a href={`${ctx.base}/integrations/${encodeURIComponent(integration.uniqueKey)}/endpoints`}>Activate in the Endpoints tab</a>
                        )}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </DataTable>
          )}
        </section>

        <section aria-labelledby="records-heading">
          <h2 id="records-heading">Records</h2>
          {!model ? (
            <Empty>This integration's syncs declare no models.</Empty>
          ) : (
            <>
              <nav class="tabs" aria-label="Models">
                <ul>
                  {models.map((m) => (
                    <li>
                      <a href={`${withQuery(href, { model: m })}#records-heading`} aria-current={m === model ? 'page' : undefined}>
                        {m}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
              {recordsProblem && (
                <p class="notice notice-error" role="alert">
                  {recordsProblem}
                </p>
              )}
              {records.records.length === 0 ? (
                <Empty>
                  No {model} records{cursor ? ' after this point' : ' yet'}.
                </Empty>
              ) : (
                <DataTable caption={`${model} records`} class="records" columns={['ID', 'Last action', 'Modified', 'Data']}>
                  {records.records.map((r) => {
                    const { _nango_metadata: meta, ...data } = r as Record<string, unknown> & {
                      _nango_metadata: { last_action: string; last_modified_at: string };
                    };
                    const text = JSON.stringify(data);
                    return (
                      <tr>
                        <td>
                          <code>{String(data.id ?? '')}</code>
                        </td>
                        <td>
                          <Badge tone={meta.last_action === 'DELETED' ? 'error' : 'neutral'}>{meta.last_action.toLowerCase()}</Badge>
                        </td>
                        <td>
                          <When at={new Date(meta.last_modified_at)} />
                        </td>
                        <td>
                          <code class="break">{text.length > 240 ? `${text.slice(0, 240)}…` : text}</code>
                        </td>
                      </tr>
                    );
                  })}
                </DataTable>
              )}
              <Pager label="Record pages">
                {cursor && <a href={`${withQuery(href, { model })}#records-heading`}>← First page</a>}
                {records.nextCursor && <a href={`${withQuery(href, { model, cursor: records.nextCursor })}#records-heading`}>Next page →</a>}
              </Pager>
            </>
          )}
        </section>

        <section aria-labelledby="requests-heading">
          <h2 id="requests-heading">Recent requests</h2>
          <RequestLogTable ctx={ctx} logs={logs} caption="Recent requests of this connection" />
          <p>
            <a href={withQuery(`${ctx.base}/logs`, { connection_id: conn.connectionId, integration: conn.integrationKey })}>
              All request logs of this connection
            </a>{' '}
            · <a href={withQuery(`${ctx.base}/runs`, { connection_id: conn.connectionId, integration: conn.integrationKey })}>Runs</a>
          </p>
        </section>
      </Layout>,
    );
  }

  app.get('/connections/:pck/:cid', (c) => connectionPage(c));

  app.post('/connections/:pck/:cid/syncs/:sync/:op{pause|start|trigger|frequency}', async (c) => {
    const env = c.get('page').env;
    const { connection: conn, integration } = await connectionOf(c);
    const name = c.req.param('sync');
    const back = connectionHref(c.get('page'), conn);
    try {
      const op = c.req.param('op');
      if (op === 'frequency') {
        const frequency = field(c, 'frequency') || null;
        await deps.syncs.setFrequency(env, {
          integrationKey: integration.uniqueKey,
          connectionId: conn.connectionId,
          syncName: name,
          frequency,
          missing: 'page',
        });
        return redirectWith(c, back, 'frequency-saved', '#syncs-heading');
      }
      const sel = await deps.syncs.select(env, {
        integrationKey: integration.uniqueKey,
        connectionId: conn.connectionId,
        refs: [{ name, variant: BASE_VARIANT }],
        missing: 'page',
      });
      if (op === 'pause') {
        await deps.syncs.pause(env, sel);
        return redirectWith(c, back, 'sync-paused', '#syncs-heading');
      }
      if (op === 'start') {
        await deps.syncs.start(env, sel);
        return redirectWith(c, back, 'sync-started', '#syncs-heading');
      }
      await deps.syncs.trigger(env, sel);
      return redirectWith(c, back, 'sync-triggered', '#syncs-heading');
    } catch (err) {
      if (err instanceof ValidationFailed || err instanceof BadRequest || (err instanceof NotFound && err.code === 'endpoint_not_enabled')) {
        const text = err instanceof ValidationFailed ? err.errors.map((e) => e.message).join('; ') : err.message;
        return connectionPage(c, 400, { kind: 'error', text });
      }
      throw err;
    }
  });
}
