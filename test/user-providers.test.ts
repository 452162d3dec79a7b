/**
 * User-defined providers through the public API (issue 16, "Done when"): `POST /providers` with a
 * definition, then an integration, a connection, a proxied call and (OAuth 2) a refresh at the
 * definition's own token URL, all with `@nangohq/node` and HTTP against the generic fake driven by
 * the same definition (test/fakes/generic-provider.ts). Also the providers API itself: Nango's
 * shape, warnings for unknown keys, 400 naming the field, 409 on a catalogue or taken name,
 * replace, delete refused while used, and a dev provider invisible to prod.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import type { ProviderDefinitionInput } from '../features/providers/definition.js';
import { startGenericProviderFake, type GenericProviderFake } from './fakes/generic-provider.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const CLIENT = { clientId: 'client-u', clientSecret: 'secret-u' };
const DOCS = 'https://example.com/docs';

describe('user-defined providers through the API', () => {
  let t: TestPlatform;
  let nango: Nango;
  const fakes: GenericProviderFake[] = [];

  async function define(def: ProviderDefinitionInput, key?: string): Promise<Response> {
    return t.api('/providers', { method: 'POST', json: def, ...(key ? { key } : {}) });
  }
  async function connectSession(): Promise<string> {
    const res = await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u-1' } } });
    assert.equal(res.status, 201);
    return ((await res.json()) as Json).data.token;
  }
  const calls = (fake: GenericProviderFake, path: string) => fake.requests.filter((r) => r.path === path);
  /** A dev provider row written straight to the table, past the API's checks, as an older release could have. */
  async function storeAsAnOlderRelease(def: ProviderDefinitionInput): Promise<void> {
    const db = t.platform.deps.db;
    const envId = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    await db.query('INSERT INTO providers (environment_id, name, definition) VALUES ($1, $2, $3)', [
      envId,
      def.name,
      JSON.stringify({ categories: [], ...def }),
    ]);
  }

  before(async () => {
    t = await startTestPlatform();
    nango = new Nango({ secretKey: t.devKey, host: t.url });
  });
  after(async () => {
    await t?.stop();
    for (const f of fakes) await f.close();
  });

  test('every logo URL GET /providers and GET /integrations advertise answers 200 image/svg+xml', async () => {
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'slack', unique_key: 'slack-logo' } })).status, 200);
    const providers = ((await (await t.api('/providers')).json()) as Json).data as Json[];
    const integrations = ((await (await t.api('/integrations')).json()) as Json).data as Json[];
    const urls = [...providers.map((p) => p.logo_url as string), ...integrations.map((i) => i.logo as string)];
    assert.ok(urls.length > 100, `${urls.length} logos`);
    for (const url of urls) {
      // Advertised under the public URL; fetched from the test server.
      const { pathname } = new URL(url);
      assert.match(pathname, /^\/images\/logos\/[^/]+\.svg$/, url);
      const res = await fetch(`${t.url}${pathname}`);
      assert.equal(res.status, 200, url);
      assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/, url);
      const svg = await res.text();
      assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/s, url);
    }
    const slack = await (await fetch(`${t.url}/images/logos/slack.svg`)).text();
    assert.match(slack, />Sl<\/text>/, 'the initials');
    assert.equal((await fetch(`${t.url}/images/logos/google-drive.svg`).then((r) => r.text())).match(/>(\w+)<\/text>/)?.[1], 'GD');
    assert.equal((await fetch(`${t.url}/images/logos/..%2Fx.png`)).status, 400);
  });

  test("create, read in Nango's shape, warnings, 400 naming the field, 409 on catalogue and taken names", async () => {
    const def = {
      name: 'inhouse',
      display_name: 'In-house API',
      categories: ['internal'],
      auth_mode: 'API_KEY',
      proxy: { base_url: 'https://api.inhouse.test', headers: { 'x-key': '${apiKey}' } },
      docs: DOCS,
      post_connection_script: 'nangoOnly',
    };
    const res = await define(def as ProviderDefinitionInput);
    assert.equal(res.status, 201, await res.clone().text());
    const body = (await res.json()) as Json;
    assert.equal(body.data.name, 'inhouse');
    assert.equal(body.data.source, 'user');
    assert.deepEqual(body.warnings, ['unknown key "post_connection_script" kept but not used']);

    const one = (await (await t.api('/providers/inhouse')).json()) as Json;
    for (const k of ['name', 'display_name', 'logo_url', 'auth_mode', 'categories', 'docs', 'proxy']) assert.ok(k in one.data, k);
    assert.deepEqual(one.data.categories, ['internal']);
    assert.equal(one.data.post_connection_script, 'nangoOnly', 'unknown keys are kept');

    const list = (await (await t.api('/providers')).json()) as Json;
    const names = list.data.map((p: Json) => p.name);
    assert.ok(names.includes('inhouse') && names.includes('github'));
    assert.ok(list.data.length >= 100, `${list.data.length} providers`);
    const github = list.data.find((p: Json) => p.name === 'github');
    assert.equal(github.source, 'catalog');
    assert.equal(github.auth_mode, 'OAUTH2');
    assert.match(github.logo_url, /^http/);
    // @nangohq/node reads them as Nango's ApiProvider.
    const viaNode = await nango.listProviders({ search: 'inhouse' });
    assert.deepEqual(
      viaNode.data.map((p) => [p.name, p.display_name, p.auth_mode]),
      [['inhouse', 'In-house API', 'API_KEY']],
    );
    assert.equal((await nango.getProvider({ provider: 'github' })).data.display_name, 'GitHub');
    const searched = (await (await t.api('/providers?search=In-House')).json()) as Json;
    assert.deepEqual(
      searched.data.map((p: Json) => p.name),
      ['inhouse'],
    );

    assert.equal((await define(def as ProviderDefinitionInput)).status, 409);
    const shadow = await define({ ...def, name: 'github' } as ProviderDefinitionInput);
    assert.equal(shadow.status, 409);
    assert.equal(((await shadow.json()) as Json).error.code, 'provider_name_taken');

    const badMode = await define({ ...def, name: 'bad-mode', auth_mode: 'SAML' } as unknown as ProviderDefinitionInput);
    assert.equal(badMode.status, 400);
    assert.deepEqual(
      ((await badMode.json()) as Json).error.errors.map((e: Json) => e.path),
      [['auth_mode']],
    );
    const badField = await define({ ...def, name: 'bad-url', proxy: { base_url: 'ftp://x' } } as ProviderDefinitionInput);
    assert.equal(badField.status, 400);
    assert.deepEqual(((await badField.json()) as Json).error.errors[0].path, ['proxy', 'base_url']);
    const unknownPlaceholder = await define({ ...def, name: 'bad-ph', proxy: { base_url: 'https://${connectionConfig.nope}' } } as ProviderDefinitionInput);
    assert.equal(unknownPlaceholder.status, 400);
  });

  test('replace and delete: name must match, catalogue and unknown names 404, delete refused while an integration uses it', async () => {
    const def: ProviderDefinitionInput = { name: 'tmp-api', display_name: 'Temp', auth_mode: 'NONE', proxy: { base_url: 'https://tmp.test' }, docs: DOCS };
    assert.equal((await define(def)).status, 201);
    const put = await t.api('/providers/tmp-api', { method: 'PUT', json: { ...def, display_name: 'Temp v2' } });
    assert.equal(put.status, 200, await put.clone().text());
    assert.equal(((await (await t.api('/providers/tmp-api')).json()) as Json).data.display_name, 'Temp v2');
    const renamed = await t.api('/providers/tmp-api', { method: 'PUT', json: { ...def, name: 'other' } });
    assert.equal(renamed.status, 400);
    assert.deepEqual(((await renamed.json()) as Json).error.errors[0].path, ['name']);
    assert.equal((await t.api('/providers/github', { method: 'PUT', json: { ...def, name: 'github' } })).status, 404);
    assert.equal((await t.api('/providers/github', { method: 'DELETE' })).status, 404);
    assert.equal((await t.api('/providers/nope', { method: 'DELETE' })).status, 404);

    await nango.createIntegration({ provider: 'tmp-api', unique_key: 'tmp-int' } as never);
    const refused = await t.api('/providers/tmp-api', { method: 'DELETE' });
    assert.equal(refused.status, 409);
    assert.equal(((await refused.json()) as Json).error.code, 'provider_in_use');
    await nango.deleteIntegration('tmp-int');
    assert.equal((await t.api('/providers/tmp-api', { method: 'DELETE' })).status, 204);
    assert.equal((await t.api('/providers/tmp-api')).status, 404);
  });

  test('a dev provider is invisible to prod, and prod may define the same name', async () => {
    const def: ProviderDefinitionInput = { name: 'dev-only', display_name: 'Dev only', auth_mode: 'NONE', proxy: { base_url: 'https://dev.test' }, docs: DOCS };
    assert.equal((await define(def)).status, 201);
    assert.equal((await t.api('/providers/dev-only', { key: t.prodKey })).status, 404);
    const prodList = (await (await t.api('/providers', { key: t.prodKey })).json()) as Json;
    assert.ok(!prodList.data.some((p: Json) => p.name === 'dev-only'));
    const prodIntegration = await t.api('/integrations', { method: 'POST', key: t.prodKey, json: { provider: 'dev-only', unique_key: 'x' } });
    assert.equal(prodIntegration.status, 400);
    assert.equal((await define({ ...def, display_name: 'Prod own' }, t.prodKey)).status, 201);
    assert.equal(((await (await t.api('/providers/dev-only')).json()) as Json).data.display_name, 'Dev only');
  });

  test('docs must be an http(s) URL: javascript: and data: are refused naming the field, and one stored before is not served', async () => {
    const def: ProviderDefinitionInput = { name: 'docs-check', display_name: 'Docs', auth_mode: 'NONE', proxy: { base_url: 'https://docs.test' }, docs: DOCS };
    for (const docs of ['javascript:alert(document.cookie)', 'JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x']) {
      const res = await define({ ...def, docs });
      assert.equal(res.status, 400, `${docs}: ${await res.clone().text()}`);
      assert.deepEqual(
        ((await res.json()) as Json).error.errors.map((e: Json) => e.path),
        [['docs']],
        docs,
      );
    }
    const connectDocs = await define({ ...def, docs_connect: 'javascript:alert(1)' } as ProviderDefinitionInput);
    assert.equal(connectDocs.status, 400);
    assert.deepEqual(((await connectDocs.json()) as Json).error.errors[0].path, ['docs_connect']);
    // The connect session's own override of that link, shown by Nango's Connect UI.
    const session = await t.api('/connect/sessions', {
      method: 'POST',
      json: { end_user: { id: 'u-1' }, overrides: { 'some-key': { docs_connect: 'javascript:alert(1)' } } },
    });
    assert.equal(session.status, 400, await session.clone().text());
    assert.deepEqual(((await session.json()) as Json).error.errors[0].path, ['overrides', 'some-key', 'docs_connect']);
    // A definition stored before the check is not served with its javascript: link (the API and the
    // dashboard's link both read providerFromDefinition's `docs`).
    await storeAsAnOlderRelease({ ...def, name: 'legacy-docs', docs: 'javascript:alert(1)' });
    const served = (await (await t.api('/providers/legacy-docs')).json()) as Json;
    assert.doesNotMatch(served.data.docs, /^javascript:/i);
  });

  test("an environment's own provider keeps winning when a catalogue update adds its name (no silent switch of its connections)", async () => {
    const fake = await startGenericProviderFake({ ...CLIENT, apiKey: 'sk-own-1' });
    fakes.push(fake);
    // Defined by the environment before the catalogue shipped a provider of the same name (`openai`):
    // the row is written as an older release did, since the API now refuses catalogue names.
    const def: ProviderDefinitionInput = {
      name: 'openai',
      display_name: 'Our own OpenAI gateway',
      auth_mode: 'API_KEY',
      proxy: { base_url: `${fake.url}/api`, verification: { method: 'GET', endpoints: ['/me'] } },
      docs: DOCS,
    };
    fake.define(def);
    await storeAsAnOlderRelease(def);

    const one = (await (await t.api('/providers/openai')).json()) as Json;
    assert.equal(one.data.display_name, 'Our own OpenAI gateway');
    assert.equal(one.data.source, 'user');
    assert.equal(one.data.shadows_catalog, true, 'the clash is said');
    const listed = ((await (await t.api('/providers')).json()) as Json).data.filter((p: Json) => p.name === 'openai');
    assert.deepEqual(
      listed.map((p: Json) => [p.source, p.display_name, p.shadows_catalog]),
      [['user', 'Our own OpenAI gateway', true]],
    );
    // Prod has no provider of its own by that name: it sees the catalogue's.
    assert.equal(((await (await t.api('/providers/openai', { key: t.prodKey })).json()) as Json).data.source, 'catalog');

    await nango.createIntegration({ provider: 'openai', unique_key: 'own-openai' } as never);
    const created = await t.api('/connections', {
      method: 'POST',
      json: { provider_config_key: 'own-openai', connection_id: 'gw', credentials: { type: 'API_KEY', apiKey: 'sk-own-1' } },
    });
    assert.equal(created.status, 201, await created.clone().text());
    const proxied = await nango.proxy({ providerConfigKey: 'own-openai', connectionId: 'gw', endpoint: '/me' });
    assert.equal(proxied.status, 200);
    assert.equal(calls(fake, '/api/me').at(-1)!.headers.authorization, 'Bearer sk-own-1', "the key went to the environment's own base URL");

    // Its own can be deleted once unused, and the catalogue's takes the name back.
    await nango.deleteIntegration('own-openai');
    assert.equal((await t.api('/providers/openai', { method: 'DELETE' })).status, 204);
    assert.equal(((await (await t.api('/providers/openai')).json()) as Json).data.source, 'catalog');
    assert.equal((await t.api('/providers/openai', { method: 'DELETE' })).status, 404);
  });

  test('a connect-session token reads only what the Connect UI needs of a definition (no headers, token_params, webhook settings, URLs)', async () => {
    const def: ProviderDefinitionInput = {
      name: 'secretive',
      display_name: 'Secretive',
      auth_mode: 'OAUTH2',
      authorization_url: 'https://secretive.test/oauth/authorize',
      token_url: 'https://secretive.test/oauth/token',
      token_params: { audience: 'internal-audience-42' },
      authorization_params: { prompt: 'consent' },
      proxy: { base_url: 'https://secretive.test/api', headers: { 'x-internal-route': 'shard-7' }, query: { partner: 'p-123' } },
      connection_config: { region: { title: 'Region', pattern: '^[a-z]+$' } },
      webhook: {
        signature_header: 'x-sig',
        algorithm: 'hmac-sha256',
        secret: 'webhook_secret',
        routing: { body_path: 'account', connection_config_key: 'region' },
      },
      docs: DOCS,
      docs_connect: 'https://example.com/connect-help',
      internal_note: 'not for end users',
    } as ProviderDefinitionInput;
    assert.equal((await define(def)).status, 201);
    const token = await connectSession();
    const allowed = ['name', 'display_name', 'logo_url', 'auth_mode', 'categories', 'docs', 'docs_connect', 'connection_config', 'credentials', 'source'];
    const viaHeader = (await (await fetch(`${t.url}/providers/secretive`, { headers: { authorization: `Bearer ${token}` } })).json()) as Json;
    const viaQuery = (await (await fetch(`${t.url}/providers/secretive?connect_session_token=${token}`)).json()) as Json;
    const listed = ((await (await fetch(`${t.url}/providers?connect_session_token=${token}`)).json()) as Json).data as Json[];
    for (const seen of [viaHeader.data, viaQuery.data, listed.find((p) => p.name === 'secretive')!]) {
      const stray = Object.keys(seen).filter((k) => !allowed.includes(k));
      assert.deepEqual(stray, [], `keys a session token must not read: ${stray.join(', ')}`);
      assert.doesNotMatch(JSON.stringify(seen), /internal-audience-42|shard-7|p-123|x-sig|secretive\.test/);
      assert.equal(seen.connection_config.region.required, true, 'the form is still there');
      assert.equal(seen.docs_connect, 'https://example.com/connect-help');
    }
    for (const p of listed)
      assert.deepEqual(
        Object.keys(p).filter((k) => !allowed.includes(k)),
        [],
        p.name,
      );
    // The secret key still reads the whole definition.
    const full = (await (await t.api('/providers/secretive')).json()) as Json;
    assert.deepEqual(full.data.token_params, { audience: 'internal-audience-42' });
    assert.equal(full.data.proxy.headers['x-internal-route'], 'shard-7');
  });

  test('API_KEY with a templated base URL: POST /providers → integration → connection → proxied call', async () => {
    const fake = await startGenericProviderFake({ ...CLIENT, apiKey: 'k-777' });
    fakes.push(fake);
    const def: ProviderDefinitionInput = {
      name: 'tenant-api',
      display_name: 'Tenant API',
      auth_mode: 'API_KEY',
      proxy: {
        base_url: 'https://${connectionConfig.host}/api',
        headers: { 'x-acme-key': '${apiKey}' },
        query: { tenant: '${connectionConfig.tenant}' },
        verification: { method: 'GET', endpoints: ['/me'] },
      },
      connection_config: { host: { title: 'Host' }, tenant: { title: 'Tenant', pattern: '^[a-z0-9]+$' } },
      docs: DOCS,
    };
    fake.define(def);
    const res = await define(def);
    assert.equal(res.status, 201, await res.clone().text());
    await nango.createIntegration({ provider: 'tenant-api', unique_key: 'tenant-api' } as never);

    // The Connect UI reads the form from GET /providers/:provider with the session token.
    const token = await connectSession();
    const form = (await (await fetch(`${t.url}/providers/tenant-api`, { headers: { authorization: `Bearer ${token}` } })).json()) as Json;
    assert.equal(form.data.connection_config.tenant.required, true);
    const byQuery = await fetch(`${t.url}/providers/tenant-api?connect_session_token=${token}`);
    assert.equal(byQuery.status, 200, await byQuery.clone().text());
    assert.equal((await fetch(`${t.url}/providers/tenant-api?connect_session_token=nango_connect_session_nope`)).status, 401);

    const connect = await fetch(
      `${t.url}/api-auth/api-key/tenant-api?connect_session_token=${token}&params[host]=${encodeURIComponent(fake.url)}&params[tenant]=t9`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: 'k-777' }) },
    );
    assert.equal(connect.status, 200, await connect.clone().text());
    const { connectionId } = (await connect.json()) as Json;
    const conn = (await nango.getConnection('tenant-api', connectionId)) as Json;
    assert.equal(conn.connection_config.tenant, 't9');

    const proxied = await nango.proxy({ providerConfigKey: 'tenant-api', connectionId, endpoint: '/me' });
    assert.equal(proxied.status, 200);
    const call = calls(fake, '/api/me').at(-1)!;
    assert.equal(call.headers['x-acme-key'], 'k-777');
    assert.equal(call.query.tenant, 't9');
    assert.deepEqual(fake.state.problems, []);
  });

  test('OAUTH2: POST /providers → integration → authorization code flow → proxied call → refresh at its own token URL', async () => {
    const fake = await startGenericProviderFake(CLIENT);
    fakes.push(fake);
    const def: ProviderDefinitionInput = {
      name: 'inhouse-oauth',
      display_name: 'In-house OAuth',
      auth_mode: 'OAUTH2',
      authorization_url: `${fake.url}/oauth/authorize`,
      token_url: `${fake.url}/oauth/token`,
      default_scopes: ['read', 'write'],
      scope_separator: ' ',
      proxy: { base_url: `${fake.url}/api`, verification: { method: 'GET', endpoints: ['/me'] } },
      docs: DOCS,
    };
    fake.define(def);
    assert.equal((await define(def)).status, 201);
    await nango.createIntegration({
      provider: 'inhouse-oauth',
      unique_key: 'inhouse-oauth',
      credentials: { type: 'OAUTH2', client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret },
    } as never);

    const token = await connectSession();
    const start = await fetch(`${t.url}/oauth/connect/inhouse-oauth?connect_session_token=${token}`, { redirect: 'manual' });
    assert.equal(start.status, 302, await start.clone().text());
    const authorize = new URL(start.headers.get('location')!);
    assert.equal(authorize.origin + authorize.pathname, `${fake.url}/oauth/authorize`);
    const approved = await fetch(authorize, { redirect: 'manual' });
    assert.equal(approved.status, 302, await approved.clone().text());
    const done = await fetch(approved.headers.get('location')!);
    assert.equal(done.status, 200, await done.clone().text());

    const [listed] = ((await nango.listConnections({ integrationId: 'inhouse-oauth' } as never)) as Json).connections;
    const conn = (await nango.getConnection('inhouse-oauth', listed.connection_id)) as Json;
    assert.equal(conn.credentials.type, 'OAUTH2');
    assert.equal((await nango.proxy({ providerConfigKey: 'inhouse-oauth', connectionId: listed.connection_id, endpoint: '/me' })).status, 200);
    assert.equal(calls(fake, '/api/me').at(-1)!.headers.authorization, `Bearer ${conn.credentials.access_token}`);

    const refreshed = (await nango.getConnection('inhouse-oauth', listed.connection_id, true)) as Json;
    assert.notEqual(refreshed.credentials.access_token, conn.credentials.access_token);
    const refresh = fake.state.tokenRequests.find((r) => r.grantType === 'refresh_token')!;
    assert.equal(refresh.path, '/oauth/token', 'refreshed at the definition token_url (no refresh_url)');
    assert.equal((await nango.proxy({ providerConfigKey: 'inhouse-oauth', connectionId: listed.connection_id, endpoint: '/me' })).status, 200);
    assert.equal(calls(fake, '/api/me').at(-1)!.headers.authorization, `Bearer ${refreshed.credentials.access_token}`);
    assert.deepEqual(fake.state.problems, []);
  });
});
