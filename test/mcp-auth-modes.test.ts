/**
 * MCP_OAUTH2 and MCP_OAUTH2_GENERIC (Nango's auth modes for MCP servers), each through the connect
 * routes the Connect UI opens (GET /oauth/connect/:key, the provider's pages, GET /oauth/callback)
 * against an MCP server fake driven by the definition (test/fakes/mcp-provider.ts): the client
 * registered by RFC 7591 (once per integration; per connection for the generic mode, after RFC 9728
 * and RFC 8414 discovery), kept encrypted; PKCE; the token used by the proxy; a forced refresh.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import type { ProviderDefinitionInput } from '../features/providers/definition.js';
import { createProvider, parseProviderDefinition } from '../features/providers/store.js';
import { MCP_SCOPES, startMcpProviderFake, type McpProviderFake } from './fakes/mcp-provider.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const DOCS = 'https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization';
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

describe('MCP auth modes', () => {
  let t: TestPlatform;
  let nango: Nango;
  let envId: number;
  const fakes: McpProviderFake[] = [];

  async function fakeFor(build: (url: string) => ProviderDefinitionInput, opts: Parameters<typeof startMcpProviderFake>[0] = {}) {
    const fake = await startMcpProviderFake(opts);
    fakes.push(fake);
    const def = build(fake.url);
    fake.define(def);
    await createProvider(t.platform.deps.db, envId, parseProviderDefinition(def).definition);
    return fake;
  }

  /** The Connect UI's OAuth popup: start, the provider's authorize page, the callback; the new connection's id. */
  async function connect(key: string, params: Record<string, string> = {}): Promise<string> {
    const res = await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u-1' } } });
    const token = ((await res.json()) as Json).data.token as string;
    const qs = Object.entries(params).map(([k, v]) => `&params[${encodeURIComponent(k)}]=${encodeURIComponent(v)}`);
    const start = await fetch(`${t.url}/oauth/connect/${key}?connect_session_token=${token}${qs.join('')}`, { redirect: 'manual' });
    assert.equal(start.status, 302, await start.clone().text());
    const approved = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    assert.equal(approved.status, 302, await approved.clone().text());
    const done = await fetch(approved.headers.get('location')!);
    const page = await done.text();
    assert.equal(done.status, 200, page);
    assert.match(page, /nango_oauth_callback_success/);
    const { connections } = (await nango.listConnections({ integrationId: key } as never)) as Json;
    return (connections as Json[]).at(-1)!.connection_id as string;
  }

  async function toolsList(key: string, connectionId: string) {
    return nango.proxy({ method: 'POST', providerConfigKey: key, connectionId, endpoint: '/', data: TOOLS_LIST });
  }

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

  test('MCP_OAUTH2 dynamic: the client is registered once per integration and kept encrypted; PKCE, proxy, refresh', async () => {
    const fake = await fakeFor((url) => ({
      name: 'acme-mcp',
      display_name: 'Acme (MCP)',
      categories: ['mcp'],
      auth_mode: 'MCP_OAUTH2',
      client_registration: 'dynamic',
      authorization_url: `${url}/auth/authorize`,
      token_url: `${url}/auth/token`,
      registration_url: `${url}/auth/register`,
      registration_params: { response_types: ['code'], grant_types: ['authorization_code', 'refresh_token'] },
      authorization_params: { response_type: 'code', resource: `${url}/mcp` },
      token_params: { grant_type: 'authorization_code' },
      refresh_params: { grant_type: 'refresh_token' },
      default_scopes: ['offline_access'],
      proxy: { base_url: `${url}/mcp`, headers: { accept: 'application/json,text/event-stream' } },
      docs: DOCS,
    }));
    await nango.createIntegration({ provider: 'acme-mcp', unique_key: 'acme-mcp' } as never);

    const first = await connect('acme-mcp');
    const second = await connect('acme-mcp');
    assert.equal(fake.state.clients.size, 1, 'one registration for the integration');
    const [clientId, registered] = [...fake.state.clients][0]!;
    assert.deepEqual(registered.redirectUris, [`${t.config.publicUrl}/oauth/callback`]);
    assert.deepEqual(registered.body.grant_types, ['authorization_code', 'refresh_token']);

    const integration = (await (await t.api('/integrations/acme-mcp?include=credentials')).json()) as Json;
    assert.equal(integration.data.credentials.client_id, clientId);
    const { rows } = await t.platform.deps.db.query<{ credentials_enc: string }>(`SELECT credentials_enc FROM integrations WHERE unique_key = 'acme-mcp'`);
    assert.ok(rows[0]!.credentials_enc && !rows[0]!.credentials_enc.includes(clientId), 'the registered client is stored encrypted');

    const exchange = fake.state.tokenRequests.find((r) => r.grantType === 'authorization_code')!;
    assert.ok(exchange.body.code_verifier, 'PKCE');
    assert.equal(exchange.body.client_secret, undefined, 'a public client sends no secret');

    for (const id of [first, second]) {
      const res = await toolsList('acme-mcp', id);
      assert.equal(res.status, 200);
      assert.equal((res.data as Json).result.tools[0].name, 'search');
    }
    const conn = (await nango.getConnection('acme-mcp', first)) as Json;
    assert.equal(conn.credentials.type, 'OAUTH2');
    const refreshed = (await nango.getConnection('acme-mcp', first, true)) as Json;
    assert.notEqual(refreshed.credentials.access_token, conn.credentials.access_token);
    assert.equal(fake.state.tokenRequests.filter((r) => r.grantType === 'refresh_token').length, 1);
    assert.equal((await toolsList('acme-mcp', first)).status, 200);
    assert.equal(fake.requests.filter((r) => r.path.startsWith('/mcp')).at(-1)!.headers.authorization, `Bearer ${refreshed.credentials.access_token}`);
    assert.deepEqual(fake.state.problems, []);
  });

  test('MCP_OAUTH2_GENERIC: discovery from the server URL, a client per connection (its secret encrypted), proxy, refresh', async () => {
    const fake = await fakeFor(
      () => ({
        name: 'acme-mcp-generic',
        display_name: 'MCP server (generic)',
        categories: ['mcp'],
        auth_mode: 'MCP_OAUTH2_GENERIC',
        connection_config: {
          mcp_server_url: { type: 'string', title: 'MCP Server URL', description: 'The URL of your MCP server', pattern: '^https?://[^\\s]+$' },
        },
        proxy: { base_url: '${connectionConfig.mcp_server_url}', headers: { accept: 'application/json,text/event-stream' } },
        docs: DOCS,
      }),
      { confidential: true },
    );
    await nango.createIntegration({ provider: 'acme-mcp-generic', unique_key: 'acme-mcp-generic' } as never);

    const first = await connect('acme-mcp-generic', { mcp_server_url: fake.serverUrl });
    const second = await connect('acme-mcp-generic', { mcp_server_url: fake.serverUrl });
    assert.equal(fake.state.clients.size, 2, 'one registration per connection');
    const wellKnown = fake.requests.filter((r) => r.path.startsWith('/.well-known/')).map((r) => r.path);
    assert.deepEqual([...new Set(wellKnown)], ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server/auth']);

    const conn = (await nango.getConnection('acme-mcp-generic', first)) as Json;
    const config = conn.connection_config as Json;
    assert.equal(config.mcp_server_url, fake.serverUrl);
    assert.equal(config.oauth_resource_url, fake.serverUrl);
    assert.equal(JSON.parse(config.oauth_metadata).token_endpoint, `${fake.url}/auth/token`);
    const clientId = JSON.parse(config.oauth_client_info).client_id as string;
    const secret = fake.state.clients.get(clientId)!.secret!;
    assert.ok(secret);
    assert.ok(!JSON.stringify(config).includes(secret), 'the client secret is not in connection_config');
    assert.equal(conn.credentials.config_override?.client_secret, secret, 'kept with the encrypted credentials');
    const exchange = fake.state.tokenRequests.find((r) => r.grantType === 'authorization_code' && r.body.client_id === clientId)!;
    assert.equal(exchange.body.resource, fake.serverUrl);
    assert.ok(fake.requests.some((r) => r.path === '/auth/authorize' && r.query.scope === MCP_SCOPES.join(' ')));

    for (const id of [first, second]) assert.equal((await toolsList('acme-mcp-generic', id)).status, 200);
    const refreshed = (await nango.getConnection('acme-mcp-generic', first, true)) as Json;
    assert.notEqual(refreshed.credentials.access_token, conn.credentials.access_token);
    const refresh = fake.state.tokenRequests.find((r) => r.grantType === 'refresh_token')!;
    assert.equal(refresh.body.client_id, clientId);
    assert.equal(refresh.body.resource, fake.serverUrl);
    assert.equal((await toolsList('acme-mcp-generic', first)).status, 200);
    assert.deepEqual(fake.state.problems, []);
  });

  test('MCP_OAUTH2_GENERIC: a server URL that is not https (and not an allowed private host) is refused before anything is sent', async () => {
    const res = await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u-2' } } });
    const token = ((await res.json()) as Json).data.token as string;
    const before = fakes[1]!.requests.length;
    const start = await fetch(
      `${t.url}/oauth/connect/acme-mcp-generic?connect_session_token=${token}&params[mcp_server_url]=${encodeURIComponent('http://mcp.example.com/mcp')}`,
      { redirect: 'manual' },
    );
    assert.equal(start.status, 400);
    assert.match(await start.text(), /mcp_server_url/);
    assert.equal(fakes[1]!.requests.length, before);
  });
});
