import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import pg from 'pg';
import { startMetabaseFake, startOAuthProviderFake } from './fakes/index.js';
import { addMetabaseConnection, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { checkWorkflowId, executeWorkflow, taskQueueFor } from '../workflows/contracts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const REFRESH_DEADLINE_MS = 5000;

describe('integrations, connections and the connect flows', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let oauth: Awaited<ReturnType<typeof startOAuthProviderFake>>;
  let nango: Nango;
  const API_KEY = 'mb_goodkey=';

  before(async () => {
    t = await startTestPlatform({ env: { SWITCHYARD_TOKEN_REFRESH_DEADLINE_MS: String(REFRESH_DEADLINE_MS) } });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    oauth = await startOAuthProviderFake({
      clientId: 'gd-client',
      clientSecret: 'gd-secret',
      accessTokenTtlSeconds: 3600,
      issueRefreshTokens: true,
      autoApprove: true,
    });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await nango.createIntegration({ provider: 'metabase', unique_key: 'metabase' });
    await nango.createIntegration({
      provider: 'google-drive',
      unique_key: 'drive',
      credentials: { type: 'OAUTH2', client_id: 'gd-client', client_secret: 'gd-secret', scopes: 'https://www.googleapis.com/auth/drive.readonly' },
      integration_config: { authorization_url: `${oauth.url}/oauth/authorize`, token_url: `${oauth.url}/oauth/token`, base_url: oauth.url },
    } as never);
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    await oauth?.close();
  });

  async function session(body: Json = { end_user: { id: 'user-1', email: 'u1@example.com' } }): Promise<string> {
    const res = await t.api('/connect/sessions', { method: 'POST', json: body });
    assert.equal(res.status, 201);
    const { data } = (await res.json()) as Json;
    assert.match(data.token, /^nango_connect_session_[a-f0-9]{64}$/);
    assert.ok(Date.parse(data.expires_at) - Date.now() > 29 * 60_000);
    return data.token;
  }

  test('@nangohq/node: listIntegrations and an integration with its webhook URL', async () => {
    const list = (await nango.listIntegrations()) as Json;
    assert.deepEqual(list.configs.map((i: Json) => i.unique_key).sort(), ['drive', 'metabase']);
    const res = await t.api('/integrations/metabase?include=webhook');
    const { data } = (await res.json()) as Json;
    const envUuid = (await t.platform.deps.db.query('SELECT uuid FROM environments WHERE name = $1', ['dev'])).rows[0].uuid;
    assert.equal(data.webhook_url, `${t.config.publicUrl}/webhook/${envUuid}/metabase`);
    const session = (await nango.createConnectSession({ end_user: { id: 'u-9' }, allowed_integrations: ['metabase'] } as never)) as Json;
    assert.match(session.data.token, /^nango_connect_session_/);
    assert.equal(session.data.connect_link, `${t.config.publicUrl}/connect-ui/?session_token=${session.data.token}`);
    const scoped = (await (await fetch(`${t.url}/integrations`, { headers: { authorization: `Bearer ${session.data.token}` } })).json()) as Json;
    assert.deepEqual(
      scoped.data.map((i: Json) => i.unique_key),
      ['metabase'],
    );
    const badSession = await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u' }, allowed_integrations: ['metabase', 'ghost'] } });
    assert.deepEqual(((await badSession.json()) as Json).error.errors[0].path, ['allowed_integrations', 1]);
  });

  test('bad integration input is refused with the field named', async () => {
    const unknown = (await (await t.api('/integrations', { method: 'POST', json: { provider: 'nope', unique_key: 'x' } })).json()) as Json;
    assert.deepEqual(unknown.error.errors[0].path, ['provider']);
    const dup = await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } });
    assert.equal(dup.status, 400);
    assert.deepEqual(((await dup.json()) as Json).error.errors[0].path, ['unique_key']);
    const wrongCreds = await t.api('/integrations', {
      method: 'POST',
      json: { provider: 'metabase', unique_key: 'mb2', credentials: { type: 'OAUTH2', client_id: 'a', client_secret: 'b' } },
    });
    assert.equal(wrongCreds.status, 400);
    assert.deepEqual(((await wrongCreds.json()) as Json).error.errors[0].path, ['credentials', 'type']);
  });

  test('connect Metabase with API key + hostname through the session flow', async () => {
    const token = await session();
    const res = await fetch(`${t.url}/api-auth/api-key/metabase?connect_session_token=${token}&params[hostname]=${encodeURIComponent(metabase.url)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: API_KEY }),
    });
    assert.equal(res.status, 200);
    const { connectionId, providerConfigKey } = (await res.json()) as Json;
    assert.equal(providerConfigKey, 'metabase');
    const conn = (await nango.getConnection('metabase', connectionId)) as Json;
    assert.deepEqual(conn.credentials, { type: 'API_KEY', apiKey: API_KEY });
    assert.equal(conn.connection_config.hostname, metabase.url);
    assert.equal(conn.end_user.id, 'user-1');
    assert.equal(conn.tags.end_user_id, 'user-1');
    assert.match(conn.created_at, /\+00:00$/);
    // the auth event was recorded for the webhook issue to deliver
    const events = await t.platform.deps.db.query(`SELECT payload FROM events WHERE type = 'auth' AND connection_id = $1`, [connectionId]);
    assert.equal(events.rows[0].payload.operation, 'creation');
  });

  test('a wrong API key, a missing hostname, a bad or expired session leave no connection behind', async () => {
    const before = ((await nango.listConnections()) as Json).connections.length;
    const token = await session();
    const wrongKey = await fetch(`${t.url}/api-auth/api-key/metabase?connect_session_token=${token}&params[hostname]=${encodeURIComponent(metabase.url)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: 'mb_wrong=' }),
    });
    assert.equal(wrongKey.status, 400);
    assert.equal(((await wrongKey.json()) as Json).error.code, 'connection_test_failed');
    const noHostname = await fetch(`${t.url}/api-auth/api-key/metabase?connect_session_token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: API_KEY }),
    });
    assert.equal(noHostname.status, 400);
    assert.match(((await noHostname.json()) as Json).error.message, /hostname/);
    const badToken = await fetch(`${t.url}/api-auth/api-key/metabase?connect_session_token=nango_connect_session_nothex`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(badToken.status, 401);
    assert.equal(((await badToken.json()) as Json).error.code, 'invalid_connect_session_token_format');
    await t.platform.deps.db.query(`UPDATE connect_sessions SET expires_at = now() - interval '1 second'`);
    const expired = await fetch(`${t.url}/api-auth/api-key/metabase?connect_session_token=${token}&params[hostname]=x`, {
      method: 'POST',
      body: '{"apiKey":"k"}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(expired.status, 401);
    assert.equal(((await expired.json()) as Json).error.code, 'unknown_connect_session_token');
    const wrongType = await t.api('/connections', {
      method: 'POST',
      json: { provider_config_key: 'metabase', credentials: { type: 'OAUTH2', access_token: 'x' } },
    });
    assert.equal(wrongType.status, 400);
    assert.equal(((await wrongType.json()) as Json).error.code, 'invalid_auth_mode');
    const unknownIntegration = await t.api('/connections', {
      method: 'POST',
      json: { provider_config_key: 'ghost', credentials: { type: 'API_KEY', apiKey: 'k' } },
    });
    assert.equal(unknownIntegration.status, 404);
    assert.equal(((await nango.listConnections()) as Json).connections.length, before);
  });

  test('OAuth 2 popup flow: forged state refused, real state exchanged once, with PKCE', async () => {
    const forged = await fetch(`${t.url}/oauth/callback?code=abc&state=${crypto.randomUUID()}`);
    assert.equal(forged.status, 400);
    assert.match(await forged.text(), /unknown, expired or was already used/);

    const token = await session();
    const start = await fetch(`${t.url}/oauth/connect/drive?connect_session_token=${token}`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    const authorize = new URL(start.headers.get('location')!);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('access_type'), 'offline');
    const approved = await fetch(authorize, { redirect: 'manual' });
    const callback = approved.headers.get('location')!;
    const done = await fetch(callback);
    assert.equal(done.status, 200, await done.clone().text());
    assert.match(await done.text(), /nango_oauth_callback_success/);
    const replay = await fetch(callback);
    assert.equal(replay.status, 400);

    const list = ((await nango.listConnections({ integrationId: 'drive' } as never)) as Json).connections;
    assert.equal(list.length, 1);
    const conn = (await nango.getConnection('drive', list[0].connection_id, false, true)) as Json;
    assert.equal(conn.credentials.type, 'OAUTH2');
    assert.ok(conn.credentials.refresh_token);
    // Only when asked, as Nango: the client's default (refresh_token=false) and no flag at all.
    const plain = (await nango.getConnection('drive', list[0].connection_id)) as Json;
    assert.ok(plain.credentials.access_token);
    assert.equal(plain.credentials.refresh_token, undefined);
    const bare = (await (await t.api(`/connections/${list[0].connection_id}?provider_config_key=drive`)).json()) as Json;
    assert.equal(bare.credentials.refresh_token, undefined);
  });

  test("a connect session's OAuth overrides: its scopes in the authorize URL, its client at the code exchange and every refresh, its secret never stored in clear", async () => {
    const own = await startOAuthProviderFake({ clientId: 'own-client', clientSecret: 'own-secret', issueRefreshTokens: true, autoApprove: true });
    try {
      await nango.createIntegration({
        provider: 'google-drive',
        unique_key: 'drive-own',
        credentials: { type: 'OAUTH2', client_id: 'gd-client', client_secret: 'gd-secret', scopes: 'default.scope' },
        integration_config: { authorization_url: `${own.url}/oauth/authorize`, token_url: `${own.url}/oauth/token`, base_url: own.url },
      } as never);
      const overrides = {
        'drive-own': {
          connection_config: {
            oauth_scopes_override: 'files.read,files.write',
            oauth_client_id_override: 'own-client',
            oauth_client_secret_override: 'own-secret',
          },
        },
      };
      const token = await session({
        tags: { end_user_id: 'own-1' },
        integrations_config_defaults: overrides,
        overrides: { 'drive-own': { docs_connect: 'https://docs.example.com/own' } },
      });
      const seen = (await (await fetch(`${t.url}/connect/session`, { headers: { authorization: `Bearer ${token}` } })).json()) as Json;
      assert.deepEqual(seen.data.integrations_config_defaults['drive-own'].connection_config, {
        oauth_scopes_override: 'files.read,files.write',
        oauth_client_id_override: 'own-client',
      });
      assert.deepEqual(seen.data.overrides, { 'drive-own': { docs_connect: 'https://docs.example.com/own' } });
      assert.equal(seen.data.connectUISettings.defaultTheme, 'system');
      const stored = await t.platform.deps.db.query(`SELECT integrations_config_defaults::text AS d, client_secret_overrides_enc AS s FROM connect_sessions`);
      assert.ok(stored.rows.every((r) => !r.d?.includes('own-secret') && !r.s?.includes('own-secret')));

      const start = await fetch(`${t.url}/oauth/connect/drive-own?connect_session_token=${token}`, { redirect: 'manual' });
      assert.equal(start.status, 302, await start.clone().text());
      const authorize = new URL(start.headers.get('location')!);
      assert.equal(authorize.searchParams.get('client_id'), 'own-client');
      assert.equal(authorize.searchParams.get('scope'), 'files.read files.write');
      const done = await fetch((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
      assert.equal(done.status, 200, await done.clone().text());
      const [conn] = ((await nango.listConnections({ integrationId: 'drive-own' } as never)) as Json).connections;
      const row = await t.platform.deps.db.query(`SELECT connection_config::text AS c, credentials_enc FROM connections WHERE connection_id = $1`, [
        conn.connection_id,
      ]);
      assert.ok(!row.rows[0].c.includes('own-client') && !row.rows[0].credentials_enc.includes('own-secret'), row.rows[0].c);
      // The fake knows only own-client: each refresh succeeding means each used the override.
      for (const n of [1, 2]) {
        const refreshed = (await nango.getConnection('drive-own', conn.connection_id, true)) as Json;
        assert.equal(own.state.refreshCount, n);
        assert.ok(refreshed.credentials.access_token);
      }

      const reconnect = await t.api('/connect/sessions/reconnect', {
        method: 'POST',
        json: { connection_id: conn.connection_id, integration_id: 'drive-own', integrations_config_defaults: overrides, overrides: { 'drive-own': {} } },
      });
      assert.equal(reconnect.status, 201, await reconnect.clone().text());
      const again = await fetch(`${t.url}/oauth/connect/drive-own?connect_session_token=${((await reconnect.json()) as Json).data.token}`, {
        redirect: 'manual',
      });
      const reauthorize = new URL(again.headers.get('location')!);
      assert.deepEqual([reauthorize.searchParams.get('client_id'), reauthorize.searchParams.get('scope')], ['own-client', 'files.read files.write']);
      assert.equal((await fetch((await fetch(reauthorize, { redirect: 'manual' })).headers.get('location')!)).status, 200);

      const bad = await t.api('/connect/sessions', {
        method: 'POST',
        json: { tags: { end_user_id: 'x' }, integrations_config_defaults: { 'drive-own': { connection_config: { oauth_scopes_override: 'a, b' } } } },
      });
      assert.equal(bad.status, 400);
      assert.deepEqual(((await bad.json()) as Json).error.errors[0].path, [
        'integrations_config_defaults',
        'drive-own',
        'connection_config',
        'oauth_scopes_override',
      ]);
    } finally {
      await own.close();
    }
  });

  test('an expiring token is refreshed once under concurrent reads', async () => {
    const conn = ((await nango.listConnections({ integrationId: 'drive' } as never)) as Json).connections[0];
    await t.platform.deps.db.query(`UPDATE connections SET expires_at = now() + interval '5 minutes' WHERE connection_id = $1`, [conn.connection_id]);
    const refreshesBefore = oauth.state.refreshCount;
    const reads = await Promise.all(Array.from({ length: 8 }, () => nango.getConnection('drive', conn.connection_id) as Promise<Json>));
    assert.equal(oauth.state.refreshCount - refreshesBefore, 1);
    const tokens = new Set(reads.map((r) => r.credentials.access_token));
    assert.equal(tokens.size, 1);
    const forced = (await nango.getConnection('drive', conn.connection_id, true)) as Json;
    assert.equal(oauth.state.refreshCount - refreshesBefore, 2);
    assert.notEqual(forced.credentials.access_token, [...tokens][0]);
  });

  test('while the provider answers a refresh, no transaction holds the connection row: another writer is not blocked', async () => {
    const conn = ((await nango.listConnections({ integrationId: 'drive' } as never)) as Json).connections[0];
    const pk = (await t.platform.deps.db.query('SELECT id FROM connections WHERE connection_id = $1', [conn.connection_id])).rows[0].id as number;
    const tokenRequestsBefore = oauth.requests.filter((r) => r.path === '/oauth/token').length;
    const release = oauth.provider.holdTokenResponses();
    let unblocked = false;
    try {
      const refreshing = nango.getConnection('drive', conn.connection_id, true);
      await waitFor('the refresh request to reach the provider', () => oauth.requests.filter((r) => r.path === '/oauth/token').length > tokenRequestsBefore);
      const client = await t.platform.deps.db.connect();
      try {
        await client.query('BEGIN');
        // NOWAIT: fails at once if any transaction holds the row.
        await client.query('SELECT id FROM connections WHERE id = $1 FOR UPDATE NOWAIT', [pk]);
        unblocked = true;
      } catch (err) {
        assert.match((err as Error).message, /could not obtain lock/);
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
      release();
      assert.ok(((await refreshing) as Json).credentials.access_token);
    } finally {
      release();
    }
    assert.ok(unblocked, 'a transaction held the connection row while the provider was answering the refresh');
  });

  test('a token endpoint that trickles its answer is cut at the refresh deadline, not kept alive by each chunk', async () => {
    const conn = ((await nango.listConnections({ integrationId: 'drive' } as never)) as Json).connections[0];
    // One space every 250 ms, 200 times: 50 s of an answer whose every pause is far below the per-chunk timeout.
    oauth.provider.trickleTokenResponses({ everyMs: 250, chunks: 200 });
    try {
      const res = await t.api(`/connections/${conn.connection_id}?provider_config_key=drive&force_refresh=true`);
      const body = (await res.json()) as Json;
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.error.code, 'invalid_credentials');
      assert.match(body.error.message, new RegExp(`did not answer within ${REFRESH_DEADLINE_MS} ms`));
      // Nango's payload: the connection with the error just recorded, without credentials.
      assert.equal(body.error.payload?.connection?.connection_id, conn.connection_id, JSON.stringify(body.error));
      assert.deepEqual(body.error.payload.connection.credentials, {});
      assert.equal(body.error.payload.connection.errors[0]?.type, 'auth');
    } finally {
      oauth.provider.trickleTokenResponses(null);
    }
    // The lease is released: the next refresh goes through.
    assert.ok(((await nango.getConnection('drive', conn.connection_id, true)) as Json).credentials.access_token);
  });

  test('a database failure during a refresh is not an invalid credential: no auth error, no alert, a 500', async () => {
    const conn = ((await nango.listConnections({ integrationId: 'drive' } as never)) as Json).connections[0];
    const db = t.platform.deps.db;
    const pk = (await db.query('SELECT id FROM connections WHERE connection_id = $1', [conn.connection_id])).rows[0].id as number;
    await db.query(`UPDATE connections SET status = 'ok', errors = '[]'::jsonb WHERE id = $1`, [pk]);
    const alertsBefore = Number((await db.query(`SELECT count(*) FROM alerts WHERE status = 'open'`)).rows[0].count);
    const tokenRequestsBefore = oauth.requests.filter((r) => r.path === '/oauth/token').length;
    const release = oauth.provider.holdTokenResponses();
    let renamed = false;
    try {
      const refreshing = t.api(`/connections/${conn.connection_id}?provider_config_key=drive&force_refresh=true`);
      await waitFor('the refresh request to reach the provider', () => oauth.requests.filter((r) => r.path === '/oauth/token').length > tokenRequestsBefore);
      // The provider answers well; the statements after it fail, as they would in a database outage.
      await db.query('ALTER TABLE connection_refresh_leases RENAME TO connection_refresh_leases_away');
      renamed = true;
      release();
      const res = await refreshing;
      const body = (await res.json()) as Json;
      assert.equal(res.status, 500, JSON.stringify(body));
      assert.notEqual(body.error.code, 'invalid_credentials');
    } finally {
      release();
      if (renamed) await db.query('ALTER TABLE connection_refresh_leases_away RENAME TO connection_refresh_leases');
      await db.query('DELETE FROM connection_refresh_leases WHERE connection_id = $1', [pk]);
    }
    const row = (await db.query('SELECT status, errors FROM connections WHERE id = $1', [pk])).rows[0];
    assert.deepEqual({ status: row.status, errors: row.errors }, { status: 'ok', errors: [] });
    assert.equal(Number((await db.query(`SELECT count(*) FROM alerts WHERE status = 'open'`)).rows[0].count), alertsBefore);
  });

  test('the real @nangohq/frontend popup flow: its socket, claimed by the session token of the popup, gets the outcome', async () => {
    // The SDK unchanged, in Node: its WebSocket is Node's (the browser's API), the popup a stand-in
    // whose location the test follows as the browser would.
    const popup = { closed: false, location: '' as unknown, close() {} };
    const globals = globalThis as { window?: unknown };
    globals.window = { open: () => popup, screen: { width: 1280, height: 800 } };
    try {
      const { default: NangoFrontend } = await import('@nangohq/frontend');
      const frontend = new NangoFrontend({ host: t.url, connectSessionToken: await session() });
      const outcome = frontend.auth('drive');
      const href = await waitFor('the popup to be sent to /oauth/connect', () => (popup.location ? String(popup.location) : null));
      assert.match(href, /\/oauth\/connect\/drive\?.*ws_client_id=/);
      const page = await fetch(href);
      assert.equal(page.status, 200, await page.clone().text());
      const result = await outcome;
      assert.equal(result.providerConfigKey, 'drive');
      assert.ok(((await nango.getConnection('drive', result.connectionId)) as Json).credentials.access_token);
    } finally {
      delete globals.window;
    }
  });

  test('import connections, metadata on two at once (all or nothing), per-connection end users', async () => {
    for (const id of ['imp-1', 'imp-2']) {
      const body = await addMetabaseConnection(t, metabase.url, API_KEY, {
        connectionId: id,
        extra: { end_user: { id: 'shared-user', email: 'shared@example.com' } },
      });
      assert.match(body.created_at, /Z$/);
    }
    await nango.setMetadata('metabase', ['imp-1', 'imp-2'], { team: 'blue' });
    await nango.updateMetadata('metabase', ['imp-1', 'imp-2'], { region: 'eu' });
    for (const id of ['imp-1', 'imp-2']) assert.deepEqual(((await nango.getConnection('metabase', id)) as Json).metadata, { team: 'blue', region: 'eu' });
    const partial = await t.api('/connections/metadata', {
      method: 'POST',
      json: { provider_config_key: 'metabase', connection_id: ['imp-1', 'ghost'], metadata: { team: 'red' } },
    });
    assert.equal(partial.status, 404);
    assert.equal(((await nango.getConnection('metabase', 'imp-1')) as Json).metadata.team, 'blue');

    await nango.patchConnection({ connectionId: 'imp-1', provider_config_key: 'metabase' }, { end_user: { id: 'shared-user', email: 'renamed@example.com' } });
    assert.equal(((await nango.getConnection('metabase', 'imp-1')) as Json).end_user.email, 'renamed@example.com');
    assert.equal(((await nango.getConnection('metabase', 'imp-2')) as Json).end_user.email, 'shared@example.com');
  });

  test('list with filters and paging; delete', async () => {
    const page = (await (await t.api('/connections?integrationId=metabase&limit=1&page=1')).json()) as Json;
    assert.equal(page.connections.length, 1);
    const byTag = (await (await t.api('/connections?tags[end_user_id]=shared-user')).json()) as Json;
    assert.deepEqual(byTag.connections.map((c: Json) => c.connection_id).sort(), ['imp-1', 'imp-2']);
    assert.ok(byTag.connections[0].created.endsWith('Z'));
    assert.equal(byTag.connections[0].credentials, undefined);
    await nango.deleteConnection('metabase', 'imp-2');
    const gone = await t.api('/connections/imp-2?provider_config_key=metabase');
    assert.equal(gone.status, 404);
    const again = await t.api('/connections/imp-2?provider_config_key=metabase', { method: 'DELETE' });
    assert.equal(again.status, 400);
    assert.equal(((await again.json()) as Json).error.code, 'unknown_connection');
  });

  test('connection check workflow sets status; a failing key shows in errors[]', async () => {
    const deadline = Date.now() + 30_000;
    let conn: Json = {};
    while (Date.now() < deadline) {
      conn = (await nango.getConnection('metabase', 'imp-1')) as Json;
      if (conn.status === 'ok') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(conn.status, 'ok');
    assert.ok(conn.last_check_at);
    const handle = t.platform.deps.temporal.schedule.getHandle(checkWorkflowId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'imp-1'));
    assert.ok((await handle.describe()).spec);
    metabase.failNext({ status: 401, body: 'Unauthenticated', times: 3 }); // the key was revoked upstream
    const workflowId = `manual-check-${Date.now()}`;
    await executeWorkflow(t.platform.deps.temporal, 'connectionCheckWorkflow', {
      workflowId,
      taskQueue: taskQueueFor(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev'),
      args: [{ connectionPk: conn.id }],
    });
    const failing = (await nango.getConnection('metabase', 'imp-1')) as Json;
    assert.equal(failing.status, 'failing');
    assert.equal(failing.errors[0].type, 'auth');
    // The check is a local activity: one workflow task and no activity task on the server.
    const events = (await t.platform.deps.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    assert.deepEqual(
      {
        activityTasks: events.filter((e) => e.activityTaskScheduledEventAttributes).length,
        workflowTasks: events.filter((e) => e.workflowTaskScheduledEventAttributes).length,
      },
      { activityTasks: 0, workflowTasks: 1 },
    );
  });

  test('every method on every /connection path answers 410 with the replacement', async () => {
    for (const [method, path] of [
      ['GET', '/connection'],
      ['GET', '/connection/imp-1?provider_config_key=metabase'],
      ['DELETE', '/connection/imp-1'],
      ['POST', '/connection'],
      ['POST', '/connection/metadata'],
      ['PATCH', '/connection/imp-1/metadata'],
      ['PUT', '/connection/anything/else'],
    ] as const) {
      const res = await t.api(path, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }) });
      assert.equal(res.status, 410, `${method} ${path}`);
      const body = (await res.json()) as Json;
      assert.equal(body.error.code, 'endpoint_removed');
      assert.match(body.error.message, /\/connections/);
    }
  });

  test('the database holds no plaintext credential', async () => {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    const dump =
      JSON.stringify((await client.query('SELECT * FROM connections')).rows) + JSON.stringify((await client.query('SELECT * FROM integrations')).rows);
    await client.end();
    assert.ok(!dump.includes(API_KEY));
    assert.ok(!dump.includes('gd-secret'));
    for (const tok of oauth.state.tokens) assert.ok(!dump.includes(tok.accessToken), 'access token in plaintext');
  });
});

describe('removed paths before 2026-01-20', () => {
  let t: TestPlatform;
  before(async () => {
    const { clockFrom } = await import('../lib/clock.js');
    t = await startTestPlatform({ clock: clockFrom(new Date('2025-12-01T00:00:00Z')) });
  });
  after(async () => t?.stop());

  test('/connection works as a deprecated alias', async () => {
    const res = await t.api('/connection');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('deprecation'), 'true');
    assert.deepEqual(await res.json(), { connections: [] });
  });
});
