/**
 * End-to-end browser tests of the end user's side: the browser SDK (`/sdk.js`), the real
 * `@nangohq/frontend` against our API, the hosted Connect UI and the embedded one, in Chromium.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { chromium, type Page } from 'playwright-core';
import { startGenericProviderFake, startMetabaseFake, startOAuthProviderFake, type OAuthProviderFake } from './fakes/index.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

const outputDir = fileURLToPath(new URL('../test-output/', import.meta.url));
const nangoDist = fileURLToPath(new URL('../node_modules/@nangohq/frontend/dist/', import.meta.url));
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** The developer's own web app: a local origin distinct from the platform's. */
async function startPageServer(pages: Record<string, string>): Promise<PageServer> {
  const nangoFiles = new Map(
    readdirSync(nangoDist)
      .filter((f) => f.endsWith('.js'))
      .map((f) => [f, readFileSync(nangoDist + f)]),
  );
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    const page = pages[pathname];
    if (page !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      return;
    }
    // @nangohq/frontend's ESM build imports its siblings relatively ('./authModal.js'), so the
    // dist folder served as-is loads with <script type="module">.
    const nango = pathname.startsWith('/nango/') ? nangoFiles.get(pathname.slice('/nango/'.length)) : undefined;
    if (nango) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(nango);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fresh Chromium per test; on failure a screenshot and the page's console go with the error. */
async function withBrowser(name: string, fn: (page: Page) => Promise<void>): Promise<void> {
  mkdirSync(outputDir, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const logs: string[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
    context.on('page', (p) => {
      p.on('console', (m) => logs.push(`[${p.url()}] ${m.type()}: ${m.text()}`));
      p.on('pageerror', (e) => logs.push(`[${p.url()}] pageerror: ${e.message}`));
    });
    const page = await context.newPage();
    try {
      await fn(page);
    } catch (err) {
      await page.screenshot({ path: `${outputDir}${name}-failure.png`, fullPage: true }).catch(() => undefined);
      if (err instanceof Error) err.message += `\n--- browser console ---\n${logs.join('\n')}`;
      throw err;
    }
  } finally {
    await browser.close();
  }
}

const js = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

/** A page with one button (popups need a user gesture) that runs `call` and writes the event into #result. */
function authPage(imports: string, call: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>App</title></head>
<body>
  <button id="go" type="button">Connect</button>
  <pre id="result"></pre>
  <script type="module">
    ${imports}
    const result = document.getElementById('result');
    const show = (event) => { result.textContent = JSON.stringify(event); result.dataset.state = 'done'; };
    document.getElementById('go').addEventListener('click', () => {
      ${call}.then(
        (payload) => show({ type: 'connect', payload }),
        (err) => show({ type: 'error', payload: { errorType: err.type, errorMessage: err.message } }),
      );
    });
    document.body.dataset.ready = 'yes';
  </script>
</body></html>`;
}

/** The JSON body, after asserting the status (the body goes into the failure message). */
async function expectJson<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as T;
}

interface ListedConnection {
  connection_id: string;
  provider_config_key: string;
  end_user: { id: string } | null;
}

describe('Connect UI and browser SDKs', () => {
  let t: TestPlatform;
  let oauth: OAuthProviderFake;

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    oauth = await startOAuthProviderFake({ clientId: 'gd-client-id', clientSecret: 'gd-client-secret', requirePkce: true });
    const res = await t.api('/integrations', {
      method: 'POST',
      json: {
        provider: 'google-drive',
        unique_key: 'gdrive',
        credentials: { type: 'OAUTH2', client_id: 'gd-client-id', client_secret: 'gd-client-secret', scopes: 'https://www.googleapis.com/auth/drive.readonly' },
        integration_config: { authorization_url: `${oauth.url}/oauth/authorize`, token_url: `${oauth.url}/oauth/token`, base_url: oauth.url },
      },
    });
    await expectJson(res, 200);
  });

  after(async () => {
    await oauth?.close();
    await t?.stop();
  });

  async function createIntegration(body: Record<string, unknown>) {
    await expectJson(await t.api('/integrations', { method: 'POST', json: body }), 200);
  }

  async function connectSession(userId: string, allowed: string[]): Promise<{ token: string; connect_link: string }> {
    const res = await t.api('/connect/sessions', {
      method: 'POST',
      json: { end_user: { id: userId, email: `${userId}@example.com` }, allowed_integrations: allowed },
    });
    return (await expectJson<{ data: { token: string; connect_link: string } }>(res, 201)).data;
  }

  async function connections(integration: string): Promise<ListedConnection[]> {
    return (await expectJson<{ connections: ListedConnection[] }>(await t.api(`/connections?integrationId=${integration}`), 200)).connections;
  }

  async function credentialsOf(connectionId: string, integration: string): Promise<Record<string, unknown>> {
    const res = await t.api(`/connections/${connectionId}?provider_config_key=${integration}`);
    return (await expectJson<{ credentials: Record<string, unknown> }>(res, 200)).credentials;
  }

  /** Clicks #go on an auth page, approves in the fake provider's popup, returns the event the page wrote. */
  async function approveInPopup(page: Page, screenshot: string): Promise<{ type: string; payload: Record<string, unknown> }> {
    await page.waitForSelector('body[data-ready="yes"]');
    const popupOpened = page.context().waitForEvent('page');
    await page.click('#go');
    const popup = await popupOpened;
    await popup.waitForSelector('#approve');
    await popup.screenshot({ path: `${outputDir}${screenshot}-consent.png` });
    await popup.click('#approve');
    await page.waitForSelector('#result[data-state="done"]', { timeout: 15_000 });
    await page.screenshot({ path: `${outputDir}${screenshot}.png` });
    return JSON.parse((await page.textContent('#result')) ?? '') as { type: string; payload: Record<string, unknown> };
  }

  async function assertOAuthConnection(connectionId: string, userId: string) {
    const listed = (await connections('gdrive')).find((c) => c.connection_id === connectionId);
    assert.ok(listed, 'GET /connections lists the new connection');
    assert.equal(listed.end_user?.id, userId);
    const credentials = await credentialsOf(connectionId, 'gdrive');
    assert.equal(credentials.type, 'OAUTH2');
    assert.ok(oauth.state.tokens.some((tok) => tok.accessToken === credentials.access_token && tok.grant === 'authorization_code'));
  }

  test('serves the Connect UI and the SDK with their content types, and nothing else', async () => {
    const redirect = await fetch(`${t.url}/connect-ui?session_token=abc`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('location'), '/connect-ui/?session_token=abc');
    const expected: [string, RegExp][] = [
      ['/connect-ui/', /^text\/html/],
      ['/connect-ui/index.html', /^text\/html/],
      ['/connect-ui/connect-ui.js', /^text\/javascript/],
      ['/connect-ui/style.css', /^text\/css/],
      ['/sdk.js', /^text\/javascript/],
    ];
    for (const [p, type] of expected) {
      const res = await fetch(t.url + p);
      assert.equal(res.status, 200, p);
      assert.match(res.headers.get('content-type') ?? '', type, p);
      assert.ok((await res.text()).length > 100, p);
    }
    for (const p of ['/connect-ui/nope.js', '/connect-ui/..%2Fsdk.js', '/connect-ui/%2e%2e%2f%2e%2e%2fpackage.json', '/connect-ui/..%2F..%2Fapi%2Fapp.ts']) {
      const res = await fetch(t.url + p);
      assert.equal(res.status, 404, p);
    }
  });

  test('OAuth popup flow with the Switchyard SDK: the page gets the connect event', async () => {
    const session = await connectSession('sdk-user', ['gdrive']);
    const site = await startPageServer({
      '/': authPage(
        `import { Switchyard } from ${js(`${t.url}/sdk.js`)};`,
        `new Switchyard({ host: ${js(t.url)}, connectSessionToken: ${js(session.token)} }).auth('gdrive')`,
      ),
    });
    try {
      await withBrowser('sdk-oauth', async (page) => {
        await page.goto(site.url);
        const event = await approveInPopup(page, 'sdk-oauth');
        assert.equal(event.type, 'connect', JSON.stringify(event));
        assert.equal(event.payload.providerConfigKey, 'gdrive');
        assert.match(String(event.payload.connectionId), UUID);
        await assertOAuthConnection(String(event.payload.connectionId), 'sdk-user');
      });
    } finally {
      await site.close();
    }
  });

  test('OAuth popup flow with the real @nangohq/frontend against Switchyard', async () => {
    const session = await connectSession('nango-user', ['gdrive']);
    const site = await startPageServer({
      '/': authPage(`import Nango from '/nango/index.js';`, `new Nango({ host: ${js(t.url)}, connectSessionToken: ${js(session.token)} }).auth('gdrive')`),
    });
    try {
      await withBrowser('nango-frontend-oauth', async (page) => {
        await page.goto(site.url);
        const event = await approveInPopup(page, 'nango-frontend-oauth');
        assert.equal(event.type, 'connect', JSON.stringify(event));
        assert.equal(event.payload.providerConfigKey, 'gdrive');
        assert.equal(event.payload.isPending, false);
        await assertOAuthConnection(String(event.payload.connectionId), 'nango-user');
      });
    } finally {
      await site.close();
    }
  });

  test('SDK auth() rejects with the error type when the user denies access', async () => {
    const session = await connectSession('deny-user', ['gdrive']);
    const before = (await connections('gdrive')).length;
    const site = await startPageServer({
      '/': authPage(
        `import { Switchyard } from ${js(`${t.url}/sdk.js`)};`,
        `new Switchyard({ host: ${js(t.url)}, connectSessionToken: ${js(session.token)} }).auth('gdrive')`,
      ),
    });
    try {
      await withBrowser('sdk-oauth-denied', async (page) => {
        await page.goto(site.url);
        await page.waitForSelector('body[data-ready="yes"]');
        const popupOpened = page.context().waitForEvent('page');
        await page.click('#go');
        const popup = await popupOpened;
        await popup.click('#deny');
        await page.waitForSelector('#result[data-state="done"]', { timeout: 15_000 });
        const event = JSON.parse((await page.textContent('#result')) ?? '') as { type: string; payload: { errorType: string; errorMessage: string } };
        assert.equal(event.type, 'error');
        assert.equal(event.payload.errorType, 'provider_error');
        assert.match(event.payload.errorMessage, /access_denied/);
      });
      assert.equal((await connections('gdrive')).length, before);
    } finally {
      await site.close();
    }
  });

  test('hosted Connect UI: an API key is checked against Metabase; a wrong key shows an error and saves nothing', async () => {
    const metabase = await startMetabaseFake({ apiKey: 'mb_good_key' });
    try {
      await createIntegration({ provider: 'metabase', unique_key: 'metabase-hosted' });
      const session = await connectSession('mb-user', ['metabase-hosted']);
      assert.ok(session.connect_link.includes('/connect-ui/?session_token='), session.connect_link);
      await withBrowser('connect-ui-hosted', async (page) => {
        await page.goto(session.connect_link);
        // One allowed integration: the UI goes straight to its form.
        await page.getByRole('heading', { name: 'Connect Metabase' }).waitFor();
        const apiKey = page.getByLabel('API key');
        const domain = page.getByLabel('Metabase domain');

        await page.getByRole('button', { name: 'Connect', exact: true }).click();
        assert.equal(await apiKey.getAttribute('aria-invalid'), 'true', 'empty required fields are flagged');

        await apiKey.fill('mb_wrong_key');
        await domain.fill(metabase.url);
        await page.getByRole('button', { name: 'Connect', exact: true }).click();
        const alert = page.getByRole('alert');
        await alert.waitFor();
        assert.match((await alert.textContent()) ?? '', /could not be connected/);
        await page.screenshot({ path: `${outputDir}connect-ui-hosted-error.png` });
        assert.deepEqual(await connections('metabase-hosted'), []);

        await apiKey.fill('mb_good_key');
        await domain.press('Enter');
        await page.getByRole('heading', { name: 'Connected' }).waitFor({ timeout: 15_000 });
        assert.match((await page.textContent('#done-message')) ?? '', /Metabase is connected/);
        await page.screenshot({ path: `${outputDir}connect-ui-hosted-success.png` });
      });
      const listed = await connections('metabase-hosted');
      assert.equal(listed.length, 1);
      assert.equal(listed[0]!.end_user?.id, 'mb-user');
      const credentials = await credentialsOf(listed[0]!.connection_id, 'metabase-hosted');
      assert.equal(credentials.type, 'API_KEY');
      assert.equal(credentials.apiKey, 'mb_good_key');
      assert.ok(metabase.requests.some((r) => r.path === '/api/user/current' && r.headers['x-api-key'] === 'mb_good_key'));
    } finally {
      await metabase.close();
    }
  });

  test('hosted Connect UI: a value the developer set on the session is shown read-only and is the one saved', async () => {
    const metabase = await startMetabaseFake({ apiKey: 'mb_fixed_key' });
    try {
      await createIntegration({ provider: 'metabase', unique_key: 'metabase-fixed' });
      const res = await t.api('/connect/sessions', {
        method: 'POST',
        json: {
          end_user: { id: 'fixed-user' },
          allowed_integrations: ['metabase-fixed'],
          integrations_config_defaults: { 'metabase-fixed': { connection_config: { hostname: metabase.url } } },
        },
      });
      const session = (await expectJson<{ data: { connect_link: string } }>(res, 201)).data;
      await withBrowser('connect-ui-fixed-config', async (page) => {
        await page.goto(session.connect_link);
        await page.getByRole('heading', { name: 'Connect Metabase' }).waitFor();
        const domain = page.getByLabel('Metabase domain');
        assert.equal(await domain.inputValue(), metabase.url);
        assert.equal(await domain.evaluate((el) => (el as HTMLInputElement).readOnly), true, 'the developer’s value cannot be edited');
        await page.getByLabel('API key').fill('mb_fixed_key');
        await page.getByRole('button', { name: 'Connect', exact: true }).click();
        await page.getByRole('heading', { name: 'Connected' }).waitFor({ timeout: 15_000 });
      });
      const listed = await connections('metabase-fixed');
      assert.equal(listed.length, 1);
    } finally {
      await metabase.close();
    }
  });

  test('hosted Connect UI: the list of integrations shows logos and auth modes, and a search by name or a category narrows it', async () => {
    await createIntegration({ provider: 'github', unique_key: 'github-list' });
    await createIntegration({ provider: 'slack', unique_key: 'slack-list' });
    await createIntegration({ provider: 'metabase', unique_key: 'metabase-list', display_name: 'Company BI' });
    const session = await connectSession('list-user', ['gdrive', 'github-list', 'slack-list', 'metabase-list']);
    await withBrowser('connect-ui-list-search', async (page) => {
      await page.goto(session.connect_link);
      await page.getByRole('heading', { name: 'Connect an integration' }).waitFor();
      const list = page.getByRole('list', { name: 'Integrations' });
      const shown = async () => (await list.locator('li:visible').evaluateAll((els) => els.map((e) => e.getAttribute('data-key')!))).sort();
      const search = page.getByLabel('Search');
      const category = page.getByLabel('Category');
      // The heading is in the page before the integrations load, and each item's auth mode and categories
      // arrive with its own provider request: wait for all four before reading the list.
      for (const key of ['gdrive', 'github-list', 'metabase-list', 'slack-list']) {
        await list.locator(`li[data-key="${key}"] .details`).filter({ hasText: /\S/ }).waitFor();
      }
      assert.deepEqual(await shown(), ['gdrive', 'github-list', 'metabase-list', 'slack-list']);
      const metabase = list.locator('li[data-key="metabase-list"]');
      assert.match((await metabase.locator('img').getAttribute('src')) ?? '', /\/images\/logos\/metabase\.svg$/);
      assert.match((await metabase.textContent()) ?? '', /Company BI[\s\S]*API key[\s\S]*Analytics/);
      assert.match((await list.locator('li[data-key="gdrive"]').textContent()) ?? '', /Storage/);
      await page.screenshot({ path: `${outputDir}connect-ui-list.png` });

      await search.fill('sla');
      assert.deepEqual(await shown(), ['slack-list']);
      assert.equal(await page.locator('#list-count').textContent(), '1 of 4 integrations');
      // The display name and the provider's name both match.
      await search.fill('metabase');
      assert.deepEqual(await shown(), ['metabase-list']);
      await search.fill('bi');
      assert.deepEqual(await shown(), ['metabase-list']);
      await search.fill('');
      assert.deepEqual(await shown(), ['gdrive', 'github-list', 'metabase-list', 'slack-list']);
      await category.selectOption('dev-tools');
      assert.deepEqual(await shown(), ['github-list']);
      await search.fill('slack');
      assert.deepEqual(await shown(), []);
      assert.ok(await page.getByText('No integration matches').isVisible());
      await category.selectOption('');
      assert.deepEqual(await shown(), ['slack-list']);

      // The one left is opened from the keyboard; back on the list, the search is kept.
      await list.getByRole('button', { name: /Slack/ }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Connect Slack' }).waitFor();
      await page.getByRole('button', { name: 'Back to the list of integrations' }).click();
      await page.getByRole('heading', { name: 'Connect an integration' }).waitFor();
      assert.equal(await search.inputValue(), 'slack');
      assert.deepEqual(await shown(), ['slack-list']);
    });
  });

  test("hosted Connect UI: a connection-config field with choices is a select with the provider's default chosen; hidden and automated fields are not asked", async () => {
    const fake = await startGenericProviderFake({ clientId: 'c', clientSecret: 's', apiKey: 'k-regions' });
    try {
      const definition = {
        name: 'regions-api',
        display_name: 'Regions API',
        auth_mode: 'API_KEY',
        proxy: {
          base_url: 'https://api.${connectionConfig.region}.regions.test',
          query: { region: '${connectionConfig.region}' },
          verification: { method: 'GET', endpoints: ['/me'] },
        },
        connection_config: {
          region: { title: 'Region', description: 'Where the account is hosted', enum: ['us', 'eu', 'au'], default_value: 'us', order: 1 },
          workspace: { title: 'Workspace', prefix: 'https://', suffix: '.regions.test', optional: true, order: 2 },
          tenant: { title: 'Tenant', hidden: true, default_value: 'main' },
          'accounts-server': { title: '', automated: true },
        },
      };
      fake.define(definition as never);
      await expectJson(await t.api('/providers', { method: 'POST', json: definition }), 201);
      // The integration's base URL points at the fake; the region still goes in the query.
      await createIntegration({ provider: 'regions-api', unique_key: 'regions-api', integration_config: { base_url: `${fake.url}/api` } });
      const session = await connectSession('region-user', ['regions-api']);
      await withBrowser('connect-ui-region-select', async (page) => {
        await page.goto(session.connect_link);
        await page.getByRole('heading', { name: 'Connect Regions API' }).waitFor();
        const region = page.locator('[name="params.region"]');
        assert.equal(await region.evaluate((e) => e.tagName), 'SELECT');
        assert.deepEqual(await region.locator('option').allTextContents(), ['us', 'eu', 'au']);
        assert.equal(await region.inputValue(), 'us', "the provider's default is chosen");
        assert.equal(await page.getByText('.regions.test', { exact: true }).count(), 1, 'the suffix is shown beside the input');
        assert.equal(await page.getByLabel('Tenant').count(), 0, 'a hidden field is not asked');
        assert.equal(await page.locator('[name="params.accounts-server"]').count(), 0, 'an automated field is not asked');
        await region.selectOption('eu');
        await page.getByLabel('API key').fill('k-regions');
        await page.screenshot({ path: `${outputDir}connect-ui-region-select.png` });
        await page.getByRole('button', { name: 'Connect', exact: true }).click();
        await page.getByRole('heading', { name: 'Connected' }).waitFor({ timeout: 15_000 });
      });
      const [listed] = await connections('regions-api');
      assert.ok(listed);
      const config = (
        await expectJson<{ connection_config: Record<string, unknown> }>(
          await t.api(`/connections/${listed.connection_id}?provider_config_key=regions-api`),
          200,
        )
      ).connection_config;
      assert.equal(config.region, 'eu');
      assert.equal(config.tenant, 'main', 'the hidden field got its default');
      assert.equal(fake.requests.find((r) => r.path === '/api/me')?.query.region, 'eu');
    } finally {
      await fake.close();
    }
  });

  test('hosted Connect UI: an unknown session token says the link is invalid', async () => {
    await withBrowser('connect-ui-bad-token', async (page) => {
      await page.goto(`${t.url}/connect-ui/?session_token=nango_connect_session_${'0'.repeat(64)}`);
      await page.getByRole('alert').waitFor();
      assert.match((await page.getByRole('alert').textContent()) ?? '', /invalid or has expired/);
    });
  });

  test('embedded Connect UI (openConnectUI): OAuth from the iframe reaches onEvent as connect, then close', async () => {
    // A second integration, so the UI shows its list first.
    await createIntegration({ provider: 'metabase', unique_key: 'metabase-embedded' });
    const session = await connectSession('embed-user', ['gdrive', 'metabase-embedded']);
    const site = await startPageServer({
      '/': `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>App</title></head>
<body>
  <button id="open" type="button">Connect an app</button>
  <ul id="events"></ul>
  <script type="module">
    import { Switchyard } from ${js(`${t.url}/sdk.js`)};
    const sy = new Switchyard({ host: ${js(t.url)} });
    document.getElementById('open').addEventListener('click', () => {
      const ui = sy.openConnectUI({
        onEvent: (event) => {
          const li = document.createElement('li');
          li.dataset.type = event.type;
          li.textContent = JSON.stringify(event);
          document.getElementById('events').append(li);
        },
      });
      // The token arrives after the iframe was opened, as when the backend is asked for it on click.
      setTimeout(() => ui.setSessionToken(${js(session.token)}), 50);
    });
    document.body.dataset.ready = 'yes';
  </script>
</body></html>`,
    });
    try {
      await withBrowser('connect-ui-embedded', async (page) => {
        await page.goto(site.url);
        await page.waitForSelector('body[data-ready="yes"]');
        await page.click('#open');
        const ui = page.frameLocator('#connect-ui');
        await ui.getByRole('button', { name: /Google Drive/ }).click();
        await ui.getByRole('heading', { name: 'Connect Google Drive' }).waitFor();
        await page.screenshot({ path: `${outputDir}connect-ui-embedded-form.png` });
        const popupOpened = page.context().waitForEvent('page');
        await ui.getByRole('button', { name: 'Connect with Google Drive' }).click();
        const popup = await popupOpened;
        await popup.click('#approve');
        await ui.getByRole('heading', { name: 'Connected' }).waitFor({ timeout: 15_000 });
        await page.screenshot({ path: `${outputDir}connect-ui-embedded-success.png` });

        const connect = JSON.parse((await page.locator('#events li[data-type="connect"]').textContent()) ?? '') as {
          payload: { providerConfigKey: string; connectionId: string };
        };
        assert.equal(connect.payload.providerConfigKey, 'gdrive');
        await assertOAuthConnection(connect.payload.connectionId, 'embed-user');
        assert.equal(await page.locator('#events li[data-type="ready"]').count(), 1);

        await ui.getByRole('button', { name: 'Done' }).click();
        await page.locator('#events li[data-type="close"]').waitFor();
        await page.locator('#connect-ui').waitFor({ state: 'detached' });
      });
    } finally {
      await site.close();
    }
  });
});
