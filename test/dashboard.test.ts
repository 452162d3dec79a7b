/**
 * End-to-end browser tests of the developer dashboard (/dashboard) in headless Chromium: sign-in,
 * creating an integration from the provider grid, an integration's Authorization and Endpoints tabs,
 * the endpoints answering through the API, pausing a sync, logs and runs, webhook settings and
 * replaying a dead delivery; and the refusals (wrong key, expired session, forged form posts).
 * Screenshots of each page go to test-output/; those of the charts, the live tail and the provider
 * grid also to SWITCHYARD_SCREENSHOT_DIR when it is set.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { syncScheduleId } from '../workflows/contracts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const outputDir = fileURLToPath(new URL('../test-output/', import.meta.url));
/** Where the charts' and the live tail's screenshots are kept as well (e.g. for a pull request); unset: nowhere else. */
const screenshotDir = process.env.SWITCHYARD_SCREENSHOT_DIR;
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const API_KEY = 'mb_dashboard=';
const TEMPORAL_UI = 'http://temporal-ui.example:8080';
// The platform runs in this process: the dashboard reads this for its Temporal UI links.
process.env.SWITCHYARD_TEMPORAL_UI_URL = TEMPORAL_UI;
process.env.SWITCHYARD_WEBHOOK_INITIAL_BACKOFF_MS = '100';

/** The developer's backend: answers every webhook with `status` (changeable). */
async function startReceiver() {
  const received: { path: string; answered: number }[] = [];
  let status = 400;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ path: req.url ?? '/', answered: status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : `no (${status})`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer: (s: number) => {
      status = s;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Another site's page, for the forged form posts. */
async function startPageServer(html: string) {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const unified = (connectionId: string) => ({ 'connection-id': connectionId, 'provider-config-key': 'metabase' });

describe('developer dashboard', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const logs: string[] = [];

  const shot = (name: string) => page.screenshot({ path: `${outputDir}dashboard-${name}.png`, fullPage: true });
  /** A screenshot of `target` (default: the whole page; `viewport`: what the window shows) in test-output/ and, when set, SWITCHYARD_SCREENSHOT_DIR. */
  async function evidence(name: string, target?: Locator | 'viewport'): Promise<void> {
    for (const dir of [outputDir, screenshotDir].filter((d): d is string => Boolean(d))) {
      const path = join(dir, `dashboard-${name}.png`);
      await (target && target !== 'viewport' ? target.screenshot({ path }) : page.screenshot({ path, fullPage: !target }));
    }
  }
  const db = () => t.platform.deps.db;

  async function connect(connectionId: string): Promise<void> {
    await addMetabaseConnection(t, metabase.url, API_KEY, {
      connectionId,
      extra: {
        end_user: { id: `user-${connectionId}`, email: `${connectionId}@example.com`, display_name: `End user ${connectionId}` },
        tags: { team: 'growth' },
      },
    });
  }

  async function cookieHeader(): Promise<string> {
    return (await context.cookies(`${t.url}/dashboard/`)).map((c) => `${c.name}=${c.value}`).join('; ');
  }

  /** Clicks a link or submit button and waits for the page it leads to (after any redirect). */
  async function navigate(target: Locator): Promise<void> {
    await Promise.all([page.waitForNavigation(), target.click()]);
  }

  async function expectNotice(text: string | RegExp) {
    const notice = page.locator('.notice');
    await notice.waitFor();
    assert.match((await notice.textContent()) ?? '', typeof text === 'string' ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : text);
  }

  before(async () => {
    mkdirSync(outputDir, { recursive: true });
    if (screenshotDir) mkdirSync(screenshotDir, { recursive: true });
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    metabase.addUser({ email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper' });
    receiver = await startReceiver();
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    page = await context.newPage();
    page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
    await metabase?.close();
    await receiver?.close();
  });

  test('a wrong key is refused; the dev key signs in with a session cookie that is not the key', async () => {
    await page.goto(`${t.url}/dashboard`);
    assert.match(page.url(), /\/dashboard\/sign-in$/);
    await shot('sign-in');

    for (const wrong of [crypto.randomUUID(), 'not-a-key']) {
      await page.getByLabel('Secret key').fill(wrong);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/dashboard/sign-in') && r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      assert.equal(res.status(), 401);
      await expectNotice('does not match any environment');
    }
    assert.equal((await context.cookies(`${t.url}/dashboard/`)).filter((c) => c.name.startsWith('sy_dash_dev')).length, 0);

    await page.getByLabel('Secret key').fill(t.devKey);
    await navigate(page.getByRole('button', { name: 'Sign in' }));
    await page.waitForURL(/\/dashboard\/dev\/integrations$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Integrations');

    const cookie = (await context.cookies(`${t.url}/dashboard/`)).find((c) => c.name === 'sy_dash_dev');
    assert.ok(cookie, 'session cookie set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(cookie.path, '/dashboard');
    assert.notEqual(cookie.value, t.devKey);
    const rows = (await db().query('SELECT * FROM dashboard_sessions')).rows;
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(t.devKey), 'the key is not stored');
    assert.ok(!JSON.stringify(rows).includes(cookie.value), 'only a hash of the session id is stored');
    assert.ok(rows[0].expires_at > new Date());
  });

  test('finding a provider: search by name and a category narrow the grid (with and without JavaScript); an entry opens the create form with it chosen, and creating works', async () => {
    const all = ((await (await t.api('/providers')).json()) as Json).data as { name: string; display_name: string; categories: string[]; auth_mode: string }[];
    const expected = (q: string, category = '') =>
      all
        .filter((p) => (!q || p.name.includes(q) || p.display_name.toLowerCase().includes(q)) && (!category || p.categories.includes(category)))
        .map((p) => p.name)
        .sort();
    const gridOf = (p: Page) => p.getByRole('list', { name: 'Providers' });
    const shown = async (p: Page = page) =>
      (
        await gridOf(p)
          .locator('li:visible')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-provider')!))
      ).sort();
    const count = (p: Page = page) => p.locator('#provider-count').textContent();

    await page.goto(`${t.url}/dashboard/dev/integrations`);
    await navigate(page.getByRole('link', { name: 'Create an integration' }));
    await page.waitForURL(/\/dashboard\/dev\/integrations\/new$/);
    assert.deepEqual(await shown(), expected(''));
    assert.equal(await count(), `${all.length} providers`);
    // Each entry shows its logo, name, auth mode and categories.
    const github = gridOf(page).locator('li[data-provider="github"]');
    assert.equal(await github.locator('img').getAttribute('src'), '/images/logos/github.svg');
    assert.match((await github.textContent()) ?? '', /GitHub[\s\S]*OAuth 2[\s\S]*Dev tools/);
    await evidence('provider-grid', 'viewport');

    // Typing narrows the grid at once (no page load), and the address keeps the search.
    await page.getByLabel('Search by name').fill('git');
    const git = expected('git');
    assert.ok(git.includes('github') && git.includes('gitlab') && git.length < all.length, git.join());
    assert.deepEqual(await shown(), git);
    assert.equal(await count(), `${git.length} of ${all.length} providers`);
    assert.match(page.url(), /\/integrations\/new\?q=git$/);

    await page.getByLabel('Category').selectOption('dev-tools');
    assert.deepEqual(await shown(), expected('git', 'dev-tools'));
    await page.getByLabel('Search by name').fill('');
    const devTools = expected('', 'dev-tools');
    assert.ok(devTools.length > 2 && devTools.length < all.length);
    assert.deepEqual(await shown(), devTools);
    assert.equal(await page.getByLabel('Category').locator('option:checked').textContent(), `Dev tools (${devTools.length})`);
    await page.getByLabel('Search by name').fill('no provider is called this');
    assert.deepEqual(await shown(), []);
    assert.match((await page.locator('#provider-none').textContent()) ?? '', /No provider matches/);
    assert.ok(await page.locator('#provider-none').isVisible());

    // Without JavaScript the same form filters through the query string.
    const noJs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1366, height: 860 } });
    try {
      await noJs.addCookies(await context.cookies(`${t.url}/dashboard/`));
      const plain = await noJs.newPage();
      await plain.goto(`${t.url}/dashboard/dev/integrations/new?q=git&category=dev-tools`);
      assert.deepEqual(await shown(plain), expected('git', 'dev-tools'));
      assert.equal(await plain.getByLabel('Search by name').inputValue(), 'git');
      await plain.getByLabel('Search by name').fill('Slack');
      await plain.getByLabel('Category').selectOption('');
      await Promise.all([plain.waitForNavigation(), plain.getByRole('button', { name: 'Filter' }).click()]);
      assert.deepEqual(await shown(plain), expected('slack'));
      assert.equal(await count(plain), `${expected('slack').length} of ${all.length} providers`);
      await Promise.all([plain.waitForNavigation(), gridOf(plain).locator('li[data-provider="slack"] a').click()]);
      assert.equal(await plain.locator('input[name="provider"]').inputValue(), 'slack');
    } finally {
      await noJs.close();
    }

    // An entry is a link: Enter on it opens the create form with that provider chosen.
    await page.getByLabel('Search by name').fill('GitHub');
    await page.getByLabel('Category').selectOption('');
    await github.locator('a').focus();
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await page.waitForURL(/\/dashboard\/dev\/integrations\/new\?provider=github$/);
    const chosen = page.getByRole('region', { name: 'Create a GitHub integration' });
    assert.match((await chosen.textContent()) ?? '', /OAuth 2/);
    assert.equal(await chosen.locator('input[name="provider"]').inputValue(), 'github');
    assert.equal(await page.getByLabel('Unique key').inputValue(), 'github', "the provider's name is the suggested key");
    await shot('create-integration');
    await navigate(page.getByRole('button', { name: 'Create integration' }));
    await page.waitForURL(/\/dashboard\/dev\/integrations\/github\/endpoints\?notice=integration-created$/);
    await expectNotice('Integration created.');
    const created = ((await (await t.api('/integrations/github')).json()) as Json).data;
    assert.equal(created.provider, 'github');
    // Once taken, the suggested key is another.
    await page.goto(`${t.url}/dashboard/dev/integrations/new?provider=github`);
    assert.equal(await page.getByLabel('Unique key').inputValue(), 'github-2');
    await page.goto(`${t.url}/dashboard/dev/integrations/new?provider=no-such-provider`);
    await expectNotice('Choose a provider from the catalogue.');
    assert.deepEqual(await shown(), expected(''));
    assert.ok(!logs.some((l) => l.startsWith('pageerror')), logs.join('\n'));
  });

  /** Opens the create form of `provider` from the grid, searching for its display name. */
  async function chooseProvider(displayName: string, provider: string): Promise<void> {
    await page.goto(`${t.url}/dashboard/dev/integrations/new`);
    await page.getByLabel('Search by name').fill(displayName);
    await navigate(page.getByRole('list', { name: 'Providers' }).locator(`li[data-provider="${provider}"] a`));
  }

  test('create a Metabase integration; the Authorization tab shows the callback URL with a copy button', async () => {
    await chooseProvider('Metabase', 'metabase');
    await page.getByLabel('Unique key').fill('metabase');
    await navigate(page.getByRole('button', { name: 'Create integration' }));
    await page.waitForURL(/\/dashboard\/dev\/integrations\/metabase\/endpoints\?notice=integration-created$/);
    await expectNotice('Integration created.');

    // A second one with the same key is refused with the reason, the provider still chosen.
    await chooseProvider('Metabase', 'metabase');
    await page.getByLabel('Unique key').fill('metabase');
    await navigate(page.getByRole('button', { name: 'Create integration' }));
    await expectNotice('already exists');
    assert.equal(await page.locator('input[name="provider"]').inputValue(), 'metabase');
    await page.goto(`${t.url}/dashboard/dev/integrations`);
    await page.getByRole('link', { name: 'Metabase' }).first().waitFor();
    await shot('integrations');

    await navigate(page.getByRole('link', { name: 'Metabase' }).first());
    await page.waitForURL(/\/integrations\/metabase\/authorization$/);
    const callback = page.getByLabel('Callback URL');
    assert.equal(await callback.inputValue(), `${t.config.publicUrl}/oauth/callback`);
    await page.getByRole('button', { name: 'Copy Callback URL' }).click();
    await waitFor('the copy confirmation', async () => ((await page.locator('[data-copy-status="callback-url"]').textContent()) ?? '').length > 0);
    assert.equal(await page.locator('[data-copy-status="callback-url"]').textContent(), 'Copied');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${t.config.publicUrl}/oauth/callback`);
    await shot('integration-authorization');
  });

  test('providers: the catalogue and your own are listed; one is created from pasted YAML, shown, offered for integrations, and deleted', async () => {
    await navigate(page.getByRole('link', { name: 'Providers', exact: true }));
    await page.waitForURL(/\/dashboard\/dev\/providers$/);
    const catalogue = page.getByRole('table', { name: 'Catalogue' });
    await catalogue.getByRole('link', { name: 'GitHub', exact: true }).waitFor();
    assert.ok((await catalogue.locator('tbody tr').count()) >= 100);

    // A bad field is refused naming it; the pasted text stays in the form.
    const bad = [
      'name: acme-dash',
      'display_name: Acme',
      'auth_mode: SAML',
      'proxy:',
      '  base_url: https://acme.example.com',
      'docs: https://example.com/docs',
    ].join('\n');
    await page.getByLabel('Definition (YAML or JSON)').fill(bad);
    await navigate(page.getByRole('button', { name: 'Create provider' }));
    await expectNotice(/auth_mode/);
    assert.equal(await page.getByLabel('Definition (YAML or JSON)').inputValue(), bad);
    // A catalogue name is refused.
    await page.getByLabel('Definition (YAML or JSON)').fill(bad.replace('SAML', 'API_KEY').replace('acme-dash', 'github'));
    await navigate(page.getByRole('button', { name: 'Create provider' }));
    await expectNotice(/catalogue provider/);

    await page
      .getByLabel('Definition (YAML or JSON)')
      .fill(
        bad
          .replace('SAML', 'API_KEY')
          .replace('auth_mode', 'future_key: 1\nauth_mode')
          .replace(
            'base_url: https://acme.example.com',
            'base_url: https://${connectionConfig.sub}.acme.example.com\nconnection_config:\n  sub:\n    title: Subdomain',
          ),
      );
    await navigate(page.getByRole('button', { name: 'Create provider' }));
    await page.waitForURL(/\/dashboard\/dev\/providers\/acme-dash\?notice=provider-created-with-warnings$/);
    await expectNotice('Some keys are unknown');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Acme');
    assert.match((await page.locator('.facts').textContent()) ?? '', /defined in dev[\s\S]*API key[\s\S]*\$\{connectionConfig\.sub\}\.acme\.example\.com/);
    await shot('provider');
    assert.equal((await (await t.api('/providers/acme-dash')).json()).data.source, 'user');
    assert.equal((await t.api('/providers/acme-dash', { key: t.prodKey })).status, 404);

    await page.goto(`${t.url}/dashboard/dev/providers`);
    await page.getByRole('table', { name: 'Your providers' }).getByRole('link', { name: 'Acme' }).waitFor();
    await shot('providers');
    await page.goto(`${t.url}/dashboard/dev/integrations/new?q=acme`);
    assert.match(
      (await page.getByRole('list', { name: 'Providers' }).locator('li[data-provider="acme-dash"]').textContent()) ?? '',
      /Acme[\s\S]*API key[\s\S]*yours/,
    );

    await page.goto(`${t.url}/dashboard/dev/providers/acme-dash`);
    await navigate(page.getByRole('button', { name: 'Delete provider' }));
    await page.waitForURL(/\/dashboard\/dev\/providers\?notice=provider-deleted$/);
    await expectNotice('Provider deleted.');
    assert.equal((await t.api('/providers/acme-dash')).status, 404);
    await page.goto(`${t.url}/dashboard/dev/integrations`);
  });

  test('the Authorization tab of an OAuth integration never shows secrets back in full', async () => {
    const res = await t.api('/integrations', { method: 'POST', json: { provider: 'slack', unique_key: 'slack' } });
    assert.equal(res.status, 200);
    await page.goto(`${t.url}/dashboard/dev/integrations/slack/authorization`);
    await page.getByLabel('Client ID').fill('client-123');
    await page.getByLabel('Client secret').fill('super-secret-value-9876');
    await page.getByLabel('Scopes').fill('chat:write, users:read');
    await page.getByLabel('Webhook secret').fill('hook-secret-5555');
    await navigate(page.getByRole('button', { name: 'Save credentials' }));
    await expectNotice('Credentials saved.');
    const html = await page.content();
    assert.ok(!html.includes('super-secret-value-9876') && !html.includes('hook-secret-5555'), 'secrets are not in the page');
    assert.match(html, /\*+9876/);
    assert.equal(await page.getByLabel('Client secret').inputValue(), '');
    // Saving again with the secret left blank keeps it.
    await page.getByLabel('Client ID').fill('client-456');
    await navigate(page.getByRole('button', { name: 'Save credentials' }));
    await expectNotice('Credentials saved.');
    const stored = ((await (await t.api('/integrations/slack?include=credentials')).json()) as Json).data.credentials;
    assert.deepEqual(stored, {
      type: 'OAUTH2',
      client_id: 'client-456',
      client_secret: 'super-secret-value-9876',
      scopes: 'chat:write,users:read',
      webhook_secret: 'hook-secret-5555',
    });
  });

  test("the Authorization tab shows the integration's webhook verification secret and rotates it", async () => {
    const secretOf = async () => (((await (await t.api('/integrations/slack/webhook-secret')).json()) as Json).data as Json).webhook_secret as string;
    await page.goto(`${t.url}/dashboard/dev/integrations/slack/authorization`);
    const first = await secretOf();
    assert.equal(await page.getByLabel('Verification secret').inputValue(), first);
    assert.match(await page.getByLabel('Verification URL (ends with the secret)').inputValue(), new RegExp(`/webhook/[0-9a-f-]{36}/slack/${first}$`));
    await navigate(page.getByRole('button', { name: 'Rotate webhook secret' }));
    await expectNotice(/Webhook secret rotated/);
    const second = await secretOf();
    assert.notEqual(second, first);
    assert.equal(await page.getByLabel('Verification secret').inputValue(), second);
  });

  test('activate two endpoints in the Endpoints tab; they answer through the API while a deactivated one answers 404', async () => {
    await page.goto(`${t.url}/dashboard/dev/integrations/metabase/endpoints`);
    const createUser = page.getByRole('switch', { name: 'Activate POST /users', exact: true });
    const fetchUser = page.getByRole('switch', { name: 'Activate GET /users/single', exact: true });
    assert.equal(await createUser.isChecked(), false);
    // Keyboard: focus the switch and toggle it with Space.
    await createUser.focus();
    await page.keyboard.press('Space');
    await fetchUser.check();
    await navigate(page.getByRole('button', { name: 'Save endpoints' }));
    await expectNotice('Endpoints saved.');
    assert.equal(await page.getByRole('switch', { name: 'Activate POST /users', exact: true }).isChecked(), true);
    assert.equal(await page.getByRole('switch', { name: 'Activate GET /users/single', exact: true }).isChecked(), true);
    assert.equal(await page.getByRole('switch', { name: 'Activate PUT /users', exact: true }).isChecked(), false);
    await shot('integration-endpoints');

    const tab = ((await (await t.api('/integrations/metabase/endpoints')).json()) as Json).data as Json[];
    assert.deepEqual(
      tab.filter((e) => e.enabled).map((e) => `${e.method} ${e.path}`),
      ['POST /users', 'GET /users/single'],
    );

    await connect('acme');
    const created = await t.api('/users', {
      method: 'POST',
      headers: unified('acme'),
      json: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    });
    assert.equal(created.status, 200, await created.clone().text());
    const user = (await created.json()) as Json;
    assert.equal(user.email, 'ada@example.com');
    const fetched = await t.api(`/users/single?id=${user.id}`, { headers: unified('acme') });
    assert.equal(fetched.status, 200, await fetched.clone().text());
    assert.equal(((await fetched.json()) as Json).firstName, 'Ada');
    const deactivated = await t.api('/users', { method: 'PUT', headers: unified('acme'), json: { id: user.id, firstName: 'X' } });
    assert.equal(deactivated.status, 404);
    assert.equal(((await deactivated.json()) as Json).error.code, 'endpoint_not_enabled');
  });

  test('pause a sync from the connection page: its Temporal schedule is paused; the records browser pages', async () => {
    for (let i = 0; i < 120; i++) metabase.addUser({ email: `bulk${i}@example.com`, first_name: `Bulk${i}`, last_name: 'User' });
    await page.goto(`${t.url}/dashboard/dev/integrations/metabase/endpoints`);
    await page.getByRole('switch', { name: 'Activate GET /users', exact: true }).check();
    await navigate(page.getByRole('button', { name: 'Save endpoints' }));
    await expectNotice('Endpoints saved.');
    const conn = (await db().query(`SELECT id FROM connections WHERE connection_id = 'acme'`)).rows[0];
    await waitFor('the first sync run', async () => {
      const { rows } = await db().query(`SELECT last_status FROM sync_states WHERE connection_pk = $1 AND sync_name = 'users'`, [conn.id]);
      return rows[0]?.last_status === 'SUCCESS';
    });

    await page.goto(`${t.url}/dashboard/dev/connections`);
    const row = page.getByRole('row', { name: /acme/ });
    assert.match((await row.textContent()) ?? '', /End user acme/);
    assert.match((await row.textContent()) ?? '', /team=growth/);
    await shot('connections');
    await navigate(page.getByRole('link', { name: 'acme', exact: true }));
    await page.waitForURL(/\/dashboard\/dev\/connections\/metabase\/acme$/);
    const syncRow = page.locator('tr[data-sync="users"]');
    assert.match((await syncRow.textContent()) ?? '', /scheduled/);
    assert.match((await syncRow.textContent()) ?? '', /User: \+\d+/);

    const schedule = t.platform.deps.temporal.schedule.getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'acme', 'users'));
    assert.equal((await schedule.describe()).state.paused, false);
    await navigate(page.getByRole('button', { name: 'Pause users' }));
    await expectNotice('Sync paused.');
    assert.equal((await schedule.describe()).state.paused, true);
    assert.match((await page.locator('tr[data-sync="users"]').textContent()) ?? '', /paused/);
    const state = (await db().query(`SELECT status FROM sync_states WHERE connection_pk = $1 AND sync_name = 'users'`, [conn.id])).rows[0];
    assert.equal(state.status, 'PAUSED');

    // Frequency override: a bad value is refused with the reason; a good one is saved, still paused.
    await page.getByLabel('Frequency of users').fill('every now and then');
    await navigate(page.getByRole('button', { name: 'Set frequency of users' }));
    await expectNotice(/Sync interval is invalid/);
    await page.getByLabel('Frequency of users').fill('every 2 hours');
    await navigate(page.getByRole('button', { name: 'Set frequency of users' }));
    await expectNotice('Frequency saved.');
    assert.equal(await page.getByLabel('Frequency of users').inputValue(), 'every 2 hours');
    assert.equal((await schedule.describe()).state.paused, true);

    // Records browser: 25 per page, a next page, all users eventually.
    const records = page.locator('table.records tbody tr');
    assert.equal(await records.count(), 25);
    const firstPage = await page.locator('table.records').textContent();
    await navigate(page.getByRole('link', { name: 'Next page →' }));
    const secondCount = await page.locator('table.records tbody tr').count();
    assert.ok(secondCount > 0);
    assert.notEqual(await page.locator('table.records').textContent(), firstPage);
    const total = (await db().query(`SELECT count(*)::int AS n FROM records WHERE connection_pk = $1 AND model = 'User'`, [conn.id])).rows[0].n;
    assert.equal(25 + secondCount, Math.min(total, 50));
    await navigate(page.getByRole('link', { name: '← First page' }));
    assert.match((await page.locator('section[aria-labelledby="requests-heading"]').textContent()) ?? '', /\/api\/user/);
    await shot('connection');
  });

  test('request logs and runs are filterable; a run shows its HTTP calls in order, with a Temporal UI link', async () => {
    await page.goto(`${t.url}/dashboard/dev/logs`);
    await page.getByLabel('Kind').selectOption('action');
    await navigate(page.getByRole('button', { name: 'Filter' }));
    await page.waitForURL(/kind=action/);
    const kinds = await page.locator('table.logs tbody tr td:nth-child(2)').allTextContents();
    assert.ok(kinds.length > 0);
    assert.ok(kinds.every((k) => k === 'action'));
    await shot('logs');

    await page.goto(`${t.url}/dashboard/dev/runs`);
    const runRows = page.locator('table tbody tr');
    assert.ok((await runRows.count()) >= 3, 'two action runs and a sync run');
    const temporal = await page
      .getByRole('link', { name: /Temporal UI/ })
      .first()
      .getAttribute('href');
    assert.ok(temporal?.startsWith(`${TEMPORAL_UI}/namespaces/default/workflows/`), temporal ?? 'no link');
    await shot('runs');

    await page.getByLabel('Kind').selectOption('sync');
    await navigate(page.getByRole('button', { name: 'Filter' }));
    await page.waitForURL(/kind=sync/);
    const syncLink = page.getByRole('link', { name: /sync users run/ }).last();
    await navigate(syncLink);
    await page.waitForURL(/\/runs\/view\?kind=sync/);
    const runId = new URL(page.url()).searchParams.get('id')!;
    const href = await page.getByRole('link', { name: /Temporal UI/ }).getAttribute('href');
    const workflowId = runId.slice(0, runId.lastIndexOf('/'));
    assert.equal(href, `${TEMPORAL_UI}/namespaces/default/workflows/${encodeURIComponent(workflowId)}/${runId.slice(runId.lastIndexOf('/') + 1)}/history`);
    const calls = await page.locator('table.logs tbody tr').allTextContents();
    const expected = (await db().query(`SELECT url FROM request_logs WHERE run_id = $1 ORDER BY created_at, id`, [runId])).rows.map((r) => r.url as string);
    assert.ok(expected.length >= 2, 'the sync pages through the users');
    assert.match(expected[0]!, /offset=0/);
    assert.match(expected[1]!, /offset=100/);
    assert.equal(calls.length, expected.length);
    calls.forEach((text, i) => {
      assert.ok(text.startsWith(String(i + 1)), `row ${i + 1} numbered`);
      assert.ok(text.includes(expected[i]!), `call ${i + 1} is ${expected[i]}`);
    });
    await shot('run');
  });

  test("activity charts: 14 days of success/failure bars on the home page and per integration; a bar opens that day's runs", async () => {
    // Three action runs three days ago (two succeeded, one failed), on a connection made earlier.
    const env = (await db().query(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0].id as number;
    const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    for (const [n, status] of (['success', 'success', 'failed'] as const).entries()) {
      await db().query(
        `INSERT INTO action_runs (id, environment_id, integration, connection_id, action_name, status, created_at, finished_at)
         VALUES (gen_random_uuid(), $1, 'metabase', 'conn-chart', $2, $3, $4::date + interval '10 hours', $4::date + interval '10 hours 1 second')`,
        [env, `chart-action-${n}`, status, day],
      );
    }
    const bars = async () =>
      Object.fromEntries(
        await page
          .locator('svg.activity a.bar')
          .evaluateAll((els) => els.map((e) => [`${e.getAttribute('data-day')} ${e.getAttribute('class')}`, Number(e.getAttribute('data-count'))])),
      ) as Record<string, number>;

    await page.goto(`${t.url}/dashboard/dev/integrations/metabase/authorization`);
    const chart = await bars();
    assert.equal(chart[`${day} bar bar-success`], 2);
    assert.equal(chart[`${day} bar bar-error`], 1);
    // Today: the runs earlier tests made, counted the way the runs list counts them.
    const today = new Date().toISOString().slice(0, 10);
    const finishedToday = (
      await db().query(
        `SELECT (SELECT count(*) FROM action_runs WHERE integration = 'metabase' AND status IN ('success', 'failed') AND created_at::date = $1::date)
              + (SELECT count(*) FROM sync_runs r JOIN connections c ON c.id = r.connection_pk JOIN integrations i ON i.id = c.integration_id
                  WHERE i.unique_key = 'metabase' AND r.status IN ('SUCCESS', 'ERROR') AND r.started_at::date = $1::date) AS n`,
        [today],
      )
    ).rows[0].n as string;
    assert.equal((chart[`${today} bar bar-success`] ?? 0) + (chart[`${today} bar bar-error`] ?? 0), Number(finishedToday));
    assert.equal(await page.locator('svg.activity g').count(), 14);
    await evidence('chart-integration', page.locator('figure.chart').first());

    await page.goto(`${t.url}/dashboard/dev/integrations`);
    const home = await bars();
    assert.equal(home[`${day} bar bar-success`], 2);
    assert.equal(home[`${day} bar bar-error`], 1);
    await evidence('chart-home');

    await navigate(page.locator(`svg.activity a.bar-error[data-day="${day}"]`));
    const url = new URL(page.url());
    assert.equal(url.pathname, '/dashboard/dev/runs');
    assert.equal(url.searchParams.get('day'), day);
    assert.equal(url.searchParams.get('status'), 'error');
    const rows = await page.locator('table tbody tr').allTextContents();
    assert.equal(rows.length, 1);
    assert.match(rows[0]!, /chart-action-2/);
    await shot('chart-filtered-runs');
  });

  /** The bars of the chart `figure`: `<day> <series>` → the count it shows. */
  async function chartBars(figure: Locator): Promise<Record<string, number>> {
    return Object.fromEntries(
      await figure
        .locator('.bar')
        .evaluateAll((els) =>
          els.map((e) => [`${e.getAttribute('data-day')} ${e.getAttribute('class')!.replace('bar bar-', '')}`, Number(e.getAttribute('data-count'))]),
        ),
    ) as Record<string, number>;
  }

  test('per sync: records added, updated and deleted each day, from its runs on every connection', async () => {
    await connect('records-chart');
    const { rows } = await db().query(
      `SELECT c.id FROM connections c JOIN integrations i ON i.id = c.integration_id JOIN environments e ON e.id = c.environment_id
        WHERE e.name = 'dev' AND i.unique_key = 'metabase' ORDER BY c.id LIMIT 2`,
    );
    assert.equal(rows.length, 2);
    const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const runs: [number, string, Json][] = [
      [rows[0].id, 'chart-users', { User: { added: 5, updated: 2, deleted: 1 }, Group: { added: 1, updated: 0, deleted: 0 } }],
      [rows[1].id, 'chart-users', { User: { added: 3, updated: 0, deleted: 4 } }],
      [rows[1].id, 'chart-groups', { Group: { added: 0, updated: 6, deleted: 0 } }],
    ];
    for (const [n, [pk, sync, results]] of runs.entries()) {
      await db().query(
        `INSERT INTO sync_runs (id, connection_pk, sync_name, mode, status, results, started_at, finished_at)
         VALUES ($1, $2, $3, 'incremental', $4, $5, $6::date + interval '9 hours', $6::date + interval '9 hours 5 seconds')`,
        [`chart-run-${n}`, pk, sync, n === 2 ? 'ERROR' : 'SUCCESS', JSON.stringify(results), day],
      );
    }
    await page.goto(`${t.url}/dashboard/dev/integrations/metabase/authorization`);
    const users = page.locator('figure.chart[data-sync="chart-users"]');
    const usersBars = await chartBars(users);
    assert.equal(usersBars[`${day} added`], 9);
    assert.equal(usersBars[`${day} updated`], 2);
    assert.equal(usersBars[`${day} deleted`], 5);
    assert.equal(await users.locator('svg.records g.day').count(), 14);
    assert.match((await users.locator('figcaption').textContent()) ?? '', /9 added, 2 updated, 5 deleted/);
    const groups = await chartBars(page.locator('figure.chart[data-sync="chart-groups"]'));
    assert.deepEqual(groups, { [`${day} updated`]: 6 }, 'zero draws no bar; a failed run still changed records');
    await evidence('chart-sync-records', users);
  });

  test('webhook latency: median and 95th percentile from event to receipt per day, replays and dead ones left out', async () => {
    const env = (await db().query(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0].id as number;
    const day = new Date(Date.now() - 4 * 86_400_000).toISOString().slice(0, 10);
    const deliver = async (ms: number | null, replayOf: string | null = null): Promise<string> => {
      const event = await db().query(
        `INSERT INTO events (environment_id, type, payload, created_at) VALUES ($1, 'auth', '{}', $2::date + interval '8 hours') RETURNING id`,
        [env, day],
      );
      const { rows } = await db().query(
        `INSERT INTO webhook_deliveries (id, environment_id, event_id, url, type, body, status, replay_of, created_at, delivered_at)
         VALUES (gen_random_uuid(), $1, $2, 'http://127.0.0.1:1/latency', 'auth', '{}', $3, $4,
                 $5::date + interval '8 hours', $5::date + interval '8 hours' + make_interval(secs => $6::float8 / 1000)) RETURNING id`,
        [env, event.rows[0].id, ms === null ? 'dead' : 'delivered', replayOf, day, ms ?? 0],
      );
      return rows[0].id as string;
    };
    const first = await deliver(100);
    await deliver(200);
    await deliver(1000);
    await deliver(null);
    await deliver(3_600_000, first);
    await page.goto(`${t.url}/dashboard/dev/webhooks`);
    const chart = page.locator('figure.chart:has(svg.latency)');
    const bars = await chartBars(chart);
    // percentile_cont over 100, 200, 1000 ms: the median is 200; the 95th percentile 200 + 0.9 × 800.
    assert.equal(bars[`${day} p50`], 200);
    assert.equal(bars[`${day} p95`], 920);
    assert.equal(await chart.locator('svg.latency g.day').count(), 14);
    await evidence('chart-webhook-latency', chart);
  });

  test('live tail: a proxied call and the run of an action appear in the open Logs page, filtered by connection, without a reload', async () => {
    await connect('tail-other');
    await page.goto(`${t.url}/dashboard/dev/logs?integration=metabase&connection_id=acme`);
    await page.locator('.live.live-on').waitFor();
    const rowsBefore = await page.locator('table.logs tbody tr').count();
    let reloaded = false;
    page.once('load', () => (reloaded = true));

    const proxy = (connectionId: string) => t.api('/proxy/api/user/current', { headers: { 'connection-id': connectionId, 'provider-config-key': 'metabase' } });
    const other = await proxy('tail-other');
    assert.equal(other.status, 200, await other.clone().text());
    assert.equal((await proxy('acme')).status, 200);
    const fresh = page.locator('table.logs tbody tr.fresh');
    await fresh.first().waitFor();
    assert.equal(await fresh.count(), 1, 'only the call of the connection the page filters on');
    assert.match((await fresh.textContent()) ?? '', /\/api\/user\/current[\s\S]*acme/);
    assert.equal(await page.locator('table.logs tbody tr').count(), rowsBefore + 1);

    const action = await t.api('/action/trigger', {
      method: 'POST',
      headers: unified('acme'),
      json: { action_name: 'create-user', input: { email: 'tail@example.com', firstName: 'Tail', lastName: 'Test' } },
    });
    assert.equal(action.status, 200, await action.clone().text());
    const run = page.locator('#live-runs li', { hasText: 'create-user' });
    await run.waitFor();
    await page.locator('#live-runs li', { hasText: 'success' }).waitFor();
    assert.equal(reloaded, false, 'the page was not reloaded');
    await evidence('live-tail');
  });

  test('webhook settings; a dead delivery is replayed from the deliveries list once the backend answers 200', async () => {
    await page.goto(`${t.url}/dashboard/dev/webhooks`);
    await page.getByLabel('Webhook URL', { exact: true }).fill('ftp://example.com/hook');
    await navigate(page.getByRole('button', { name: 'Save settings' }));
    await expectNotice(/Webhook URL: must be an http\(s\) URL/);
    await page.getByLabel('Webhook URL', { exact: true }).fill(`${receiver.url}/hook`);
    await page.getByLabel('Alert channel URL').fill(`${receiver.url}/alerts`);
    await page.getByLabel('Sync: records changed').uncheck();
    await page.getByLabel('Max requests per second per URL').fill('2.5');
    await navigate(page.getByRole('button', { name: 'Save settings' }));
    await expectNotice('Webhook settings saved.');
    const env = ((await (await t.api('/environment')).json()) as Json).data;
    assert.equal(env.webhook_max_per_second, 2.5);
    assert.equal(await page.getByLabel('Max requests per second per URL').inputValue(), '2.5');
    assert.equal(env.webhook_url, `${receiver.url}/hook`);
    assert.equal(env.alert_webhook_url, `${receiver.url}/alerts`);
    assert.equal(env.webhook_events.sync, false);
    assert.equal(env.webhook_events.auth, true);

    const keyBefore = env.webhook_signing_key as string;
    await navigate(page.getByRole('button', { name: 'Rotate signing key' }));
    await expectNotice('Signing key rotated.');
    const keyAfter = ((await (await t.api('/environment')).json()) as Json).data.webhook_signing_key as string;
    assert.notEqual(keyAfter, keyBefore);
    assert.ok(!(await page.content()).includes(keyBefore));

    receiver.answer(400);
    await connect('beta');
    const dead = await waitFor('the dead delivery', async () => {
      // The auth webhook's delivery, not the webhook_dead alert it raises (the alert channel refuses too).
      const { rows } = await db().query(`SELECT id FROM webhook_deliveries WHERE connection_id = 'beta' AND status = 'dead' AND type <> 'alert'`);
      return rows[0]?.id as string | undefined;
    });
    receiver.answer(200);
    await page.goto(`${t.url}/dashboard/dev/webhooks?status=dead`);
    const deadRow = page.locator(`tr[data-delivery="${dead}"]`);
    assert.match((await deadRow.textContent()) ?? '', /dead/);
    assert.match((await deadRow.textContent()) ?? '', /1 attempt, last 400/);
    await navigate(deadRow.getByRole('button', { name: /Replay/ }));
    await expectNotice('Delivery replayed');
    const replay = await waitFor('the replay delivered', async () => {
      const { rows } = await db().query(`SELECT id FROM webhook_deliveries WHERE replay_of = $1 AND status = 'delivered'`, [dead]);
      return rows[0]?.id as string | undefined;
    });
    await page.goto(`${t.url}/dashboard/dev/webhooks`);
    assert.match((await page.locator(`tr[data-delivery="${replay}"]`).textContent()) ?? '', /delivered/);
    await page.locator(`tr[data-delivery="${replay}"] summary`).click();
    assert.deepEqual(
      receiver.received.filter((r) => r.path === '/hook').map((r) => r.answered),
      [400, 200],
    );
    await shot('webhooks');
  });

  test('environments: prod needs its own key; one session per environment; sign-out ends only that one', async () => {
    await page.goto(`${t.url}/dashboard/prod/integrations`);
    assert.match(page.url(), /\/dashboard\/sign-in\?env=prod/);
    await page.goto(`${t.url}/dashboard/dev`);
    assert.match(page.url(), /\/dashboard\/dev\/integrations$/);
    await navigate(page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: /prod/ }));
    await page.waitForURL(/\/dashboard\/sign-in\?env=prod/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Sign in to prod');
    await page.getByLabel(/Secret key/).fill(t.prodKey);
    await navigate(page.getByRole('button', { name: 'Sign in' }));
    await page.waitForURL(/\/dashboard\/prod\/integrations$/);
    assert.match((await page.locator('main').textContent()) ?? '', /No integrations yet/);
    await shot('prod-integrations');
    await navigate(page.getByRole('navigation', { name: 'Environment' }).getByRole('link', { name: 'dev' }));
    await page.waitForURL(/\/dashboard\/dev\/integrations$/);
    assert.match((await page.locator('main table').textContent()) ?? '', /metabase/);

    await page.goto(`${t.url}/dashboard/prod/integrations`);
    await navigate(page.getByRole('button', { name: 'Sign out of prod' }));
    await page.waitForURL(/\/dashboard\/sign-in\?notice=signed-out$/);
    await expectNotice('Signed out.');
    await page.goto(`${t.url}/dashboard/prod/integrations`);
    assert.match(page.url(), /\/dashboard\/sign-in\?env=prod/);
    await page.goto(`${t.url}/dashboard/dev/integrations`);
    assert.match(page.url(), /\/dashboard\/dev\/integrations$/);
  });

  test('forged form posts are refused: no CSRF token, a wrong one, from another page, and at sign-in', async () => {
    await page.goto(`${t.url}/dashboard/dev/connections/metabase/acme`);
    const token = await page.locator('input[name="_csrf"]').first().inputValue();
    const startUrl = `${t.url}/dashboard/dev/connections/metabase/acme/syncs/users/start`;
    const post = (body: string) =>
      fetch(startUrl, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    const withCookie = async (body: string) =>
      fetch(startUrl, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: await cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    assert.equal((await withCookie('')).status, 403, 'no token');
    assert.equal((await withCookie('_csrf=' + 'f'.repeat(64))).status, 403, 'wrong token');
    assert.equal((await withCookie('_csrf=' + token.slice(0, -1))).status, 403, 'truncated token');
    assert.equal((await post('_csrf=' + token)).status, 401, 'the token without the session cookie');

    // A page elsewhere posting a form at the dashboard, in the signed-in browser.
    const attacker = await startPageServer(`<!doctype html><html><body>
      <form id="f" method="post" action="${startUrl}"><input type="hidden" name="_csrf" value="forged"></form>
      <script>document.getElementById('f').submit()</script></body></html>`);
    try {
      const [res] = await Promise.all([page.waitForResponse((r) => r.url() === startUrl), page.goto(attacker.url)]);
      assert.equal(res.status(), 403);
      await page.waitForURL(startUrl);
      assert.match((await page.locator('main').textContent()) ?? '', /CSRF token/);
    } finally {
      await attacker.close();
    }
    const conn = (await db().query(`SELECT id FROM connections WHERE connection_id = 'acme'`)).rows[0];
    const state = (await db().query(`SELECT status FROM sync_states WHERE connection_pk = $1 AND sync_name = 'users'`, [conn.id])).rows[0];
    assert.equal(state.status, 'PAUSED', 'nothing was started');
    assert.equal(
      (await t.platform.deps.temporal.schedule.getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'acme', 'users')).describe())
        .state.paused,
      true,
    );

    // The sign-in form needs its double-submit token too.
    const signIn = await fetch(`${t.url}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `secret_key=${t.devKey}`,
    });
    assert.equal(signIn.status, 403);
    assert.ok(!(signIn.headers.get('set-cookie') ?? '').includes('sy_dash_dev='), 'no session');
  });

  test('an expired session is refused: pages send you to sign in, forms change nothing', async () => {
    await page.goto(`${t.url}/dashboard/dev/connections/metabase/acme`);
    const token = await page.locator('input[name="_csrf"]').first().inputValue();
    const cookies = await cookieHeader();
    await db().query(`UPDATE dashboard_sessions SET expires_at = now() - interval '1 minute'`);

    await page.goto(`${t.url}/dashboard/dev/connections`);
    assert.match(page.url(), /\/dashboard\/sign-in\?env=dev&next=%2Fdashboard%2Fdev%2Fconnections&expired=1$/);
    await expectNotice('Your session has ended');
    await shot('session-expired');
    const res = await fetch(`${t.url}/dashboard/dev/connections/metabase/acme/syncs/users/start`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${token}`,
    });
    assert.equal(res.status, 401);

    // Signing in again returns to the page asked for.
    await page.getByLabel(/Secret key/).fill(t.devKey);
    await navigate(page.getByRole('button', { name: 'Sign in' }));
    await page.waitForURL(/\/dashboard\/dev\/connections$/);
    assert.ok(!logs.some((l) => l.startsWith('pageerror')), logs.join('\n'));
  });
});
