/**
 * @module api/dashboard/providers — the providers of an environment: the catalogue and its own
 * user-defined ones, one provider's definition, a form that creates one from a pasted definition
 * (YAML or JSON, an entry of Nango's providers.yaml with its `name`), and deleting one. Reads and
 * writes go through the same store functions as api/routes/providers.ts.
 */
import type { Hono } from 'hono';
import { parse } from 'yaml';
import { createProvider, deleteProvider, listProviders, lookupProvider, parseProviderDefinition } from '../../features/providers/store.js';
import { NotFound } from '../../lib/errors.js';
import type { AppDeps } from '../context.js';
import { field, messageOf, noticeFrom, redirectWith, type DashContext, type DashEnv } from './context.js';
import { Badge, Csrf, Empty, Json, Layout, renderPage, type Notice } from './layout.js';
import { authModeLabel, categoryLabel } from './labels.js';

const EXAMPLE = [
  'name: my-api',
  'display_name: My API',
  'auth_mode: API_KEY',
  'proxy:',
  '  base_url: https://${connectionConfig.subdomain}.example.com/api',
  '  headers:',
  '    authorization: Bearer ${apiKey}',
  'connection_config:',
  '  subdomain:',
  '    title: Subdomain',
  'docs: https://example.com/docs',
].join('\n');

export function providerPages(deps: AppDeps, app: Hono<DashEnv>): void {
  async function listPage(c: DashContext, status: 200 | 400 | 409 = 200, notice: Notice | null = noticeFrom(c), pasted?: string) {
    const ctx = c.get('page');
    const all = await listProviders(deps.db, ctx.env.id);
    const own = all.filter((p) => p.source === 'user');
    const catalogue = all.filter((p) => p.source === 'catalog').sort((a, b) => a.provider.displayName.localeCompare(b.provider.displayName));
    const Row = ({ p, source }: { p: (typeof all)[number]['provider']; source: 'catalog' | 'user' }) => (
      <tr>
        <td>
          <a href={`${ctx.base}/providers/${encodeURIComponent(p.name)}`}>{p.displayName}</a>
        </td>
        <td>
          <code>{p.name}</code>
        </td>
        <td>{authModeLabel(p.authMode)}</td>
        <td>{(p.definition.categories ?? []).map(categoryLabel).join(', ')}</td>
        <td>{source === 'user' ? <Badge tone="ok">yours</Badge> : <Badge tone="neutral">catalogue</Badge>}</td>
      </tr>
    );
    const Table = ({ rows, label }: { rows: typeof all; label: string }) => (
      <table aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">Name</th>
            <th scope="col">Auth</th>
            <th scope="col">Categories</th>
            <th scope="col">Source</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ provider, source }) => (
            <Row p={provider} source={source} />
          ))}
        </tbody>
      </table>
    );
    return renderPage(
      c,
      status,
      <Layout ctx={ctx} section="providers" title="Providers" notice={notice}>
        <section aria-labelledby="own-heading">
          <h2 id="own-heading">Your providers in {ctx.env.name}</h2>
          {own.length === 0 ? <Empty>None yet. Define one below, or deploy a project's providers.yaml.</Empty> : <Table rows={own} label="Your providers" />}
        </section>
        <section aria-labelledby="define-heading" class="panel">
          <h2 id="define-heading">Define a provider</h2>
          <form method="post" action={`${ctx.base}/providers`}>
            <Csrf token={ctx.csrf} />
            <div class="field">
              <label for="definition">Definition (YAML or JSON)</label>
              <textarea id="definition" name="definition" rows={14} required spellcheck={false} aria-describedby="definition-hint">
                {pasted ?? ''}
              </textarea>
              <p class="hint" id="definition-hint">
                An entry of Nango's providers.yaml with its <code>name</code>, for example:
              </p>
              <pre class="json">{EXAMPLE}</pre>
            </div>
            <div class="actions">
              <button type="submit" class="btn btn-primary">
                Create provider
              </button>
            </div>
          </form>
        </section>
        <section aria-labelledby="catalogue-heading">
          <h2 id="catalogue-heading">The catalogue ({catalogue.length})</h2>
          <Table rows={catalogue} label="Catalogue" />
        </section>
      </Layout>,
    );
  }

  app
    .get('/providers', (c) => listPage(c))
    .post('/providers', async (c) => {
      const env = c.get('page').env;
      const pasted = field(c, 'definition');
      let data: unknown;
      try {
        data = parse(pasted);
      } catch (err) {
        return listPage(c, 400, { kind: 'error', text: `Not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}` }, pasted);
      }
      let parsed: ReturnType<typeof parseProviderDefinition>;
      try {
        parsed = parseProviderDefinition(data);
      } catch (err) {
        return listPage(c, 400, { kind: 'error', text: messageOf(err) }, pasted);
      }
      try {
        await createProvider(deps.db, env.id, parsed.definition);
      } catch (err) {
        return listPage(c, 409, { kind: 'error', text: messageOf(err) }, pasted);
      }
      const notice = parsed.warnings.length ? `provider-created-with-warnings` : 'provider-created';
      return redirectWith(c, `${c.get('page').base}/providers/${encodeURIComponent(parsed.definition.name)}`, notice);
    })
    .get('/providers/:name', async (c) => {
      const ctx = c.get('page');
      const name = c.req.param('name');
      const found = await lookupProvider(deps.db, ctx.env.id, name);
      if (!found) throw new NotFound('not_found', `No provider named ${name} in ${ctx.env.name}`);
      const { provider: p, shadowsCatalog } = found;
      const own = found.source === 'user';
      return renderPage(
        c,
        200,
        <Layout ctx={ctx} section="providers" title={p.displayName} notice={noticeFrom(c)} crumbs={[[`${ctx.base}/providers`, 'Providers']]}>
          <dl class="facts">
            <dt>Name</dt>
            <dd>
              <code>{p.name}</code>
            </dd>
            <dt>Source</dt>
            <dd>
              {own ? `defined in ${ctx.env.name}` : 'the catalogue'}
              {shadowsCatalog && ' (the catalogue has a provider of this name too; this definition is the one used here)'}
            </dd>
            <dt>Auth</dt>
            <dd>{authModeLabel(p.authMode)}</dd>
            <dt>Base URL</dt>
            <dd>
              <code>{p.baseUrl || '(none)'}</code>
            </dd>
            <dt>Docs</dt>
            <dd>
              <a href={p.docs} rel="noreferrer noopener">
                {p.docs}
              </a>
            </dd>
          </dl>
          <h2>Definition</h2>
          <Json value={p.definition} label="Definition" />
          {own && (
            <form method="post" action={`${ctx.base}/providers/${encodeURIComponent(p.name)}/delete`} class="actions">
              <Csrf token={ctx.csrf} />
              <button type="submit" class="btn">
                Delete provider
              </button>
            </form>
          )}
        </Layout>,
      );
    })
    .post('/providers/:name/delete', async (c) => {
      const ctx = c.get('page');
      const name = c.req.param('name');
      // 404 for a catalogue provider; refused (409, on the error page) while an integration uses it.
      await deleteProvider(deps.db, ctx.env.id, name);
      return redirectWith(c, `${ctx.base}/providers`, 'provider-deleted');
    });
}
