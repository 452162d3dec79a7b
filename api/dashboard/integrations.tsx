/**
 * @module api/dashboard/integrations — the integrations list, creation (a provider chosen from the
 * searchable grid of api/dashboard/provider-grid.tsx at /integrations/new, then its form), and an
 * integration's Authorization tab (credentials; secrets shown masked only) and Endpoints tab
 * (activate what its scripts declare). Reads and writes go through the same library functions as
 * api/routes/integrations.ts.
 */
import type { Hono } from 'hono';
import { getCatalogProvider as getProvider } from '../../features/providers/providers.js';
import { findProvider, listProviders } from '../../features/providers/store.js';
import { integrationCredentials } from '../../features/connections/credentials.js';
import { endpointKey } from '../../features/scripts/prebuilt.js';
import { BY_NAME } from '../../features/scripts/catalog.js';
import { hasOwnWebhooks } from '../../integrations/plugins.js';
import { insertIntegration, listIntegrations, setEndpointStates, updateIntegration, type Integration } from '../../features/integrations/store.js';
import { BadRequest } from '../../lib/errors.js';
import { incomingWebhookSecret, rotateIncomingWebhookSecret, SIGNATURE_HEADER } from '../../features/webhooks/incoming.js';
import type { AppDeps } from '../context.js';
import { credentialsSummary, endpointsOf, integrationOr404, uniqueKeySchema, type EndpointRow } from '../routes/integrations.js';
import { field, fields, noticeFrom, redirectWith, type DashContext, type DashEnv } from './context.js';
import { Badge, CopyField, Csrf, Empty, Layout, renderPage, When, withQuery, type Notice, type PageContext } from './layout.js';
import { ActivityChart, BarChart, type ChartSeries } from './components.js';
import { gridFilter, ProviderFacts, ProviderGrid, ProviderLogo, type ListedProvider } from './provider-grid.js';
import { dailyActivity, dailySyncRecords, type DayRecords } from '../../features/dashboard/activity.js';

const CHART_DAYS = 14;

/** The activity chart of the environment or of one integration; its bars open the runs of that day and outcome. */
async function activityChart(deps: AppDeps, ctx: PageContext, integration?: string) {
  const days = await dailyActivity(deps.db, ctx.env.id, CHART_DAYS, integration);
  return (
    <ActivityChart
      title={`Runs, last ${CHART_DAYS} days: syncs, actions and webhook deliveries`}
      days={days}
      href={(day, status) => withQuery(`${ctx.base}/runs`, { day, status, integration })}
    />
  );
}

const RECORD_CHANGES: readonly ChartSeries<keyof Omit<DayRecords, 'day'>>[] = [
  { key: 'added', label: (n) => `${n} added` },
  { key: 'updated', label: (n) => `${n} updated` },
  { key: 'deleted', label: (n) => `${n} deleted` },
];

/** Per sync of the integration that ran lately: the records its runs added, updated and deleted each day. */
async function syncRecordCharts(deps: AppDeps, ctx: PageContext, integration: string) {
  const perSync = await dailySyncRecords(deps.db, ctx.env.id, CHART_DAYS, integration);
  if (perSync.size === 0) return null;
  return (
    <section aria-labelledby="records-heading" class="charts-per-sync">
      <h2 id="records-heading">Records changed per sync, last {CHART_DAYS} days</h2>
      {[...perSync].map(([sync, days]) => {
        const sum = (k: keyof Omit<DayRecords, 'day'>) => days.reduce((n, d) => n + d[k], 0);
        return (
          <BarChart
            title={sync}
            note={`${sum('added')} added, ${sum('updated')} updated, ${sum('deleted')} deleted; green added, blue updated, orange deleted`}
            kind="records"
            label={`Records changed by the ${sync} sync`}
            days={days}
            series={RECORD_CHANGES}
            data={{ sync }}
          />
        );
      })}
    </section>
  );
}

interface CreateValues {
  provider: string;
  unique_key: string;
  display_name: string;
}

function zodMessage(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
}

function IntegrationTabs({ ctx, i, current }: { ctx: PageContext; i: Integration; current: 'authorization' | 'endpoints' }) {
  const base = `${ctx.base}/integrations/${encodeURIComponent(i.uniqueKey)}`;
  return (
    <nav class="tabs" aria-label="Integration settings">
      <ul>
        <li>
          <a href={`${base}/authorization`} aria-current={current === 'authorization' ? 'page' : undefined}>
            Authorization
          </a>
        </li>
        <li>
          <a href={`${base}/endpoints`} aria-current={current === 'endpoints' ? 'page' : undefined}>
            Endpoints
          </a>
        </li>
        <li>
          <a href={`${ctx.base}/connections?integration=${encodeURIComponent(i.uniqueKey)}`}>Connections</a>
        </li>
      </ul>
    </nav>
  );
}

/** The provider's name as the key, unless an integration has it: then the first free `<name>-<n>`. */
function suggestedKey(provider: string, taken: ReadonlySet<string>): string {
  if (!taken.has(provider)) return provider;
  let n = 2;
  while (taken.has(`${provider}-${n}`)) n++;
  return `${provider}-${n}`;
}

const titleOf = (i: Integration) => i.displayName ?? getProvider(i.provider)?.displayName ?? i.uniqueKey;

export function integrationPages(deps: AppDeps, app: Hono<DashEnv>): void {
  async function listPage(c: DashContext) {
    const ctx = c.get('page');
    const list = await listIntegrations(deps.db, deps.box, ctx.env.id);
    const rows = await Promise.all(list.map(async (i) => ({ i, endpoints: await endpointsOf(deps, i) })));
    return renderPage(
      c,
      200,
      <Layout ctx={ctx} section="integrations" title="Integrations" notice={noticeFrom(c)}>
        <p class="actions">
          <a class="btn btn-primary" href={`${ctx.base}/integrations/new`}>
            Create an integration
          </a>
        </p>
        {await activityChart(deps, ctx)}
        <section aria-labelledby="list-heading">
          <h2 id="list-heading">Integrations in {ctx.env.name}</h2>
          {rows.length === 0 ? (
            <Empty>No integrations yet. Create one from the provider catalogue.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Integration</th>
                  <th scope="col">Unique key</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Active endpoints</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ i, endpoints }) => (
                  <tr>
                    <td>
                      <a href={`${ctx.base}/integrations/${encodeURIComponent(i.uniqueKey)}/authorization`}>{titleOf(i)}</a>
                    </td>
                    <td>
                      <code>{i.uniqueKey}</code>
                    </td>
                    <td>{getProvider(i.provider)?.displayName ?? i.provider}</td>
                    <td>
                      {endpoints.filter((e) => e.enabled).length} of {endpoints.length}
                    </td>
                    <td>
                      <When at={i.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </Layout>,
    );
  }

  /** The grid of providers to choose from (`?q=`, `?category=` filter it without JavaScript). */
  async function choosePage(c: DashContext, providers: ListedProvider[], status: 200 | 400, notice: Notice | null) {
    const ctx = c.get('page');
    const action = `${ctx.base}/integrations/new`;
    return renderPage(
      c,
      status,
      <Layout ctx={ctx} section="integrations" title="Create an integration" notice={notice} crumbs={[[`${ctx.base}/integrations`, 'Integrations']]}>
        <p class="lede">Choose the provider to integrate with: search by name or pick a category, then open it.</p>
        <ProviderGrid
          providers={providers}
          filter={gridFilter(c, providers)}
          action={action}
          providersHref={`${ctx.base}/providers`}
          // Relative to this page: 400 entries, each a few bytes shorter.
          chooseHref={(name) => `?provider=${encodeURIComponent(name)}`}
        />
      </Layout>,
    );
  }

  /** The create form of one chosen provider; `values` are a refused post's. */
  async function createForm(c: DashContext, chosen: ListedProvider, status: 200 | 400, notice: Notice | null, values?: CreateValues) {
    const ctx = c.get('page');
    const p = chosen.provider;
    const taken = new Set((await listIntegrations(deps.db, deps.box, ctx.env.id)).map((i) => i.uniqueKey));
    return renderPage(
      c,
      status,
      <Layout ctx={ctx} section="integrations" title="Create an integration" notice={notice} crumbs={[[`${ctx.base}/integrations`, 'Integrations']]}>
        <section aria-labelledby="create-heading" class="panel">
          <h2 id="create-heading">Create a {p.displayName} integration</h2>
          <div class="chosen-provider">
            <ProviderLogo name={p.name} size={48} />
            <div class="provider-card-text">
              <span class="provider-name">
                {p.displayName} <code>{p.name}</code>
              </span>
              <ProviderFacts {...chosen} />
              {/^https?:\/\//i.test(p.docs) && <a href={p.docs}>{p.displayName} API documentation</a>}
            </div>
            <a href={`${ctx.base}/integrations/new`} class="btn btn-quiet">
              Choose another provider
            </a>
          </div>
          <form method="post" action={`${ctx.base}/integrations`} class="form-grid">
            <Csrf token={ctx.csrf} />
            <input type="hidden" name="provider" value={p.name} />
            <div class="field">
              <label for="unique_key">Unique key</label>
              <input
                id="unique_key"
                name="unique_key"
                type="text"
                required
                maxlength={255}
                value={values?.unique_key ?? suggestedKey(p.name, taken)}
                aria-describedby="unique_key-hint"
                autocomplete="off"
              />
              <p class="hint" id="unique_key-hint">
                The provider config key your code uses: letters, digits and ~:.@ _-
              </p>
            </div>
            <div class="field">
              <label for="display_name">Display name (optional)</label>
              <input id="display_name" name="display_name" type="text" maxlength={255} value={values?.display_name ?? ''} autocomplete="off" />
            </div>
            <div class="actions">
              <button type="submit" class="btn btn-primary">
                Create integration
              </button>
            </div>
          </form>
        </section>
      </Layout>,
    );
  }

  /** `?provider=<name>` (or a refused post's provider): its form; no provider: the grid; an unknown one: the grid, saying so. */
  async function createPage(c: DashContext, status: 200 | 400 = 200, notice: Notice | null = noticeFrom(c), values?: CreateValues) {
    const providers = await listProviders(deps.db, c.get('page').env.id);
    const name = values?.provider ?? c.req.query('provider');
    if (!name) return choosePage(c, providers, status, notice);
    const chosen = providers.find((p) => p.provider.name === name);
    if (!chosen) return choosePage(c, providers, 400, { kind: 'error', text: 'Choose a provider from the catalogue.' });
    return createForm(c, chosen, status, notice, values);
  }

  async function authorizationPage(c: DashContext, i: Integration, status: 200 | 400 = 200, notice: Notice | null = noticeFrom(c)) {
    const ctx = c.get('page');
    const provider = await findProvider(deps.db, ctx.env.id, i.provider);
    const summary = credentialsSummary(i) as { client_id: string; client_secret: string; scopes: string; webhook_secret: string | null } | null;
    const action = `${ctx.base}/integrations/${encodeURIComponent(i.uniqueKey)}/authorization`;
    const webhookUrl = `${ctx.publicUrl}/webhook/${ctx.env.uuid}/${encodeURIComponent(i.uniqueKey)}`;
    // A provider whose plugin verifies its own webhooks needs no secret; every other provider proves itself with this one.
    const incomingSecret = hasOwnWebhooks(i.provider) ? null : await incomingWebhookSecret(deps.db, deps.box, i.id);
    return renderPage(
      c,
      status,
      <Layout ctx={ctx} section="integrations" title={titleOf(i)} notice={notice} crumbs={[[`${ctx.base}/integrations`, 'Integrations']]}>
        <p class="lede">
          {provider?.displayName ?? i.provider} · unique key <code>{i.uniqueKey}</code>
        </p>
        {await activityChart(deps, ctx, i.uniqueKey)}
        {await syncRecordCharts(deps, ctx, i.uniqueKey)}
        <IntegrationTabs ctx={ctx} i={i} current="authorization" />
        <section aria-labelledby="auth-heading" class="panel">
          <h2 id="auth-heading">Authorization</h2>
          <CopyField
            id="callback-url"
            label="Callback URL"
            value={`${ctx.publicUrl}/oauth/callback`}
            hint="Register this redirect URL in the provider's OAuth app settings."
          />
          <CopyField
            id="provider-webhook-url"
            label="Provider webhook URL"
            value={webhookUrl}
            hint="Where the provider sends its own webhooks for this integration."
          />
          {incomingSecret && (
            <section aria-labelledby="incoming-webhook-heading">
              <h3 id="incoming-webhook-heading">Webhook verification</h3>
              <p class="explain">
                Webhooks to this integration are accepted only with its secret: an <code>{SIGNATURE_HEADER}: sha256=&lt;hex&gt;</code> header (HMAC-SHA256 of
                the raw body with the secret), or posted to the URL that ends with the secret. Anything else gets 401 and runs nothing.
              </p>
              <details>
                <summary>Show the webhook secret</summary>
                <CopyField id="incoming-webhook-secret" label="Verification secret" value={incomingSecret} />
                <CopyField id="incoming-webhook-url" label="Verification URL (ends with the secret)" value={`${webhookUrl}/${incomingSecret}`} />
              </details>
              <form method="post" action={`${ctx.base}/integrations/${encodeURIComponent(i.uniqueKey)}/webhook-secret/rotate`} class="inline-form">
                <Csrf token={ctx.csrf} />
                <button type="submit" class="btn">
                  Rotate webhook secret
                </button>
              </form>
            </section>
          )}
          {provider?.authMode === 'OAUTH2' || provider?.authMode === 'OAUTH2_CC' ? (
            <form method="post" action={action} class="form-grid" autocomplete="off">
              <Csrf token={ctx.csrf} />
              <div class="field">
                <label for="client_id">Client ID</label>
                <input id="client_id" name="client_id" type="text" required maxlength={255} value={summary?.client_id ?? ''} autocomplete="off" />
              </div>
              <div class="field">
                <label for="client_secret">Client secret</label>
                <input
                  id="client_secret"
                  name="client_secret"
                  type="password"
                  maxlength={2048}
                  autocomplete="new-password"
                  required={!summary}
                  aria-describedby="client_secret-hint"
                />
                <p class="hint" id="client_secret-hint">
                  {summary ? `Stored: ${summary.client_secret}. Leave blank to keep it.` : 'Not set yet.'}
                </p>
              </div>
              <div class="field">
                <label for="scopes">Scopes</label>
                <input id="scopes" name="scopes" type="text" value={summary?.scopes ?? ''} aria-describedby="scopes-hint" autocomplete="off" />
                <p class="hint" id="scopes-hint">
                  Comma-separated{provider.defaultScopes?.length ? `; the provider's defaults: ${provider.defaultScopes.join(',')}` : ''}.
                </p>
              </div>
              <div class="field">
                <label for="webhook_secret">Webhook secret</label>
                <input
                  id="webhook_secret"
                  name="webhook_secret"
                  type="password"
                  maxlength={2048}
                  autocomplete="new-password"
                  aria-describedby="webhook_secret-hint"
                />
                <p class="hint" id="webhook_secret-hint">
                  {summary?.webhook_secret ? `Stored: ${summary.webhook_secret}. Leave blank to keep it.` : 'Not set. Used to verify the provider’s webhooks.'}
                </p>
                {summary?.webhook_secret && (
                  <label class="check">
                    <input type="checkbox" name="clear_webhook_secret" value="1" /> Remove the stored webhook secret
                  </label>
                )}
              </div>
              <div class="actions">
                <button type="submit" class="btn btn-primary">
                  Save credentials
                </button>
              </div>
            </form>
          ) : (
            <p class="explain">
              {provider?.displayName ?? i.provider} connections authenticate with their own{' '}
              {provider?.authMode === 'API_KEY' ? 'API key' : 'username and password'}, supplied when each connection is created. This integration needs no
              client credentials.
            </p>
          )}
        </section>
      </Layout>,
    );
  }

  async function endpointsPage(c: DashContext, i: Integration, status: 200 | 400 = 200, notice: Notice | null = noticeFrom(c)) {
    const ctx = c.get('page');
    const endpoints: EndpointRow[] = await endpointsOf(deps, i);
    return renderPage(
      c,
      status,
      <Layout ctx={ctx} section="integrations" title={titleOf(i)} notice={notice} crumbs={[[`${ctx.base}/integrations`, 'Integrations']]}>
        <p class="lede">
          {getProvider(i.provider)?.displayName ?? i.provider} · unique key <code>{i.uniqueKey}</code>
        </p>
        <IntegrationTabs ctx={ctx} i={i} current="endpoints" />
        <section aria-labelledby="endpoints-heading" class="panel">
          <h2 id="endpoints-heading">Endpoints</h2>
          <p class="explain">Only activated endpoints answer through the API; a sync runs only while one of its endpoints is active.</p>
          {endpoints.length === 0 ? (
            <Empty>This integration's provider has no scripts, so there are no endpoints to activate.</Empty>
          ) : (
            <form method="post" action={`${ctx.base}/integrations/${encodeURIComponent(i.uniqueKey)}/endpoints`}>
              <Csrf token={ctx.csrf} />
              <table>
                <caption class="sr-only">Endpoints of {titleOf(i)}</caption>
                <thead>
                  <tr>
                    <th scope="col">Active</th>
                    <th scope="col">Method</th>
                    <th scope="col">Path</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Script</th>
                  </tr>
                </thead>
                <tbody>
                  {endpoints.map((e, n) => (
                    <tr>
                      <td>
                        <input type="checkbox" role="switch" class="switch" id={`endpoint-${n}`} name="enabled" value={endpointKey(e)} checked={e.enabled} />
                        <label for={`endpoint-${n}`} class="sr-only">
                          Activate {e.method === BY_NAME ? e.script : `${e.method} ${e.path}`}
                        </label>
                      </td>
                      {e.method === BY_NAME ? (
                        <td colspan={2}>
                          <span class="muted">no endpoint: called by name</span>
                        </td>
                      ) : (
                        <>
                          <td>
                            <code class="method">{e.method}</code>
                          </td>
                          <td>
                            <code>{e.path}</code>
                          </td>
                        </>
                      )}
                      <td>
                        <Badge tone="neutral">{e.type}</Badge>
                      </td>
                      <td>{e.script}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div class="actions">
                <button type="submit" class="btn btn-primary">
                  Save endpoints
                </button>
              </div>
            </form>
          )}
        </section>
      </Layout>,
    );
  }

  const integrationOf = (c: DashContext) => integrationOr404(deps, c.get('page').env, c.req.param('key') ?? '');

  app
    .get('/integrations', (c) => listPage(c))
    // Before /integrations/:key, which it would otherwise be.
    .get('/integrations/new', (c) => createPage(c))
    .post('/integrations', async (c) => {
      const env = c.get('page').env;
      const values: CreateValues = { provider: field(c, 'provider'), unique_key: field(c, 'unique_key'), display_name: field(c, 'display_name') };
      const fail = (text: string) => createPage(c, 400, { kind: 'error', text }, values);
      if (!(await findProvider(deps.db, env.id, values.provider))) return fail('Choose a provider from the catalogue.');
      const key = uniqueKeySchema.safeParse(values.unique_key);
      if (!values.unique_key || !key.success) return fail(`Unique key: ${key.success ? 'required' : zodMessage(key.error.issues)}`);
      if (values.display_name.length > 255) return fail('Display name: at most 255 characters');
      const created = await insertIntegration(deps.db, deps.box, env.id, {
        uniqueKey: key.data,
        provider: values.provider,
        displayName: values.display_name || undefined,
      });
      if (!created) return fail(`Unique key: an integration ${key.data} already exists`);
      return redirectWith(c, `${c.get('page').base}/integrations/${encodeURIComponent(created.uniqueKey)}/endpoints`, 'integration-created');
    })
    .get('/integrations/:key', (c) => c.redirect(`${c.get('page').base}/integrations/${encodeURIComponent(c.req.param('key'))}/authorization`, 303))
    .get('/integrations/:key/authorization', async (c) => authorizationPage(c, await integrationOf(c)))
    .post('/integrations/:key/authorization', async (c) => {
      const current = await integrationOf(c);
      const provider = await findProvider(deps.db, current.environmentId, current.provider);
      if (provider?.authMode !== 'OAUTH2' && provider?.authMode !== 'OAUTH2_CC')
        throw new BadRequest('no_client_credentials', `${current.provider} integrations take no client credentials`);
      const prev = current.credentials;
      const webhookSecret = field(c, 'clear_webhook_secret') ? '' : field(c, 'webhook_secret') || prev?.webhook_secret || '';
      const parsed = integrationCredentials.safeParse({
        type: 'OAUTH2',
        client_id: field(c, 'client_id'),
        client_secret: field(c, 'client_secret') || prev?.client_secret || '',
        scopes: field(c, 'scopes').replace(/\s*,\s*/g, ','),
        ...(webhookSecret ? { webhook_secret: webhookSecret } : {}),
      });
      if (!parsed.success) return authorizationPage(c, current, 400, { kind: 'error', text: zodMessage(parsed.error.issues) });
      await updateIntegration(deps.db, deps.box, current, { credentials: parsed.data });
      return redirectWith(c, `${c.get('page').base}/integrations/${encodeURIComponent(current.uniqueKey)}/authorization`, 'credentials-saved');
    })
    .post('/integrations/:key/webhook-secret/rotate', async (c) => {
      const integration = await integrationOf(c);
      await rotateIncomingWebhookSecret(deps.db, deps.box, integration.id);
      return redirectWith(c, `${c.get('page').base}/integrations/${encodeURIComponent(integration.uniqueKey)}/authorization`, 'webhook-secret-rotated');
    })
    .get('/integrations/:key/endpoints', async (c) => endpointsPage(c, await integrationOf(c)))
    .post('/integrations/:key/endpoints', async (c) => {
      const env = c.get('page').env;
      const integration = await integrationOf(c);
      const declared = await endpointsOf(deps, integration);
      const wanted = new Set(fields(c, 'enabled'));
      const known = new Set(declared.map(endpointKey));
      const unknown = [...wanted].filter((k) => !known.has(k));
      if (unknown.length) {
        return endpointsPage(c, integration, 400, { kind: 'error', text: `Not declared by any script of this integration: ${unknown.join(', ')}` });
      }
      const states = [...new Map(declared.map((e) => [endpointKey(e), { method: e.method, path: e.path, enabled: wanted.has(endpointKey(e)) }])).values()];
      await setEndpointStates(deps.db, integration.id, states);
      await deps.lifecycle.endpointsChanged(env, integration);
      return redirectWith(c, `${c.get('page').base}/integrations/${encodeURIComponent(integration.uniqueKey)}/endpoints`, 'endpoints-saved');
    });
}
