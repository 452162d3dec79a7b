/**
 * Providers as data (issue 16): one user-defined provider per auth mode, saved through the provider
 * store (features/providers/store.ts; POST /providers is tested in test/user-providers.test.ts), each run through the whole flow
 * with the public API and `@nangohq/node` against one generic fake driven by the same definition
 * (test/fakes/generic-provider.ts): connect, refresh at the definition's own token URL, a proxied
 * call with the credentials where the definition puts them, verification. Then the definition's
 * rate-limit header and pagination defaults.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { z } from 'zod';
import type { ProviderDefinitionInput } from '../features/providers/definition.js';
import { getCatalogProvider } from '../features/providers/providers.js';
import { createProvider, deleteProvider, findProvider, listStoredProviders, parseProviderDefinition, updateProvider } from '../features/providers/store.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { createAction } from '../sdk/index.js';
import { startGenericProviderFake, type GenericProviderFake } from './fakes/generic-provider.js';
import { startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const CLIENT = { clientId: 'client-1', clientSecret: 'secret-1' };
const DOCS = 'https://example.com/docs';

registerPrebuiltScripts('acme-key', {
  'list-items': createAction({
    description: 'every item, paged as the provider definition says (the script passes no paginate settings)',
    endpoint: { method: 'POST', path: '/list-items' },
    input: z.object({}),
    output: z.object({ ids: z.array(z.string()) }),
    async exec(ctx) {
      const ids: string[] = [];
      for await (const page of ctx.paginate<{ id: string }>({ endpoint: '/items' })) ids.push(...page.map((i) => i.id));
      return { ids };
    },
  }),
});

describe('provider auth modes from definitions', () => {
  let t: TestPlatform;
  let nango: Nango;
  let envId: number;
  const fakes: GenericProviderFake[] = [];

  async function fakeFor(build: (url: string) => ProviderDefinitionInput, extra: Partial<Parameters<typeof startGenericProviderFake>[0]> = {}) {
    const fake = await startGenericProviderFake({ ...CLIENT, ...extra });
    fakes.push(fake);
    const def = build(fake.url);
    fake.define(def);
    await createProvider(t.platform.deps.db, envId, parseProviderDefinition(def).definition);
    return fake;
  }
  async function connectSession(): Promise<string> {
    const res = await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u-1' } } });
    assert.equal(res.status, 201);
    return ((await res.json()) as Json).data.token;
  }
  const apiCalls = (fake: GenericProviderFake, path: string) => fake.requests.filter((r) => r.path === path);

  before(async () => {
    t = await startTestPlatform();
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    const { rows } = await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`);
    envId = rows[0]!.id;
  });
  after(async () => {
    await t?.stop();
    for (const f of fakes) await f.close();
  });

  test('a user-defined name may not shadow a catalogue provider, and a dev provider is invisible to prod', async () => {
    const def = parseProviderDefinition({ name: 'github', display_name: 'Mine', auth_mode: 'NONE', proxy: { base_url: 'https://x.test' }, docs: DOCS });
    await assert.rejects(createProvider(t.platform.deps.db, envId, def.definition), /catalogue provider/);
    const own = parseProviderDefinition({ name: 'only-dev', display_name: 'Only dev', auth_mode: 'NONE', proxy: { base_url: 'https://x.test' }, docs: DOCS });
    await createProvider(t.platform.deps.db, envId, own.definition);
    const { rows } = await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'prod'`);
    assert.equal(await findProvider(t.platform.deps.db, rows[0]!.id, 'only-dev'), undefined);
    assert.equal((await findProvider(t.platform.deps.db, envId, 'only-dev'))?.displayName, 'Only dev');
    const res = await t.api('/providers/only-dev');
    assert.equal(res.status, 200);
    const prod = await t.api('/providers/only-dev', { key: t.prodKey });
    assert.equal(prod.status, 404);

    // Update, list, and delete: refused while an integration uses the provider.
    const db = t.platform.deps.db;
    await assert.rejects(createProvider(db, envId, own.definition), /already exists/);
    await updateProvider(db, envId, 'only-dev', { ...own.definition, display_name: 'Only dev, renamed' });
    assert.equal((await findProvider(db, envId, 'only-dev'))?.displayName, 'Only dev, renamed');
    assert.deepEqual(
      (await listStoredProviders(db, envId)).map((p) => p.name),
      ['only-dev'],
    );
    await nango.createIntegration({ provider: 'only-dev', unique_key: 'only-dev' } as never);
    await assert.rejects(deleteProvider(db, envId, 'only-dev'), /integration\(s\) use provider/);
    await nango.deleteIntegration('only-dev');
    await deleteProvider(db, envId, 'only-dev');
    assert.equal(await findProvider(db, envId, 'only-dev'), undefined);
    assert.throws(() => parseProviderDefinition({ name: 'x', display_name: 'X', auth_mode: 'SAML', docs: DOCS }), /auth_mode/);
    assert.deepEqual(parseProviderDefinition({ ...own.definition, logo_url: 'https://x.test/l.svg' }).warnings, ['unknown key "logo_url" kept but not used']);
  });

  test('OAUTH2: connect with PKCE and the definition params, metadata kept, proxy with the token, refresh at its refresh URL', async () => {
    const fake = await fakeFor(
      (url) => ({
        name: 'acme-oauth',
        display_name: 'Acme OAuth',
        auth_mode: 'OAUTH2',
        authorization_url: `${url}/oauth/authorize`,
        token_url: `${url}/oauth/token`,
        refresh_url: `${url}/oauth/refresh`,
        authorization_params: { audience: 'acme-api' },
        token_params: { audience: 'acme-api' },
        refresh_params: { resource: 'acme' },
        token_request_auth_method: 'basic',
        body_format: 'json',
        token_response_metadata: ['account.id'],
        default_scopes: ['read'],
        proxy: { base_url: `${url}/api`, verification: { method: 'GET', endpoints: ['/me'] } },
        docs: DOCS,
      }),
      { tokenExtras: { account: { id: 'A-42' } } },
    );
    await nango.createIntegration({
      provider: 'acme-oauth',
      unique_key: 'acme-oauth',
      credentials: { type: 'OAUTH2', ...{ client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret } },
    } as never);

    const token = await connectSession();
    const start = await fetch(`${t.url}/oauth/connect/acme-oauth?connect_session_token=${token}`, { redirect: 'manual' });
    assert.equal(start.status, 302, await start.clone().text());
    const authorize = new URL(start.headers.get('location')!);
    assert.equal(authorize.origin + authorize.pathname, `${fake.url}/oauth/authorize`);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    const approved = await fetch(authorize, { redirect: 'manual' });
    assert.equal(approved.status, 302, await approved.clone().text());
    const done = await fetch(approved.headers.get('location')!);
    assert.equal(done.status, 200, await done.clone().text());
    assert.match(await done.text(), /nango_oauth_callback_success/);
    const exchange = fake.state.tokenRequests.find((r) => r.grantType === 'authorization_code')!;
    assert.equal(exchange.basicAuth, true);
    assert.match(exchange.contentType, /^application\/json/);

    const [listed] = ((await nango.listConnections({ integrationId: 'acme-oauth' } as never)) as Json).connections;
    const conn = (await nango.getConnection('acme-oauth', listed.connection_id)) as Json;
    assert.equal(conn.credentials.type, 'OAUTH2');
    assert.equal(conn.connection_config['account.id'], 'A-42');
    // The connection check started at once calls the definition's verification endpoint with the token.
    const checked = await waitFor('the first connection check', async () => {
      const c = (await nango.getConnection('acme-oauth', listed.connection_id)) as Json;
      return c.last_check_at ? c : null;
    });
    assert.equal(checked.status, 'ok', JSON.stringify(checked.errors));
    assert.equal(apiCalls(fake, '/api/me')[0]!.headers.authorization, `Bearer ${conn.credentials.access_token}`);

    const first = await nango.proxy({ providerConfigKey: 'acme-oauth', connectionId: listed.connection_id, endpoint: '/me' });
    assert.equal(first.status, 200);
    assert.equal(apiCalls(fake, '/api/me').at(-1)!.headers.authorization, `Bearer ${conn.credentials.access_token}`);

    const refreshed = (await nango.getConnection('acme-oauth', listed.connection_id, true)) as Json;
    assert.notEqual(refreshed.credentials.access_token, conn.credentials.access_token);
    const refresh = fake.state.tokenRequests.find((r) => r.grantType === 'refresh_token')!;
    assert.equal(refresh.path, '/oauth/refresh');
    assert.equal(refresh.body.resource, 'acme');
    const second = await nango.proxy({ providerConfigKey: 'acme-oauth', connectionId: listed.connection_id, endpoint: '/me' });
    assert.equal(second.status, 200);
    assert.equal(apiCalls(fake, '/api/me').at(-1)!.headers.authorization, `Bearer ${refreshed.credentials.access_token}`);
    assert.deepEqual(fake.state.problems, []);
  });

  test('OAUTH2_CC: the token is fetched with the client credentials, used, and fetched again before it expires', async () => {
    const fake = await fakeFor((url) => ({
      name: 'acme-cc',
      display_name: 'Acme machine-to-machine',
      auth_mode: 'OAUTH2_CC',
      token_url: `${url}/oauth/token`,
      token_params: { audience: 'acme-api' },
      proxy: { base_url: `${url}/api`, headers: { 'x-acme-token': '${accessToken}' }, verification: { method: 'GET', endpoints: ['/me'] } },
      docs: DOCS,
    }));
    await nango.createIntegration({
      provider: 'acme-cc',
      unique_key: 'acme-cc',
      credentials: { type: 'OAUTH2', client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret },
    } as never);
    const created = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'acme-cc',
        connection_id: 'm2m',
        credentials: { type: 'OAUTH2_CC', client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret },
      },
    });
    assert.equal(created.status, 201, await created.clone().text());
    const grants = () => fake.state.tokenRequests.filter((r) => r.grantType === 'client_credentials').length;
    assert.equal(grants(), 1);
    assert.equal((await nango.proxy({ providerConfigKey: 'acme-cc', connectionId: 'm2m', endpoint: '/me' })).status, 200);
    assert.equal(grants(), 1, 'a token valid for an hour is reused');
    const used = apiCalls(fake, '/api/me').at(-1)!.headers['x-acme-token'];
    assert.ok(used && fake.state.tokens.has(used));

    await t.platform.deps.db.query(`UPDATE connections SET expires_at = now() + interval '2 minutes' WHERE connection_id = 'm2m'`);
    // A write from outside the API's routes is seen once its notice has reached the API's lookup cache.
    await t.platform.deps.lookups.settled();
    assert.equal((await nango.proxy({ providerConfigKey: 'acme-cc', connectionId: 'm2m', endpoint: '/me' })).status, 200);
    assert.equal(grants(), 2, 'a token about to expire is fetched again');
    assert.notEqual(apiCalls(fake, '/api/me').at(-1)!.headers['x-acme-token'], used);

    // Through the connect flow (the frontend SDK's client-credentials auth): no client of its own, the integration's is used.
    const token = await connectSession();
    const viaFlow = await fetch(`${t.url}/oauth2/auth/acme-cc?connect_session_token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(viaFlow.status, 200, await viaFlow.clone().text());
    const { connectionId } = (await viaFlow.json()) as Json;
    assert.equal(grants(), 3);
    const conn = (await nango.getConnection('acme-cc', connectionId)) as Json;
    assert.equal(conn.credentials.type, 'OAUTH2_CC');
    assert.ok(fake.state.tokens.has(conn.credentials.token));
    assert.deepEqual(fake.state.problems, []);
  });

  test('API_KEY: templated base URL, key in a header and tenant in the query by template; a wrong key is refused by verification', async () => {
    const fake = await fakeFor(
      () => ({
        name: 'acme-key',
        display_name: 'Acme API key',
        auth_mode: 'API_KEY',
        proxy: {
          base_url: 'https://${connectionConfig.host}/api',
          headers: { 'x-acme-key': '${apiKey}' },
          query: { tenant: '${connectionConfig.tenant}' },
          retry: { after: 'x-acme-wait' },
          verification: { method: 'GET', endpoints: ['/me'] },
          paginate: {
            type: 'cursor',
            cursor_name_in_request: 'page_token',
            cursor_path_in_response: 'meta.next',
            limit_name_in_request: 'per_page',
            limit: 3,
            response_path: 'data',
          },
        },
        connection_config: { host: { title: 'Host' }, tenant: { title: 'Tenant' } },
        docs: DOCS,
      }),
      { apiKey: 'key-123' },
    );
    await nango.createIntegration({ provider: 'acme-key', unique_key: 'acme-key' } as never);
    const token = await connectSession();
    const connect = (apiKey: string) =>
      fetch(`${t.url}/api-auth/api-key/acme-key?connect_session_token=${token}&params[host]=${encodeURIComponent(fake.url)}&params[tenant]=t1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiKey }),
      });
    const wrong = await connect('nope');
    assert.equal(wrong.status, 400);
    assert.equal(((await wrong.json()) as Json).error.code, 'connection_test_failed');
    const ok = await connect('key-123');
    assert.equal(ok.status, 200, await ok.clone().text());
    const { connectionId } = (await ok.json()) as Json;

    const res = await nango.proxy({ providerConfigKey: 'acme-key', connectionId, endpoint: '/anything' });
    assert.equal(res.status, 200);
    const call = apiCalls(fake, '/api/anything').at(-1)!;
    assert.equal(call.headers['x-acme-key'], 'key-123');
    assert.equal(call.query.tenant, 't1');
    assert.equal(call.headers.authorization, undefined);

    // Rate limits: the definition's own header says how long to wait (2 s), not the 1 s default backoff.
    fake.rateLimit(1, 2);
    const started = Date.now();
    const limited = await nango.proxy({ providerConfigKey: 'acme-key', connectionId, endpoint: '/limited', retries: 1 });
    assert.equal(limited.status, 200);
    assert.ok(Date.now() - started >= 1900, `waited ${Date.now() - started} ms`);

    // Pagination: the script passes no paginate settings; the definition's cursor names and page size apply.
    const enabled = await t.api('/integrations/acme-key/endpoints', {
      method: 'PATCH',
      json: { endpoints: [{ method: 'POST', path: '/list-items', enabled: true }] },
    });
    assert.equal(enabled.status, 200, await enabled.clone().text());
    const run = await t.api('/action/trigger', {
      method: 'POST',
      headers: { 'connection-id': connectionId, 'provider-config-key': 'acme-key' },
      json: { action_name: 'list-items', input: {} },
    });
    const out = (await run.json()) as Json;
    assert.equal(run.status, 200, JSON.stringify(out));
    assert.deepEqual(out.ids, ['item-1', 'item-2', 'item-3', 'item-4', 'item-5', 'item-6', 'item-7']);
    const pages = apiCalls(fake, '/api/items');
    assert.deepEqual(
      pages.map((p) => [p.query.per_page, p.query.page_token ?? null]),
      [
        ['3', null],
        ['3', '3'],
        ['3', '6'],
      ],
    );
    assert.deepEqual(fake.state.problems, []);
  });

  test('BASIC: username and password as Authorization: Basic by default; verification refuses a wrong password', async () => {
    const fake = await fakeFor(
      (url) => ({
        name: 'acme-basic',
        display_name: 'Acme Basic',
        auth_mode: 'BASIC',
        proxy: { base_url: `${url}/api`, verification: { method: 'GET', endpoints: ['/me'] } },
        docs: DOCS,
      }),
      { username: 'ann', password: 'pw' },
    );
    await nango.createIntegration({ provider: 'acme-basic', unique_key: 'acme-basic' } as never);
    const token = await connectSession();
    const connect = (password: string) =>
      fetch(`${t.url}/api-auth/basic/acme-basic?connect_session_token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'ann', password }),
      });
    assert.equal((await connect('wrong')).status, 400);
    const ok = await connect('pw');
    assert.equal(ok.status, 200, await ok.clone().text());
    const { connectionId } = (await ok.json()) as Json;
    assert.equal((await nango.proxy({ providerConfigKey: 'acme-basic', connectionId, endpoint: '/me' })).status, 200);
    assert.equal(apiCalls(fake, '/api/me').at(-1)!.headers.authorization, `Basic ${Buffer.from('ann:pw').toString('base64')}`);
  });

  test('TWO_STEP: entered fields exchanged for a token as the definition describes, token used by template, renewed before expiry', async () => {
    const fields = { appId: 'app-7', apiKey: 'k-123', email: 'ann@acme.test', password: 'pw' };
    const fake = await fakeFor(
      (url) => ({
        name: 'acme-two-step',
        display_name: 'Acme two-step',
        auth_mode: 'TWO_STEP',
        token_url: `${url}/auth/token`,
        token_params: { login: '${credentials.email}', password: '${credentials.password}', tenant: '${connectionConfig.tenant}' },
        token_headers: { authorization: 'Basic ${base64(${credentials.appId}:${credentials.apiKey})}', 'x-acme-app': '${credentials.appId}' },
        token_response: { token: 'data.jwt', token_expiration: 'data.expires_in', token_expiration_strategy: 'expireIn' },
        proxy: {
          base_url: `${url}/api`,
          headers: { authorization: 'Token ${accessToken}', 'x-acme-app': '${credentials.appId}' },
          verification: { method: 'GET', endpoints: ['/me'] },
        },
        connection_config: { tenant: { title: 'Tenant' } },
        credentials: {
          appId: { title: 'App ID' },
          apiKey: { title: 'API key', secret: true },
          email: { title: 'Email' },
          password: { title: 'Password', secret: true },
        },
        docs: DOCS,
      }),
      { fields },
    );
    await nango.createIntegration({ provider: 'acme-two-step', unique_key: 'acme-two-step' } as never);
    const token = await connectSession();
    const connect = (body: Record<string, string>) =>
      fetch(`${t.url}/auth/two-step/acme-two-step?connect_session_token=${token}&params[tenant]=t1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'TWO_STEP', ...body }),
      });
    const wrong = await connect({ ...fields, password: 'nope' });
    assert.equal(wrong.status, 400);
    assert.equal(((await wrong.json()) as Json).error.code, 'connection_test_failed');
    const missing = await connect({ appId: 'app-7', apiKey: 'k-123', email: 'ann@acme.test' });
    assert.equal(missing.status, 400);
    assert.deepEqual(((await missing.json()) as Json).error.errors[0].path, ['credentials', 'password']);
    fake.state.problems.length = 0;

    const ok = await connect(fields);
    assert.equal(ok.status, 200, await ok.clone().text());
    const { connectionId } = (await ok.json()) as Json;
    const request = fake.state.twoStepRequests.at(-1)!;
    assert.equal(request.method, 'POST');
    assert.deepEqual(request.params, { login: 'ann@acme.test', password: 'pw', tenant: 't1' });
    assert.equal(request.headers.authorization, `Basic ${Buffer.from('app-7:k-123').toString('base64')}`);
    const conn = (await nango.getConnection('acme-two-step', connectionId)) as Json;
    assert.equal(conn.credentials.type, 'TWO_STEP');
    assert.equal(conn.credentials.email, 'ann@acme.test');
    assert.ok(fake.state.tokens.has(conn.credentials.token));
    assert.ok(new Date(conn.credentials.expires_at).getTime() > Date.now() + 50 * 60_000);

    assert.equal((await nango.proxy({ providerConfigKey: 'acme-two-step', connectionId, endpoint: '/me' })).status, 200);
    const call = apiCalls(fake, '/api/me').at(-1)!;
    assert.equal(call.headers.authorization, `Token ${conn.credentials.token}`);
    assert.equal(call.headers['x-acme-app'], 'app-7');

    // About to expire: the same request gives a new token before the proxied call.
    const requests = fake.state.twoStepRequests.length;
    await t.platform.deps.db.query(`UPDATE connections SET expires_at = now() + interval '2 minutes' WHERE connection_id = $1`, [connectionId]);
    await t.platform.deps.lookups.settled();
    assert.equal((await nango.proxy({ providerConfigKey: 'acme-two-step', connectionId, endpoint: '/me' })).status, 200);
    assert.equal(fake.state.twoStepRequests.length, requests + 1);
    const renewed = apiCalls(fake, '/api/me').at(-1)!.headers.authorization!;
    assert.notEqual(renewed, call.headers.authorization);
    assert.ok(fake.state.tokens.has(renewed.replace(/^Token /, '')));

    // Created with the API: the fields only, the token fetched at once.
    const created = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'acme-two-step',
        connection_id: 'ts-api',
        connection_config: { tenant: 't1' },
        credentials: { type: 'TWO_STEP', ...fields },
      },
    });
    assert.equal(created.status, 201, await created.clone().text());
    assert.equal((await nango.proxy({ providerConfigKey: 'acme-two-step', connectionId: 'ts-api', endpoint: '/me' })).status, 200);
    assert.deepEqual(fake.state.problems, []);
  });

  test('TWO_STEP, the tripletex entry: PUT with the tokens and an expiration date three days on in the query, Basic company id and session token', async () => {
    const fields = { consumerToken: 'eyJjb25zdW1lciI6MX0=', employeeToken: 'eyJlbXBsb3llZSI6Mn0=' };
    const fake = await startGenericProviderFake({ ...CLIENT, fields });
    fakes.push(fake);
    fake.define(getCatalogProvider('tripletex')!.definition);
    await nango.createIntegration({
      provider: 'tripletex',
      unique_key: 'tripletex',
      integration_config: { token_url: `${fake.url}/auth/token`, base_url: `${fake.url}/api` },
    } as never);
    const created = await t.api('/connections', {
      method: 'POST',
      json: { provider_config_key: 'tripletex', connection_id: 'tx-1', credentials: { type: 'TWO_STEP', ...fields } },
    });
    assert.equal(created.status, 201, await created.clone().text());
    const request = fake.state.twoStepRequests.at(-1)!;
    assert.equal(request.method, 'PUT');
    const inThreeDays = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    assert.deepEqual(request.params, { ...fields, expirationDate: inThreeDays });
    const conn = (await nango.getConnection('tripletex', 'tx-1')) as Json;
    assert.equal(conn.connection_config.proxyCompanyId, '0');
    const twoDays = 2 * 86_400_000;
    assert.ok(Math.abs(Date.parse(conn.credentials.expires_at) - (Date.now() + twoDays)) < 120_000, conn.credentials.expires_at);
    assert.equal((await nango.proxy({ providerConfigKey: 'tripletex', connectionId: 'tx-1', endpoint: 'v2/invoice' })).status, 200);
    const call = apiCalls(fake, '/api/v2/invoice').at(-1)!;
    assert.equal(call.headers.authorization, `Basic ${Buffer.from(`0:${conn.credentials.token}`).toString('base64')}`);
    assert.deepEqual(fake.state.problems, []);
  });

  test('NONE: a connection without credentials; proxied calls carry no Authorization', async () => {
    const fake = await fakeFor((url) => ({
      name: 'acme-open',
      display_name: 'Acme open data',
      auth_mode: 'NONE',
      proxy: { base_url: `${url}/api`, headers: { 'x-client': 'switchyard' }, verification: { method: 'GET', endpoints: ['/me'] } },
      docs: DOCS,
    }));
    await nango.createIntegration({ provider: 'acme-open', unique_key: 'acme-open' } as never);
    const created = await t.api('/connections', {
      method: 'POST',
      json: { provider_config_key: 'acme-open', connection_id: 'open', credentials: { type: 'NONE' } },
    });
    assert.equal(created.status, 201, await created.clone().text());
    assert.equal((await nango.proxy({ providerConfigKey: 'acme-open', connectionId: 'open', endpoint: '/me' })).status, 200);
    const call = apiCalls(fake, '/api/me').at(-1)!;
    assert.equal(call.headers.authorization, undefined);
    assert.equal(call.headers['x-client'], 'switchyard');

    const token = await connectSession();
    const viaFlow = await fetch(`${t.url}/auth/unauthenticated/acme-open?connect_session_token=${token}`, { method: 'POST' });
    assert.equal(viaFlow.status, 200, await viaFlow.clone().text());
    const { connectionId } = (await viaFlow.json()) as Json;
    assert.equal((await nango.proxy({ providerConfigKey: 'acme-open', connectionId, endpoint: '/me' })).status, 200);
  });
});
