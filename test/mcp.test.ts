/**
 * The MCP server and agent sessions, driven by the official MCP client (`Client` +
 * `StreamableHTTPClientTransport`) against the real platform and the Metabase fake.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { bundle, manifestOf } from '../cli/build.js';
import { CLI_VERSION, findScripts } from '../cli/project.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { createAction } from '../sdk/index.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, connectMetabase, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_mcp=';
const RUN_ID = 'dev.switchyard/run_id';

async function mcpClient(t: TestPlatform, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers } }));
  return client;
}

// A tool as `createTool` (wt-nango-sdk) declares it: an action with a title and MCP annotations.
const ping = Object.assign(
  createAction({
    description: 'Answers pong',
    endpoint: { method: 'GET', path: '/ping' },
    input: z.object({}),
    output: z.object({ pong: z.boolean() }),
    async exec() {
      return { pong: true };
    },
  }),
  { title: 'Ping', annotations: { readOnlyHint: true } },
);
// An action whose name holds the tool-name separator: on integration `mb` it is `mb__admin__ping`,
// the name `ping` of the integration `mb__admin` gets too.
const adminPing = createAction({
  description: 'Answers who ran',
  endpoint: { method: 'GET', path: '/admin-ping' },
  input: z.object({}),
  output: z.object({ who: z.string() }),
  async exec() {
    return { who: 'admin__ping of mb' };
  },
});
registerPrebuiltScripts('metabase', { ...metabaseScripts, ping, admin__ping: adminPing });

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEPLOYED_ACTION = `import { createAction } from 'switchyard/sdk';
import { z } from 'zod';
export default createAction({
  description: 'Shouts the text back',
  endpoint: { method: 'POST', path: '/shout' },
  input: z.object({ text: z.string() }),
  output: z.object({ shouted: z.string() }),
  async exec(_ctx, input) {
    return { shouted: input.text.toUpperCase() };
  },
});
`;

const textOf = (r: CallToolResult): Json => JSON.parse((r.content[0] as { text: string }).text) as Json;

describe('MCP server', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    await connectMetabase(t, metabase.url, API_KEY, { endpoints: ['POST /users', 'GET /users/single'] });
    await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId: 'globex' });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  const secretKeyHeaders = (connectionId = 'acme') => ({
    authorization: `Bearer ${t.devKey}`,
    'connection-id': connectionId,
    'provider-config-key': 'metabase',
  });

  async function logsOf(runId: string): Promise<Json[]> {
    return ((await (await t.api(`/logs?run_id=${runId}`)).json()) as Json).data as Json[];
  }

  test('a secret key lists the active actions of the connection, with schemas and descriptions, and calls one', async () => {
    const client = await mcpClient(t, secretKeyHeaders());
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), ['create-user', 'fetch-user']);
    const create = tools.find((x) => x.name === 'create-user')!;
    assert.equal(create.description, 'Creates a user in Metabase');
    assert.equal(create.inputSchema.type, 'object');
    assert.ok((create.inputSchema.required as string[]).includes('email'));
    assert.equal(create.outputSchema?.type, 'object');

    const result = (await client.callTool({ name: 'create-user', arguments: { firstName: 'Ada', lastName: 'L', email: 'ada@example.com' } })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.equal((result.structuredContent as Json).email, 'ada@example.com');
    assert.equal(textOf(result).email, 'ada@example.com');
    assert.ok(metabase.state.users.some((u) => u.email === 'ada@example.com'));
    const logs = await logsOf(result._meta![RUN_ID] as string);
    assert.ok(
      logs.some((l) => l.method === 'POST' && l.kind === 'action' && l.status === 200),
      JSON.stringify(logs),
    );
    await client.close();
  });

  test('a failed action is a tool result with isError, its message and payload; bad input too', async () => {
    const client = await mcpClient(t, secretKeyHeaders());
    const missing = (await client.callTool({ name: 'fetch-user', arguments: { id: 987654 } })) as CallToolResult;
    assert.equal(missing.isError, true);
    const err = textOf(missing).error as Json;
    assert.equal(err.code, 'script_http_error');
    assert.match(err.message, /404/);
    assert.ok(err.payload !== undefined);
    assert.ok((await logsOf(missing._meta![RUN_ID] as string)).some((l) => l.status === 404));

    const bad = (await client.callTool({ name: 'create-user', arguments: { firstName: 1 } })) as CallToolResult;
    assert.equal(bad.isError, true);
    assert.equal((textOf(bad).error as Json).code, 'invalid_action_input');

    const unknown = (await client.callTool({ name: 'update-user', arguments: {} })) as CallToolResult;
    assert.equal(unknown.isError, true);
    assert.equal((textOf(unknown).error as Json).code, 'unknown_tool');
    await client.close();
  });

  test('an action that meets a 429 waits, retries and completes', async () => {
    metabase.failNext({ status: 429, headers: { 'retry-after': '1' }, body: 'slow down', match: (r) => r.method === 'POST' && r.path === '/api/user' });
    const client = await mcpClient(t, secretKeyHeaders());
    const result = (await client.callTool({ name: 'create-user', arguments: { firstName: 'Cy', lastName: 'C', email: 'cy@example.com' } })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.equal(textOf(result).email, 'cy@example.com');
    const statuses = (await logsOf(result._meta![RUN_ID] as string)).map((l) => l.status);
    assert.ok(statuses.includes(429) && statuses.includes(200), JSON.stringify(statuses));
    await client.close();
  });

  test('SSE when the client lists it first; JSON otherwise', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const base = { ...secretKeyHeaders(), 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' };
    const sse = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...base, accept: 'text/event-stream, application/json' }, body });
    assert.equal(sse.status, 200);
    assert.match(sse.headers.get('content-type')!, /text\/event-stream/);
    assert.match(await sse.text(), /create-user/);
    const json = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...base, accept: 'application/json, text/event-stream' }, body });
    assert.match(json.headers.get('content-type')!, /application\/json/);
    assert.ok(((await json.json()) as Json).result.tools.length === 2);
    const get = await fetch(`${t.url}/mcp`, { headers: { ...secretKeyHeaders(), accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    assert.equal(((await get.json()) as Json).error.code, 'method_not_allowed');
    const noAccept = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...base, accept: 'text/html', 'x-request-id': 'mcp-406' }, body });
    assert.equal(noAccept.status, 406);
    // An answer the handler built itself still carries the middleware's request id and CORS headers.
    assert.equal(noAccept.headers.get('x-request-id'), 'mcp-406');
    assert.equal(noAccept.headers.get('access-control-allow-origin'), '*');
    assert.equal(noAccept.headers.get('access-control-expose-headers'), 'Content-Type,Content-Length,Location,X-Request-Id');
    assert.equal(((await noAccept.json()) as Json).error.code, 'not_acceptable');
    const notRpc = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...base, accept: 'application/json, text/event-stream' }, body: '{"hello":1}' });
    assert.equal(notRpc.status, 400);
    assert.equal(((await notRpc.json()) as Json).error.code, 'invalid_mcp_request');
  });

  test('a secret key without the connection headers, or naming an unknown connection, is refused', async () => {
    const init = (headers: Record<string, string>) => ({
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const noHeaders = await fetch(`${t.url}/mcp`, init({ authorization: `Bearer ${t.devKey}` }));
    assert.equal(noHeaders.status, 400);
    assert.equal(((await noHeaders.json()) as Json).error.code, 'missing_connection');
    const unknown = await fetch(`${t.url}/mcp`, init(secretKeyHeaders('nobody')));
    assert.equal(unknown.status, 400);
    const noAuth = await fetch(`${t.url}/mcp`, init({}));
    assert.equal(noAuth.status, 401);
  });

  describe('tools API (Nango 0.72)', () => {
    const call = (name: string, body: unknown, query = 'provider_config_key=metabase') =>
      t.api(`/connections/acme/tools/${name}/calls?${query}`, { method: 'POST', json: body });

    test('a call answers with the output; a failure with the action error; bad input names the field', async () => {
      const ok = await call('create-user', { input: { firstName: 'Gi', lastName: 'G', email: 'gi@example.com' } });
      assert.equal(ok.status, 200);
      assert.equal(((await ok.json()) as Json).email, 'gi@example.com');
      const failed = await call('fetch-user', { input: { id: 987654 } });
      assert.equal(failed.status, 424);
      assert.equal(((await failed.json()) as Json).error.code, 'script_http_error');
      const bad = await call('create-user', { input: { firstName: 'x' } });
      assert.equal(bad.status, 400);
      assert.ok(((await bad.json()) as Json).error.errors.some((e: Json) => e.path[0] === 'email'));
      const noPck = await call('create-user', { input: {} }, '');
      assert.equal(noPck.status, 400);
      assert.equal(((await noPck.json()) as Json).error.errors[0].path[0], 'provider_config_key');
      const inactive = await call('update-user', {});
      assert.equal(inactive.status, 404);
    });

    test('async=true answers 202 with an id, sends the async_action webhook, and the result is at /action/:id', async () => {
      const started = await call(
        'create-user',
        { input: { firstName: 'Ha', lastName: 'H', email: 'ha@example.com' } },
        'provider_config_key=metabase&async=true',
      );
      assert.equal(started.status, 202);
      const { id, statusUrl } = (await started.json()) as Json;
      assert.equal(started.headers.get('location'), statusUrl);
      await waitFor('the async_action event', async () => {
        const ev = await t.platform.deps.db.query(`SELECT payload FROM events WHERE type = 'async_action' AND payload->'payload'->>'id' = $1`, [id]);
        return ev.rows.length > 0;
      });
      const result = await t.api(statusUrl as string);
      assert.equal(result.status, 200);
      assert.equal(((await result.json()) as Json).email, 'ha@example.com');
    });
  });

  describe('agent sessions', () => {
    async function createSession(body: Json): Promise<Json> {
      const res = await t.api('/agent-sessions', { method: 'POST', json: body });
      assert.equal(res.status, 201, await res.clone().text());
      return ((await res.json()) as Json).data as Json;
    }
    async function nangoDelete(connectionId: string): Promise<void> {
      const res = await t.api(`/connections/${connectionId}?provider_config_key=metabase`, { method: 'DELETE' });
      assert.ok(res.status < 300, await res.clone().text());
    }
    const session = (extra: Json = {}) =>
      createSession({ end_user: { id: 'u1' }, connections: [{ provider_config_key: 'metabase', connection_id: 'acme' }], ...extra });

    test('lists and calls its connections’ tools as <provider_config_key>__<action>; the run records the session', async () => {
      const s = await session();
      assert.equal(s.mcp_url, `${t.config.publicUrl}/mcp`);
      assert.ok(Date.parse(s.expires_at) - Date.now() > 55 * 60_000);
      const client = await mcpClient(t, { authorization: `Bearer ${s.token}` });
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x) => x.name).sort(), ['metabase__create-user', 'metabase__fetch-user']);
      const result = (await client.callTool({
        name: 'metabase__create-user',
        arguments: { firstName: 'Di', lastName: 'D', email: 'di@example.com' },
      })) as CallToolResult;
      assert.equal(textOf(result).email, 'di@example.com');
      const runId = result._meta![RUN_ID] as string;
      const run = await t.platform.deps.db.query(`SELECT agent_session_id, connection_id FROM action_runs WHERE id = $1`, [runId]);
      assert.equal(run.rows[0].agent_session_id, s.id);
      assert.equal(run.rows[0].connection_id, 'acme');
      assert.ok((await logsOf(runId)).some((l) => l.method === 'POST' && l.status === 200));
      const bySession = ((await (await t.api(`/logs?agent_session_id=${s.id}`)).json()) as Json).data as Json[];
      assert.ok(bySession.length > 0 && bySession.every((l) => l.run_id === runId), JSON.stringify(bySession));
      await client.close();
    });

    test('its tools list narrows what it sees and may call', async () => {
      const s = await session({ tools: ['metabase__fetch-user'] });
      const client = await mcpClient(t, { authorization: `Bearer ${s.token}` });
      assert.deepEqual(
        (await client.listTools()).tools.map((x) => x.name),
        ['metabase__fetch-user'],
      );
      const refused = (await client.callTool({
        name: 'metabase__create-user',
        arguments: { firstName: 'E', lastName: 'E', email: 'e@example.com' },
      })) as CallToolResult;
      assert.equal(refused.isError, true);
      assert.ok(!metabase.state.users.some((u) => u.email === 'e@example.com'));
      await client.close();
    });

    test('a header naming another connection is refused; no header widens its scope', async () => {
      const s = await session();
      await assert.rejects(
        mcpClient(t, { authorization: `Bearer ${s.token}`, 'connection-id': 'globex', 'provider-config-key': 'metabase' }),
        /connection_not_in_session/,
      );
      const client = await mcpClient(t, { authorization: `Bearer ${s.token}`, 'connection-id': 'acme', 'provider-config-key': 'metabase' });
      const unprefixed = (await client.callTool({
        name: 'create-user',
        arguments: { firstName: 'F', lastName: 'F', email: 'f@example.com' },
      })) as CallToolResult;
      assert.equal(unprefixed.isError, true);
      await client.close();
      const bad = await t.api('/agent-sessions', {
        method: 'POST',
        json: { end_user: { id: 'u1' }, connections: [{ provider_config_key: 'metabase', connection_id: 'acme' }], tools: ['other__create-user'] },
      });
      assert.equal(bad.status, 400);
      assert.deepEqual(((await bad.json()) as Json).error.errors[0].path, ['tools', 0]);
    });

    test('tool names are never ambiguous: keys whose names could collide are refused, and a stored session cannot reach another connection’s action', async () => {
      for (const key of ['mb', 'mb__admin']) {
        assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: key } })).status, 200);
        await addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: key });
      }
      const enable = (key: string, path: string) =>
        t.api(`/integrations/${key}/endpoints`, { method: 'PATCH', json: { endpoints: [{ method: 'GET', path, enabled: true }] } });
      assert.equal((await enable('mb', '/admin-ping')).status, 200);
      assert.equal((await enable('mb__admin', '/ping')).status, 200);
      const connections = [
        { provider_config_key: 'mb', connection_id: 'acme' },
        { provider_config_key: 'mb__admin', connection_id: 'acme' },
      ];
      // A session stored as an earlier release stored it: allowed `mb__admin__ping`, meaning ping of mb__admin.
      const { createAgentSession } = await import('../features/agent-sessions/store.js');
      const db = t.platform.deps.db;
      const envId = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
      const pks = await db.query<{ id: number; key: string }>(
        `SELECT c.id, i.unique_key AS key FROM connections c JOIN integrations i ON i.id = c.integration_id WHERE i.unique_key IN ('mb', 'mb__admin') AND c.connection_id = 'acme'`,
      );
      const stored = await createAgentSession(db, {
        environmentId: envId,
        endUser: { id: 'u1' },
        connections: connections.map((c) => ({
          providerConfigKey: c.provider_config_key,
          connectionId: c.connection_id,
          connectionPk: pks.rows.find((r) => r.key === c.provider_config_key)!.id,
        })),
        tools: ['mb__admin__ping'],
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      const client = await mcpClient(t, { authorization: `Bearer ${stored.token}` });
      const call = (await client.callTool({ name: 'mb__admin__ping', arguments: {} })) as CallToolResult;
      assert.equal(call.isError, true, `ran: ${JSON.stringify(call.structuredContent)}`);
      assert.equal((textOf(call).error as Json).code, 'unknown_tool');
      const names = (await client.listTools()).tools.map((x) => x.name);
      assert.deepEqual(names, [], 'a name two tools would share is listed for neither');
      await client.close();

      const refused = await t.api('/agent-sessions', { method: 'POST', json: { end_user: { id: 'u1' }, connections, tools: ['mb__admin__ping'] } });
      assert.equal(refused.status, 400, await refused.clone().text());
      assert.deepEqual(((await refused.json()) as Json).error.errors[0].path, ['connections', 1]);
      // Alone, each key is unambiguous: `mb__admin__ping` is mb's admin__ping.
      const alone = await createSession({ end_user: { id: 'u1' }, connections: [connections[0]], tools: ['mb__admin__ping'] });
      const aloneClient = await mcpClient(t, { authorization: `Bearer ${alone.token}` });
      assert.deepEqual(
        (await aloneClient.listTools()).tools.map((x) => x.name),
        ['mb__admin__ping'],
      );
      assert.deepEqual((await aloneClient.callTool({ name: 'mb__admin__ping', arguments: {} })).structuredContent, { who: 'admin__ping of mb' });
      await aloneClient.close();
    });

    test('a session is bound to the connection rows it was given: a deleted and re-created connection of the same id is not reachable', async () => {
      await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId: 'reborn' });
      const s = await createSession({ end_user: { id: 'u1' }, connections: [{ provider_config_key: 'metabase', connection_id: 'reborn' }] });
      const before = await mcpClient(t, { authorization: `Bearer ${s.token}` });
      assert.equal((await before.listTools()).tools.length, 2);
      await before.close();

      await nangoDelete('reborn');
      await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId: 'reborn' });
      await assert.rejects(mcpClient(t, { authorization: `Bearer ${s.token}` }), /unknown_connection/);
      const users = metabase.state.users.length;
      const direct = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'metabase__create-user', arguments: { firstName: 'R', lastName: 'R', email: 'r@example.com' } },
        }),
      });
      assert.equal(direct.status, 400, await direct.clone().text());
      assert.equal(((await direct.json()) as Json).error.code, 'unknown_connection');
      assert.equal(metabase.state.users.length, users, 'nothing ran on the new connection');
    });

    test('migration 021 binds the live sessions made before to the rows they meant: a connection re-created since is not theirs', async () => {
      const { createAgentSession } = await import('../features/agent-sessions/store.js');
      const db = t.platform.deps.db;
      await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId: 'phoenix' });
      const envId = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
      const old = (connectionId: string) =>
        createAgentSession(db, {
          environmentId: envId,
          endUser: { id: 'u1' },
          connections: [{ providerConfigKey: 'metabase', connectionId }],
          tools: null,
          expiresAt: new Date(Date.now() + 3_600_000),
        });
      const kept = await old('acme');
      const lost = await old('phoenix');
      await nangoDelete('phoenix');
      await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId: 'phoenix' });
      const sql = await readFile(path.join(ROOT, 'lib/db/migrations/021_agent_session_connection_rows.sql'), 'utf8');
      await db.query(sql);
      const keptClient = await mcpClient(t, { authorization: `Bearer ${kept.token}` });
      assert.equal((await keptClient.listTools()).tools.length, 2);
      await keptClient.close();
      await assert.rejects(mcpClient(t, { authorization: `Bearer ${lost.token}` }), /unknown_connection/);
    });

    test('the token works only on /mcp: every other route answers 401', async () => {
      const s = await session();
      for (const [method, path] of [
        ['GET', '/connections'],
        ['POST', '/action/trigger'],
        ['GET', '/logs'],
        ['POST', '/agent-sessions'],
        ['GET', '/connect/session'],
        ['GET', '/providers'],
      ] as const) {
        const res = await t.api(path, { method, key: s.token, headers: { 'connection-id': 'acme', 'provider-config-key': 'metabase' } });
        assert.equal(res.status, 401, `${method} ${path}`);
      }
    });

    test('an expired session and a revoked one are refused with 401', async () => {
      const short = await session({ expires_in: 1 });
      await waitFor('the session to expire', () => Date.parse(short.expires_at) < Date.now());
      await assert.rejects(mcpClient(t, { authorization: `Bearer ${short.token}` }), /agent_session_expired/);

      const s = await session();
      const client = await mcpClient(t, { authorization: `Bearer ${s.token}` });
      assert.equal((await client.listTools()).tools.length, 2);
      assert.equal((await t.api(`/agent-sessions/${s.id}`, { method: 'DELETE' })).status, 204);
      await assert.rejects(client.listTools(), /agent_session_revoked/);
      await client.close();
      assert.equal((await t.api(`/agent-sessions/${s.id}`, { method: 'DELETE', key: t.prodKey })).status, 404);
    });

    test("Nango's POST /sessions: connections by tags or pinned, a toolset, its MCP server at /session/:id/mcp, DELETE /sessions/:id", async () => {
      for (const [id, tags] of [
        ['tagged-1', { tenant: 'shared', team: 'a' }],
        ['tagged-2', { tenant: 'shared', team: 'b' }],
      ] as const) {
        await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId: id, extra: { tags } });
      }
      const create = async (body: Json) => {
        const res = await t.api('/sessions', { method: 'POST', json: body });
        return { status: res.status, body: (await res.json()) as Json };
      };
      const byTag = await create({
        tenant: { connections: { any: [{ tags: { team: 'a' } }] } },
        toolset: { metabase: { allow: { tools: ['fetch-user', 'create-user'] }, deny: { tools: ['create-user'] } } },
        pinned_tools: { metabase: ['fetch-user'] },
        expires_in: '15m',
      });
      assert.equal(byTag.status, 201, JSON.stringify(byTag.body));
      const s = byTag.body.data as Json;
      assert.equal(s.mcp_url, `${t.config.publicUrl}/session/${s.session_id}/mcp`);
      assert.deepEqual(s.toolset, { metabase: { connected: true, tools_pinned: 1, tools_searchable: 0 } });
      assert.deepEqual(s.meta_tools, { nango_tool_search: false, nango_execute: false, nango_proxy: false });
      assert.ok(Math.abs(Date.parse(s.expires_at) - Date.now() - 15 * 60_000) < 60_000, s.expires_at);

      const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(s.mcp_url), { requestInit: { headers: { authorization: `Bearer ${s.session_token}` } } }));
      assert.deepEqual(
        (await client.listTools()).tools.map((x) => x.name),
        ['metabase__fetch-user'],
      );
      const user = metabase.state.users[0]!;
      const fetched = (await client.callTool({ name: 'metabase__fetch-user', arguments: { id: user.id } })) as CallToolResult;
      assert.equal(textOf(fetched).email, user.email);
      const run = await t.platform.deps.db.query(`SELECT agent_session_id, connection_id FROM action_runs WHERE id = $1`, [fetched._meta![RUN_ID]]);
      assert.deepEqual(run.rows[0], { agent_session_id: s.session_id, connection_id: 'tagged-1' });
      const denied = (await client.callTool({ name: 'metabase__create-user', arguments: {} })) as CallToolResult;
      assert.equal(denied.isError, true);

      const other = await create({ tenant: { connections: { pinned: [{ integration_id: 'metabase', connection_id: 'acme' }] } } });
      assert.equal(other.status, 201, JSON.stringify(other.body));
      const wrongPath = await t.api(`/session/${other.body.data.session_id}/mcp`, {
        method: 'POST',
        key: s.session_token,
        headers: { accept: 'application/json, text/event-stream' },
        json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      assert.equal(wrongPath.status, 404);
      assert.equal(((await wrongPath.json()) as Json).error.code, 'session_not_found');
      const bySecretKey = await t.api(`/session/${s.session_id}/mcp`, { method: 'POST', json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      assert.equal(bySecretKey.status, 401);

      const ended = await t.api(`/sessions/${s.session_id}`, { method: 'DELETE' });
      assert.equal(ended.status, 200);
      const endedBody = ((await ended.json()) as Json).data as Json;
      assert.equal(endedBody.session_id, s.session_id);
      assert.equal(endedBody.reason, 'terminated');
      assert.ok(Date.parse(endedBody.ended_at) <= Date.now());
      await assert.rejects(client.listTools(), /agent_session_revoked/);
      await client.close();
      assert.equal((await t.api(`/sessions/${s.session_id}`, { method: 'DELETE', key: t.prodKey })).status, 404);

      const ambiguous = await create({ tenant: { connections: { any: [{ tags: { tenant: 'shared' } }] } } });
      assert.equal(ambiguous.status, 400);
      assert.equal(ambiguous.body.error.code, 'ambiguous_connections');
      assert.equal(ambiguous.body.error.payload.integrations.metabase.match_count, 2);
      const unknownPinned = await create({ tenant: { connections: { pinned: [{ integration_id: 'metabase', connection_id: 'ghost' }] } } });
      assert.deepEqual([unknownPinned.body.error.code, unknownPinned.body.error.payload.pinned[0].connection_id], ['unknown_pinned_connection', 'ghost']);
      const pinned = { tenant: { connections: { pinned: [{ integration_id: 'metabase', connection_id: 'acme' }] } } };
      const unknownTool = await create({ ...pinned, toolset: { metabase: { allow: { tools: ['nope'] } } } });
      assert.deepEqual([unknownTool.status, unknownTool.body.error.code, unknownTool.body.error.payload.tools[0].tool], [400, 'unknown_tool', 'nope']);
      const syncTool = await create({ ...pinned, toolset: { metabase: { deny: { tools: ['users'] } } } });
      assert.equal(syncTool.body.error.code, 'unsupported_function_type');
      const notInToolset = await create({
        ...pinned,
        toolset: { metabase: { allow: { tools: ['fetch-user'] } } },
        pinned_tools: { metabase: ['create-user'] },
      });
      assert.equal(notInToolset.body.error.code, 'tool_not_in_toolset');
      const strayIntegration = await create({ ...pinned, toolset: { other: '*' } });
      assert.equal(strayIntegration.body.error.code, 'unknown_integration');
      const fieldOf = async (body: Json) => {
        const r = await create(body);
        assert.equal(r.status, 400, JSON.stringify(r.body));
        assert.equal(r.body.error.code, 'invalid_body');
        return r.body.error.errors[0].path.join('.');
      };
      assert.equal(await fieldOf({ ...pinned, meta_tools: { nango_proxy: true } }), 'meta_tools.nango_proxy');
      assert.equal(await fieldOf({ ...pinned, expires_in: 'soon' }), 'expires_in');
      assert.equal(await fieldOf({ tenant: { connections: {} } }), 'tenant.connections');
      assert.equal(await fieldOf({ ...pinned, toolset: { metabase: { allow: ['x'] } } }), 'toolset');
    });
  });

  test('a tool’s title and annotations (createTool) reach the MCP tool list', async () => {
    const res = await t.api('/integrations/metabase/endpoints', { method: 'PATCH', json: { endpoints: [{ method: 'GET', path: '/ping', enabled: true }] } });
    assert.equal(res.status, 200);
    const client = await mcpClient(t, secretKeyHeaders());
    const tool = (await client.listTools()).tools.find((x) => x.name === 'ping')!;
    assert.equal(tool.title, 'Ping');
    assert.equal(tool.annotations?.readOnlyHint, true);
    assert.deepEqual((await client.callTool({ name: 'ping', arguments: {} })).structuredContent, { pong: true });
    await client.close();
  });

  test('a deployed action is a tool too (sandboxed), with its schema and description', async () => {
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'deployed' } })).status, 200);
    await addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: 'deployed' });
    const work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'mcp-'));
    await mkdir(path.join(work, 'node_modules'), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules', 'zod'), path.join(work, 'node_modules', 'zod'), 'dir');
    await mkdir(path.join(work, 'deployed', 'actions'), { recursive: true });
    await writeFile(path.join(work, 'deployed', 'actions', 'shout.ts'), DEPLOYED_ACTION);
    const scripts: Json[] = [];
    for (const s of await findScripts(work)) {
      const code = await bundle(work, s);
      scripts.push({ integration: s.integration, name: s.name, bundle: code, manifest: await manifestOf(work, s, code) });
    }
    const deployed = await t.api('/scripts/deploy', { method: 'POST', json: { scripts, activate: true, cli_version: CLI_VERSION } });
    assert.equal(deployed.status, 200, await deployed.clone().text());
    const enabled = await t.api('/integrations/deployed/endpoints', {
      method: 'PATCH',
      json: { endpoints: [{ method: 'POST', path: '/shout', enabled: true }] },
    });
    assert.equal(enabled.status, 200);

    const client = await mcpClient(t, { ...secretKeyHeaders(), 'provider-config-key': 'deployed' });
    const shout = (await client.listTools()).tools.find((x) => x.name === 'shout')!;
    assert.equal(shout.description, 'Shouts the text back');
    assert.deepEqual(shout.inputSchema.required, ['text']);
    const result = (await client.callTool({ name: 'shout', arguments: { text: 'hi' } })) as CallToolResult;
    assert.deepEqual(result.structuredContent, { shouted: 'HI' });
    await client.close();
  });
});
