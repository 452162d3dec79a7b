/**
 * The API's cached lookups (features/connections/lookups.ts, lib/db/change-feed.ts): two API
 * processes on one database, as production runs them. A lookup is answered from the cache until a
 * notice for its row arrives; a change made through one process (a deleted connection, new
 * credentials, a refreshed OAuth token, a new secret key) is honoured by the other on its very next
 * request, and a change made while the other's LISTEN connection was down is not served from its
 * cache once that connection is back. A token another process refreshed while its
 * notice is still on the way is picked up on the provider's 401 (issue 28, item 6).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { findConnectionPk, saveCredentials } from '../features/connections/store.js';
import { parseProviderDefinition, updateProvider } from '../features/providers/store.js';
import { CHANGE_CHANNEL } from '../lib/db/change-feed.js';
import { withTransaction } from '../lib/db/pool.js';
import { startGenericProviderFake, startOAuthProviderFake, type GenericProviderFake } from './fakes/index.js';
import { addOAuthIntegration, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A third-party API that records the credentials each call carried. */
async function startRecorder(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(String(req.headers.authorization ?? ''));
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('cached lookups across two API processes', () => {
  let a: TestPlatform;
  let b: TestPlatform;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  let oauth: Awaited<ReturnType<typeof startOAuthProviderFake>>;
  const extra: TestPlatform[] = [];

  const sameDatabase = (t: TestPlatform, devKey = t.devKey) => ({
    DATABASE_URL: t.databaseUrl,
    SWITCHYARD_ENCRYPTION_KEY: t.config.SWITCHYARD_ENCRYPTION_KEY!,
    SWITCHYARD_SECRET_KEY_DEV: devKey,
    SWITCHYARD_SECRET_KEY_PROD: t.prodKey,
  });

  /** One proxied call through `t`; returns its status and the credentials the provider saw (if it was reached). */
  async function proxied(t: TestPlatform, integration: string, connectionId: string, key = t.devKey): Promise<{ status: number; auth?: string; body: Json }> {
    const before = recorder.seen.length;
    const res = await t.api('/proxy/echo', { key, headers: { 'connection-id': connectionId, 'provider-config-key': integration } });
    const body = (await res.json()) as Json;
    return { status: res.status, body, ...(recorder.seen.length > before ? { auth: recorder.seen.at(-1) } : {}) };
  }

  async function ok(res: Response, status = 200): Promise<Json> {
    const text = await res.text();
    assert.equal(res.status, status, text);
    return text ? (JSON.parse(text) as Json) : {};
  }

  before(async () => {
    recorder = await startRecorder();
    oauth = await startOAuthProviderFake({
      clientId: 'cid',
      clientSecret: 'csecret',
      accessTokenTtlSeconds: 3600,
      issueRefreshTokens: true,
      autoApprove: true,
    });
    a = await startTestPlatform({ runWorker: false });
    b = await startTestPlatform({ runWorker: false, env: sameDatabase(a) });
    await ok(await a.api('/providers', { method: 'POST', json: recorderProvider('Key') }), 201);
    await ok(await a.api('/integrations', { method: 'POST', json: { provider: 'recorder', unique_key: 'rec' } }));
    await addOAuthIntegration(a, { uniqueKey: 'drive', oauthUrl: oauth.url, clientId: 'cid', clientSecret: 'csecret', baseUrl: recorder.url });
  });
  after(async () => {
    for (const t of [...extra, b, a]) await t?.stop().catch(() => undefined);
    await recorder?.close();
    await oauth?.close();
  });

  /** The user-defined provider of integration `rec`: its API key goes in `Authorization: <scheme> <key>`. */
  const recorderProvider = (scheme: string) => ({
    name: 'recorder',
    display_name: 'Recorder',
    auth_mode: 'API_KEY',
    proxy: { base_url: recorder.url, headers: { authorization: `${scheme} \${apiKey}` } },
    docs: 'https://recorder.test/docs',
  });

  /** An OAuth connection imported through A, its token valid for a day. */
  async function importOAuth(integration: string, connectionId: string, accessToken: string, refreshToken: string): Promise<void> {
    const expiresAt = new Date(Date.now() + 24 * 3600_000).toISOString();
    const credentials = { type: 'OAUTH2', access_token: accessToken, refresh_token: refreshToken, expires_at: expiresAt };
    await ok(await a.api('/connections', { method: 'POST', json: { provider_config_key: integration, connection_id: connectionId, credentials } }), 201);
  }

  const importKey = (t: TestPlatform, connectionId: string, apiKey: string) =>
    t.api('/connections', { method: 'POST', json: { provider_config_key: 'rec', connection_id: connectionId, credentials: { type: 'API_KEY', apiKey } } });

  test('a lookup is served from the cache: a change that sends no notice is not seen until a notice for its row arrives', async () => {
    await ok(await importKey(a, 'cached', 'first-key'), 201);
    assert.equal((await proxied(a, 'rec', 'cached')).auth, 'Key first-key'); // the connection is now in A's cache
    const db = b.platform.deps.db;
    const env = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    const pk = (await findConnectionPk(db, env, 'rec', 'cached'))!;
    // New credentials with the row's triggers off (session_replication_role), so no notice is sent:
    // only an answer from the cache can still carry the old key.
    await withTransaction(db, async (tx) => {
      await tx.query('SET LOCAL session_replication_role = replica');
      await saveCredentials(tx, b.platform.deps.box, pk, { type: 'API_KEY', apiKey: 'unannounced-key' });
    });
    assert.equal((await proxied(a, 'rec', 'cached')).auth, 'Key first-key', "served from A's cache, not read again");
    // The notice the trigger would have sent; A's barrier returns once every earlier notice has reached its caches.
    await db.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, `connections:${pk}`]);
    await a.platform.changeFeed!.barrier();
    assert.equal((await proxied(a, 'rec', 'cached')).auth, 'Key unannounced-key');
  });

  test('a connection deleted through the other process is unknown once its notice has reached this one', async () => {
    await ok(await importKey(a, 'gone', 'k1'), 201);
    assert.equal((await proxied(a, 'rec', 'gone')).auth, 'Key k1');
    assert.equal((await proxied(a, 'rec', 'gone')).auth, 'Key k1'); // now served from A's cache
    await ok(await b.api('/connections/gone?provider_config_key=rec', { method: 'DELETE' }));
    // B's delete is committed; its notice reaches A in commit order, before A's own barrier notice.
    await a.platform.changeFeed!.barrier();
    const after = await proxied(a, 'rec', 'gone');
    assert.equal(after.status, 400);
    assert.equal(after.body.error.code, 'unknown_connection');
    assert.equal(after.auth, undefined);
  });

  test('new API-key credentials imported through the other process are the ones the next call carries', async () => {
    await ok(await importKey(a, 'rotating', 'old-key'), 201);
    assert.equal((await proxied(a, 'rec', 'rotating')).auth, 'Key old-key');
    assert.equal((await proxied(a, 'rec', 'rotating')).auth, 'Key old-key');
    await ok(await importKey(b, 'rotating', 'new-key'), 201);
    assert.equal((await proxied(a, 'rec', 'rotating')).auth, 'Key new-key');
  });

  test('an OAuth token refreshed by the other process is the one the next proxied call carries', async () => {
    oauth.state.refreshTokens.push({ refreshToken: 'rt-seed', scope: 'x', issuedAt: Date.now(), revoked: false, uses: 0 });
    await importOAuth('drive', 'oauth', 'at-old', 'rt-seed');
    assert.equal((await proxied(a, 'drive', 'oauth')).auth, 'Bearer at-old');
    assert.equal((await proxied(a, 'drive', 'oauth')).auth, 'Bearer at-old');
    const refreshed = await ok(await b.api('/connections/oauth?provider_config_key=drive&force_refresh=true'));
    const fresh = refreshed.credentials.access_token as string;
    assert.notEqual(fresh, 'at-old');
    assert.equal(oauth.state.refreshCount, 1);
    // Another process's change reaches this one's cache when its notice arrives on the LISTEN
    // connection (README, How it scales): at once in practice, not within the same instant.
    await waitFor('process a to carry the refreshed token', async () => (await proxied(a, 'drive', 'oauth')).auth === `Bearer ${fresh}`);
    assert.equal(oauth.state.refreshCount, 1, 'process a used the refreshed token without refreshing again');
  });

  test('a 401 to a token another process refreshed before its notice arrived is retried once, with the stored token', async () => {
    const fake: GenericProviderFake = await startGenericProviderFake({ clientId: 'cid', clientSecret: 'csecret' });
    const holder = new pg.Client({ connectionString: a.databaseUrl });
    await holder.connect();
    try {
      const def = {
        name: 'rotating',
        display_name: 'Rotating',
        auth_mode: 'OAUTH2' as const,
        authorization_url: `${fake.url}/oauth/authorize`,
        token_url: `${fake.url}/oauth/token`,
        proxy: { base_url: `${fake.url}/api` },
        docs: 'https://rotating.test/docs',
      };
      fake.define(def);
      await ok(await a.api('/providers', { method: 'POST', json: def }), 201);
      await ok(
        await a.api('/integrations', {
          method: 'POST',
          json: { provider: 'rotating', unique_key: 'rot', credentials: { type: 'OAUTH2', client_id: 'cid', client_secret: 'csecret' } },
        }),
      );
      // The provider issued these before the connection was imported; it revokes an access token once it is refreshed.
      fake.state.tokens.set('at-first', Date.now() + 3600_000);
      fake.state.refreshTokens.add('rt-first');
      await importOAuth('rot', 'rot-1', 'at-first', 'rt-first');
      const call = () => a.api('/proxy/me', { headers: { 'connection-id': 'rot-1', 'provider-config-key': 'rot' } });
      const tokensSeen = () => fake.requests.filter((r) => r.path === '/api/me').map((r) => r.headers.authorization);
      assert.equal((await call()).status, 200);
      assert.equal((await call()).status, 200); // now served from A's cache
      fake.requests.length = 0;

      // A's LISTEN connection is kept in a statement (waiting on a lock the test holds): Postgres delivers
      // notices only between statements, so B's change reaches A's cache only once the test lets go.
      const lock = 2_028_028;
      await holder.query('SELECT pg_advisory_lock($1)', [lock]);
      const feedClient = (a.platform.changeFeed as unknown as { client: pg.Client }).client;
      const held = feedClient.query('SELECT pg_advisory_xact_lock($1)', [lock]);
      try {
        const refreshed = await ok(await b.api('/connections/rot-1?provider_config_key=rot&force_refresh=true'));
        const fresh = refreshed.credentials.access_token as string;
        fake.state.tokens.delete('at-first');
        const res = await call();
        assert.equal(res.status, 200, await res.text());
        assert.deepEqual(tokensSeen(), ['Bearer at-first', `Bearer ${fresh}`], 'refused with the cached token, then sent once with the stored one');
        assert.equal(fake.state.tokenRequests.filter((r) => r.grantType === 'refresh_token').length, 1, 'A did not refresh again');
      } finally {
        await holder.query('SELECT pg_advisory_unlock($1)', [lock]);
        await held;
      }

      // A 401 to the token the database holds is the provider's answer: no second request.
      await a.platform.deps.lookups.settled();
      fake.state.tokens.clear();
      fake.requests.length = 0;
      assert.equal((await call()).status, 401);
      assert.equal(tokensSeen().length, 1);
    } finally {
      await holder.end();
      await fake.close();
    }
  });

  test("a process's own write reaches its caches before it answers: the barrier waits for the write's notice", async () => {
    await ok(await importKey(a, 'own-writes', 'k'), 201);
    const feed = a.platform.changeFeed!;
    const pk = (await a.platform.deps.db.query<{ id: number }>(`SELECT id FROM connections WHERE connection_id = 'own-writes'`)).rows[0]!.id;
    const seen: number[] = [];
    const off = feed.subscribe((c) => {
      if (c !== 'reset' && c.table === 'connections') seen.push(c.id);
    });
    try {
      for (let i = 0; i < 20; i++) {
        seen.length = 0;
        await a.platform.deps.db.query('UPDATE connections SET connection_id = connection_id WHERE id = $1', [pk]);
        await feed.barrier();
        assert.deepEqual(seen, [pk], `write ${i + 1}: its notice arrived before the barrier's`);
      }
    } finally {
      off();
    }
  });

  test('a change made while the LISTEN connection was down is not served from the cache once it is back', async () => {
    await ok(await importKey(a, 'dropped', 'before-drop'), 201);
    assert.equal((await proxied(a, 'rec', 'dropped')).auth, 'Key before-drop');
    assert.equal((await proxied(a, 'rec', 'dropped')).auth, 'Key before-drop');
    const feed = a.platform.changeFeed!;
    const oldPid = await feed.backendPid();
    assert.ok(oldPid);
    const env = (await b.platform.deps.db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    const pk = (await findConnectionPk(b.platform.deps.db, env, 'rec', 'dropped'))!;
    // A's listener is gone (waited for) before this change commits: its notice reaches no one in A.
    await withTransaction(b.platform.deps.db, async (tx) => {
      await saveCredentials(tx, b.platform.deps.box, pk, { type: 'API_KEY', apiKey: 'during-drop' });
      const { rows } = await tx.query<{ ok: boolean }>('SELECT pg_terminate_backend($1, 10000) AS ok', [oldPid]);
      assert.equal(rows[0]!.ok, true);
    });
    await waitFor('the change feed to reconnect', async () => feed.live && (await feed.backendPid()) !== oldPid, 30_000, { everyMs: 20 });
    assert.equal((await proxied(a, 'rec', 'dropped')).auth, 'Key during-drop');
  });

  test("a user-defined provider is read once: a change without a notice is not seen, the other process's change is, on the next call", async () => {
    await ok(await importKey(a, 'defined', 'dk'), 201);
    assert.equal((await proxied(a, 'rec', 'defined')).auth, 'Key dk'); // the provider is now in A's cache
    const db = b.platform.deps.db;
    const env = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    try {
      // With the row's triggers off no notice is sent: only an answer from the cache still has the old template.
      await withTransaction(db, async (tx) => {
        await tx.query('SET LOCAL session_replication_role = replica');
        await updateProvider(tx, env, 'recorder', parseProviderDefinition(recorderProvider('Unannounced')).definition);
      });
      assert.equal((await proxied(a, 'rec', 'defined')).auth, 'Key dk', "served from A's cache, not read again");
      await ok(await b.api('/providers/recorder', { method: 'PUT', json: recorderProvider('Token') }));
      await a.platform.changeFeed!.barrier();
      assert.equal((await proxied(a, 'rec', 'defined')).auth, 'Token dk');
    } finally {
      await ok(await b.api('/providers/recorder', { method: 'PUT', json: recorderProvider('Key') }));
      await a.platform.changeFeed!.barrier();
    }
  });

  test('a secret key replaced by another API process at its start is refused by this one on the next request', async () => {
    await ok(await importKey(a, 'keyed', 'k'), 201);
    assert.equal((await proxied(a, 'rec', 'keyed')).status, 200);
    assert.equal((await proxied(a, 'rec', 'keyed')).status, 200); // the key's environment is now cached in A
    const newKey = crypto.randomUUID();
    extra.push(await startTestPlatform({ runWorker: false, env: sameDatabase(a, newKey) }));
    const old = await proxied(a, 'rec', 'keyed');
    assert.equal(old.status, 401);
    assert.equal(old.body.error.code, 'unknown_account');
    assert.equal((await proxied(a, 'rec', 'keyed', newKey)).status, 200);
    assert.equal((await a.api('/connections', { key: a.devKey })).status, 401);
  });
});
