/**
 * A connection-config value cannot steer credentials (issue 28, item 2). An end user's `params`
 * (or a developer's import) such as `attacker.example#`, `x/..`, `a@attacker.example` or a full URL
 * would otherwise move a token, base or authorize URL to another host, and the code exchange or
 * client-credentials request would carry the integration's client secret there; for Okta and Auth0
 * any domain was accepted. Each is refused with a 400 naming the field, and the attacker's server,
 * reachable on loopback where the trick can point at it, sees no connection at all. Values the
 * developer fixed on the connect session cannot be changed by the end user. Also: `token_params`
 * are filled with the connection's values (Auth0's `audience`, item 6).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { upsertConnection } from '../features/connections/store.js';
import type { ProviderDefinitionInput } from '../features/providers/definition.js';
import { startGenericProviderFake, type GenericProviderFake } from './fakes/generic-provider.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const DOCS = 'https://example.com/docs';
const CLIENT = { client_id: 'the-client', client_secret: 'the-client-secret' };

/** The attacker's server: counts every TCP connection (a TLS handshake to it counts too) and every request. */
async function startAttacker(): Promise<{ host: string; connections: () => number; requests: string[]; close(): Promise<void> }> {
  let connections = 0;
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
      res.setHeader('content-type', 'application/json');
      res.end('{"access_token":"stolen","token_type":"bearer","expires_in":3600,"id":"me"}');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('connection-config values cannot steer credentials', () => {
  let t: TestPlatform;
  let attacker: Awaited<ReturnType<typeof startAttacker>>;
  const fakes: GenericProviderFake[] = [];

  /** The tricks, literally, and the same tricks pointed at the attacker's server. */
  const tricks = () => [
    'attacker.example#',
    'x/..',
    'a@attacker.example',
    'https://attacker.example',
    `${attacker.host}#`,
    `${attacker.host}/..`,
    `a@${attacker.host}#`,
    `http://${attacker.host}/`,
  ];

  async function session(body: Json = { end_user: { id: 'u-1' } }): Promise<string> {
    const res = await t.api('/connect/sessions', { method: 'POST', json: body });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as Json).data.token;
  }
  const qs = (params: Record<string, string>) =>
    Object.entries(params)
      .map(([k, v]) => `params[${encodeURIComponent(k)}]=${encodeURIComponent(v)}`)
      .join('&');
  /** A connect flow whose credentials come in a JSON body (API key, client credentials). */
  async function connectWith(path: string, params: Record<string, string>, body: Json, token?: string): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${t.url}${path}?connect_session_token=${token ?? (await session())}&${qs(params)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  }
  /** The start of the OAuth flow: the redirect to the provider, or the failure page. */
  async function startOAuth(pck: string, query: string, token?: string): Promise<{ status: number; location: string | null; text: string }> {
    const res = await fetch(`${t.url}/oauth/connect/${pck}?connect_session_token=${token ?? (await session())}&${query}`, { redirect: 'manual' });
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }
  async function define(def: ProviderDefinitionInput): Promise<void> {
    const res = await t.api('/providers', { method: 'POST', json: def });
    assert.equal(res.status, 201, await res.clone().text());
  }
  async function integrate(provider: string, extra: Json = {}): Promise<void> {
    const res = await t.api('/integrations', { method: 'POST', json: { provider, unique_key: provider, ...extra } });
    assert.equal(res.status, 200, await res.clone().text());
  }
  function assertRefused(res: { status: number; body: Json }, field: string, what: string): void {
    assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.code, 'invalid_connection_config', `${what}: ${JSON.stringify(res.body)}`);
    assert.deepEqual(res.body.error.errors?.[0]?.path, ['connection_config', field], `${what}: ${JSON.stringify(res.body)}`);
  }
  function assertUntouched(): void {
    assert.equal(attacker.connections(), 0, `the attacker was reached: ${attacker.requests.join('\n')}`);
  }

  before(async () => {
    attacker = await startAttacker();
    t = await startTestPlatform({ runWorker: false });
    // User-defined, each auth mode, the tenant as a label of the provider's own domain.
    const onLabel = (path: string) => `https://\${connectionConfig.subdomain}.acme.test${path}`;
    const common = { proxy: { base_url: onLabel('/api') }, connection_config: { subdomain: { title: 'Subdomain' } }, docs: DOCS };
    await define({ name: 'cc-trap', display_name: 'CC', auth_mode: 'OAUTH2_CC', token_url: onLabel('/oauth/token'), ...common });
    await define({
      name: 'code-trap',
      display_name: 'Code',
      auth_mode: 'OAUTH2',
      authorization_url: onLabel('/oauth/authorize'),
      token_url: onLabel('/oauth/token'),
      ...common,
    });
    await define({
      name: 'key-trap',
      display_name: 'Key',
      auth_mode: 'API_KEY',
      ...common,
      proxy: { ...common.proxy, verification: { method: 'GET', endpoints: ['/me'] } },
    });
    await integrate('cc-trap', { credentials: { type: 'OAUTH2', ...CLIENT } });
    await integrate('code-trap', { credentials: { type: 'OAUTH2', ...CLIENT, scopes: 'read' } });
    await integrate('key-trap');
    await integrate('okta', { credentials: { type: 'OAUTH2', ...CLIENT, scopes: 'okta.users.read' } });
    await integrate('auth0', { credentials: { type: 'OAUTH2', ...CLIENT } });
    await integrate('auth0-cc', { credentials: { type: 'OAUTH2', ...CLIENT } });
  });
  after(async () => {
    await t?.stop();
    await attacker?.close();
    for (const f of fakes) await f.close();
  });

  test('user-defined OAUTH2_CC: the client-credentials request never leaves for a host a value names', async () => {
    for (const value of tricks()) assertRefused(await connectWith('/oauth2/auth/cc-trap', { subdomain: value }, {}), 'subdomain', value);
    assertUntouched();
  });

  test('user-defined OAUTH2: the flow does not start towards a host a value names', async () => {
    for (const value of tricks()) {
      const res = await startOAuth('code-trap', qs({ subdomain: value }));
      assert.equal(res.status, 400, `${value}: redirected to ${res.location}`);
      assert.match(res.text, /connection_config\.subdomain/, value);
    }
    assertUntouched();
  });

  test('user-defined API_KEY: the key is not verified against a host a value names', async () => {
    for (const value of tricks())
      assertRefused(await connectWith('/api-auth/api-key/key-trap', { subdomain: value }, { apiKey: 'the-key' }), 'subdomain', value);
    assertUntouched();
  });

  test('the developer’s import is held to the same checks', async () => {
    for (const value of tricks()) {
      const res = await t.api('/connections', {
        method: 'POST',
        json: { provider_config_key: 'cc-trap', connection_id: 'imported', connection_config: { subdomain: value }, credentials: { type: 'OAUTH2_CC' } },
      });
      assertRefused({ status: res.status, body: (await res.json()) as Json }, 'subdomain', value);
    }
    assertUntouched();
  });

  test('a connection stored with such a value (before this check existed) is not proxied, nor refreshed, towards it', async () => {
    const env = (await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    const integrationId = (await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM integrations WHERE unique_key = 'cc-trap'`)).rows[0]!.id;
    for (const [i, value] of tricks().entries()) {
      for (const expiresAt of [new Date(Date.now() + 3600_000), new Date(Date.now() - 1000)]) {
        const connectionId = `stored-${i}-${expiresAt.getTime() > Date.now() ? 'valid' : 'expired'}`;
        await upsertConnection(t.platform.deps.db, t.platform.deps.box, {
          environmentId: env,
          integrationId,
          connectionId,
          authMode: 'OAUTH2_CC',
          credentials: { type: 'OAUTH2_CC', token: 'tok', expires_at: expiresAt.toISOString() },
          connectionConfig: { subdomain: value },
          verifiedConfigKeys: [],
          tags: {},
          endUser: null,
        });
        const res = await t.api('/proxy/me', { headers: { 'connection-id': connectionId, 'provider-config-key': 'cc-trap' } });
        const body = (await res.json()) as Json;
        assert.equal(res.status, 400, `${value}: ${JSON.stringify(body)}`);
        assert.match(body.error.message, /connection_config\.subdomain/, value);
      }
    }
    assertUntouched();
  });

  test('Okta (catalogue, OAUTH2): only its documented domains, unless the integration allows a custom one', async () => {
    for (const value of [...tricks(), 'attacker.example', 'acme.okta.com.attacker.example']) {
      const res = await startOAuth('okta', qs({ domain: value }));
      assert.equal(res.status, 400, `${value}: redirected to ${res.location}`);
      assert.match(res.text, /connection_config\.domain/, value);
    }
    const ok = await startOAuth('okta', qs({ domain: 'acme.okta.com' }));
    assert.equal(ok.status, 302, ok.text);
    assert.equal(new URL(ok.location!).origin, 'https://acme.okta.com');
    assert.equal((await startOAuth('okta', qs({ domain: 'login.acme.com' }))).status, 400);
    const patched = await t.api('/integrations/okta', { method: 'PATCH', json: { integration_config: { custom_domains: 'login.acme.com' } } });
    assert.equal(patched.status, 200, await patched.clone().text());
    const custom = await startOAuth('okta', qs({ domain: 'login.acme.com' }));
    assert.equal(custom.status, 302, custom.text);
    assert.equal(new URL(custom.location!).origin, 'https://login.acme.com');
    assertUntouched();
  });

  test('Auth0 client credentials (catalogue auth0-cc, OAUTH2_CC): no client-credentials request to a domain outside *.auth0.com', async () => {
    for (const value of [...tricks(), 'attacker.example'])
      assertRefused(await connectWith('/oauth2/auth/auth0-cc', { hostname: value }, {}), 'hostname', value);
    assertUntouched();
    const logs = (await (await t.api('/logs?integration=auth0-cc')).json()) as Json;
    assert.deepEqual(logs.data, [], 'no request was made for the Auth0 integration');
  });

  test('values the developer set on the connect session cannot be changed by the end user', async () => {
    const fixed = await session({
      end_user: { id: 'u-2' },
      integrations_config_defaults: {
        'key-trap': { connection_config: { subdomain: 'acme' } },
        okta: { connection_config: { domain: 'acme.okta.com' }, authorization_params: { prompt: 'login' } },
      },
    });
    const changed = await connectWith('/api-auth/api-key/key-trap', { subdomain: `${attacker.host}#` }, { apiKey: 'k' }, fixed);
    assert.equal(changed.status, 400, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.error.errors[0].path, ['params', 'subdomain']);
    assert.equal((await startOAuth('okta', qs({ domain: 'evil.okta.com' }), fixed)).status, 400);
    assert.equal((await startOAuth('okta', 'authorization_params[prompt]=none', fixed)).status, 400);
    // The same values, or none, are fine.
    const same = await startOAuth('okta', `${qs({ domain: 'acme.okta.com' })}&authorization_params[prompt]=login&authorization_params[extra]=1`, fixed);
    assert.equal(same.status, 302, same.text);
    const location = new URL(same.location!);
    assert.equal(location.origin, 'https://acme.okta.com');
    assert.equal(location.searchParams.get('prompt'), 'login');
    assert.equal(location.searchParams.get('extra'), '1');
    assertUntouched();
  });

  test("an end user's authorization_params cannot replace the flow's own (redirect_uri, client_id, state, PKCE)", async () => {
    const own = ['redirect_uri', 'client_id', 'state', 'response_type', 'code_challenge', 'code_challenge_method'];
    const res = await startOAuth('okta', `${qs({ domain: 'acme.okta.com' })}&${own.map((k) => `authorization_params[${k}]=evil`).join('&')}`);
    assert.equal(res.status, 302, res.text);
    const location = new URL(res.location!);
    assert.equal(location.searchParams.get('redirect_uri'), `${t.config.publicUrl}/oauth/callback`);
    assert.equal(location.searchParams.get('client_id'), CLIENT.client_id);
    assert.equal(location.searchParams.get('response_type'), 'code');
    assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
    for (const k of own) assert.notEqual(location.searchParams.get(k), 'evil', k);
  });

  test("token_params are filled with the connection's values (Auth0's audience), never sent as the placeholder", async () => {
    const fake = await startGenericProviderFake({ clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret });
    fakes.push(fake);
    const def: ProviderDefinitionInput = {
      name: 'audience-cc',
      display_name: 'Audience',
      auth_mode: 'OAUTH2_CC',
      token_url: `${fake.url}/oauth/token`,
      token_params: { audience: 'https://${connectionConfig.tenant}.acme.test/api/v2/' },
      proxy: { base_url: `${fake.url}/api`, verification: { method: 'GET', endpoints: ['/me'] } },
      connection_config: { tenant: { title: 'Tenant' } },
      docs: DOCS,
    };
    fake.define(def);
    await define(def);
    await integrate('audience-cc', { credentials: { type: 'OAUTH2', ...CLIENT } });
    const res = await connectWith('/oauth2/auth/audience-cc', { tenant: 'acme' }, {});
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(fake.state.tokenRequests.at(-1)!.body.audience, 'https://acme.acme.test/api/v2/');
    assert.deepEqual(fake.state.problems, []);
  });
});
