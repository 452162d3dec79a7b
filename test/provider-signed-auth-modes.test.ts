/**
 * Auth modes whose requests are signed or whose session is renewed by a login (issue 30 item 5):
 * OAUTH1 (RFC 5849 connect flow through the API redirect routes, then signed proxy calls) and TBA
 * (NetSuite token-based authentication) and SIGNATURE (WSSE, Emarsys), each a user-defined provider run against the generic fake
 * driven by the same definition (test/fakes/generic-provider.ts), which checks every signature it
 * receives with its own verifier (test/fakes/oauth1-check.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import type { ProviderDefinitionInput } from '../features/providers/definition.js';
import { createProvider, parseProviderDefinition } from '../features/providers/store.js';
import { startGenericProviderFake, type GenericProviderFake } from './fakes/generic-provider.js';
import { startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const CLIENT = { clientId: 'consumer-1', clientSecret: 'consumer secret/1' };
const DOCS = 'https://example.com/docs';

describe('signed auth modes from definitions', () => {
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

  for (const method of ['HMAC-SHA1', 'PLAINTEXT'] as const) {
    test(`OAUTH1 (${method}): request token, authorization, verifier exchanged for the token; proxied calls signed with it`, async () => {
      const key = `acme-oauth1-${method.toLowerCase()}`;
      const fake = await fakeFor((url) => ({
        name: key,
        auth_mode: 'OAUTH1',
        request_url: `${url}/oauth1/request_token`,
        authorization_url: `${url}/oauth1/authorize`,
        token_url: `${url}/oauth1/access_token`,
        signature_method: method,
        request_params: { x_auth_access_type: 'write' },
        authorization_params: { expiration: 'never' },
        token_params: { lang: 'en' },
        proxy: { base_url: `${url}/api`, verification: { method: 'GET', endpoints: ['/me'] } },
        docs: DOCS,
      }));
      await nango.createIntegration({
        provider: key,
        unique_key: key,
        credentials: { type: 'OAUTH1', client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret },
      } as never);

      const token = await connectSession();
      const start = await fetch(`${t.url}/oauth/connect/${key}?connect_session_token=${token}`, { redirect: 'manual' });
      assert.equal(start.status, 302, await start.clone().text());
      const authorize = new URL(start.headers.get('location')!);
      assert.equal(authorize.origin + authorize.pathname, `${fake.url}/oauth1/authorize`);
      assert.equal(authorize.searchParams.get('expiration'), 'never');
      assert.ok(fake.state.requestTokens.has(authorize.searchParams.get('oauth_token')!));
      const approved = await fetch(authorize, { redirect: 'manual' });
      assert.equal(approved.status, 302, await approved.clone().text());
      const callback = approved.headers.get('location')!;
      const done = await fetch(callback);
      assert.equal(done.status, 200, await done.clone().text());
      assert.match(await done.text(), /nango_oauth_callback_success/);
      // The authorization is used up: the same redirect again is refused.
      const again = await fetch(callback);
      assert.equal(again.status, 400);

      const [listed] = ((await nango.listConnections({ integrationId: key } as never)) as Json).connections;
      const conn = (await nango.getConnection(key, listed.connection_id)) as Json;
      assert.equal(conn.credentials.type, 'OAUTH1');
      assert.equal(fake.state.accessTokens.get(conn.credentials.oauth_token), conn.credentials.oauth_token_secret);
      assert.equal(conn.credentials.raw.user_id, '42');
      const checked = await waitFor('the first connection check', async () => {
        const c = (await nango.getConnection(key, listed.connection_id)) as Json;
        return c.last_check_at ? c : null;
      });
      assert.equal(checked.status, 'ok', JSON.stringify(checked.errors));

      // Signed over the method, URL, query and form body as sent.
      const got = await nango.proxy({ providerConfigKey: key, connectionId: listed.connection_id, endpoint: '/items', params: { limit: '2', q: 'a b&c' } });
      assert.equal(got.status, 200);
      const form = await nango.proxy({
        method: 'POST',
        providerConfigKey: key,
        connectionId: listed.connection_id,
        endpoint: '/notes',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        data: 'text=hello%20world&tag=a&tag=b',
      });
      assert.equal(form.status, 200);
      const posted = await nango.proxy({
        method: 'POST',
        providerConfigKey: key,
        connectionId: listed.connection_id,
        endpoint: '/notes',
        data: { text: 'json' },
      });
      assert.equal(posted.status, 200);
      assert.match(apiCalls(fake, '/api/notes').at(-1)!.headers.authorization!, new RegExp(`^OAuth .*oauth_token="${conn.credentials.oauth_token}"`));
      assert.deepEqual(fake.state.problems, []);
    });
  }

  test('OAUTH1: a provider that refuses the request token (a wrong consumer secret, which the fake refuses by its signature check) fails the flow with its reason', async () => {
    const key = 'acme-oauth1-wrong';
    await fakeFor((url) => ({
      name: key,
      auth_mode: 'OAUTH1',
      request_url: `${url}/oauth1/request_token`,
      authorization_url: `${url}/oauth1/authorize`,
      token_url: `${url}/oauth1/access_token`,
      signature_method: 'HMAC-SHA1',
      proxy: { base_url: `${url}/api` },
      docs: DOCS,
    }));
    await nango.createIntegration({
      provider: key,
      unique_key: key,
      credentials: { type: 'OAUTH1', client_id: CLIENT.clientId, client_secret: 'not the secret' },
    } as never);
    const start = await fetch(`${t.url}/oauth/connect/${key}?connect_session_token=${await connectSession()}`, { redirect: 'manual' });
    assert.equal(start.status, 400);
    assert.match(await start.text(), /refused the request token request/);
  });

  test('SIGNATURE (WSSE): user name and secret entered; every call carries a fresh UsernameToken where the definition puts it; a wrong secret is refused', async () => {
    const user = { username: 'acme001', password: 'secret-9' };
    const fake = await fakeFor(
      (url) => ({
        name: 'acme-wsse',
        auth_mode: 'SIGNATURE',
        signature: { protocol: 'WSSE' },
        proxy: { base_url: `${url}/api`, headers: { 'x-wsse': '${accessToken}' }, verification: { method: 'GET', endpoints: ['/me'] } },
        credentials: { username: { title: 'API user' }, password: { title: 'Secret', secret: true } },
        docs: DOCS,
      }),
      user,
    );
    await nango.createIntegration({ provider: 'acme-wsse', unique_key: 'acme-wsse' } as never);
    const token = await connectSession();
    const connect = (body: Record<string, string>) =>
      fetch(`${t.url}/auth/signature/acme-wsse?connect_session_token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'SIGNATURE', ...body }),
      });
    const wrong = await connect({ ...user, password: 'nope' });
    assert.equal(wrong.status, 400);
    assert.equal(((await wrong.json()) as Json).error.code, 'connection_test_failed');
    fake.state.problems.length = 0;
    const ok = await connect(user);
    assert.equal(ok.status, 200, await ok.clone().text());
    const { connectionId } = (await ok.json()) as Json;
    for (let i = 0; i < 2; i++) assert.equal((await nango.proxy({ providerConfigKey: 'acme-wsse', connectionId, endpoint: '/items' })).status, 200);
    const [first, second] = apiCalls(fake, '/api/items').map((r) => r.headers['x-wsse']!);
    assert.match(first!, /^UsernameToken Username="acme001", PasswordDigest="[^"]+", Nonce="[0-9a-f]{32}", Created="[^"]+"$/);
    assert.notEqual(first, second, 'a new nonce per request');
    assert.deepEqual(fake.state.problems, []);
  });

  test('TBA: token id and secret entered, every call signed HMAC-SHA256 with the realm; the consumer override is used; a wrong secret is refused', async () => {
    const tba = { tokenId: 'tok-id-1', tokenSecret: 'tok-secret-1', realm: '1234567_SB1' };
    const fake = await fakeFor(
      (url) => ({
        name: 'acme-tba',
        auth_mode: 'TBA',
        proxy: { base_url: `${url}/api`, verification: { method: 'GET', endpoints: ['/me'] } },
        connection_config: { accountId: { title: 'Account ID', pattern: '^[A-Za-z0-9_-]+$' } },
        docs: DOCS,
      }),
      { tba },
    );
    await nango.createIntegration({
      provider: 'acme-tba',
      unique_key: 'acme-tba',
      credentials: { type: 'TBA', client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret },
    } as never);
    const token = await connectSession();
    const connect = (body: Record<string, string>) =>
      fetch(`${t.url}/auth/tba/acme-tba?connect_session_token=${token}&params[accountId]=1234567-sb1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const wrong = await connect({ token_id: tba.tokenId, token_secret: 'nope' });
    assert.equal(wrong.status, 400);
    assert.equal(((await wrong.json()) as Json).error.code, 'connection_test_failed');
    const missing = await connect({ token_id: tba.tokenId });
    assert.equal(missing.status, 400);
    assert.deepEqual(((await missing.json()) as Json).error.errors[0].path, ['token_secret']);
    fake.state.problems.length = 0;

    const ok = await connect({ token_id: tba.tokenId, token_secret: tba.tokenSecret });
    assert.equal(ok.status, 200, await ok.clone().text());
    const { connectionId } = (await ok.json()) as Json;
    const conn = (await nango.getConnection('acme-tba', connectionId)) as Json;
    assert.deepEqual({ type: conn.credentials.type, token_id: conn.credentials.token_id }, { type: 'TBA', token_id: tba.tokenId });
    assert.equal((await nango.proxy({ providerConfigKey: 'acme-tba', connectionId, endpoint: '/items', params: { limit: '3' } })).status, 200);
    const call = apiCalls(fake, '/api/items').at(-1)!;
    assert.match(call.headers.authorization!, /^OAuth realm="1234567_SB1", .*oauth_signature_method="HMAC-SHA256"/);
    assert.deepEqual(fake.state.problems, []);

    // Created with the API in Nango's shape, with the end user's own consumer key and secret: the fake knows only its client's.
    const created = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'acme-tba',
        connection_id: 'tba-api',
        connection_config: { accountId: '1234567-sb1' },
        credentials: { type: 'TBA', token_id: tba.tokenId, token_secret: tba.tokenSecret, config_override: { client_id: 'other', client_secret: 'other' } },
      },
    });
    assert.equal(created.status, 400, await created.clone().text());
    assert.match(fake.state.problems.at(-1)!, /oauth_consumer_key other/);
  });
});
