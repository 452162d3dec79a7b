/**
 * Isolation and secrets: one environment's key cannot reach another's data; a connect-session token
 * cannot call secret-key routes; private and metadata addresses are refused; and after real flows
 * neither the database nor the logs hold a plaintext credential, key or token.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createLogger } from '../lib/log.js';
import { startMetabaseFake, startOAuthProviderFake } from './fakes/index.js';
import { addMetabaseConnection, createMetabaseIntegration, enableMetabaseEndpoints, startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_isolation_secret=';

/** A refusal's status with its reason, so a 400 for the wrong cause (a missing header, a typo) fails. */
async function refusal(res: Response): Promise<string> {
  const body = (await res.json().catch(() => ({}))) as Json;
  return `${res.status} ${body.error?.code}: ${body.error?.message}`;
}

describe('isolation and secrets', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let oauth: Awaited<ReturnType<typeof startOAuthProviderFake>>;
  let logs = '';
  const dev = { 'connection-id': 'acme', 'provider-config-key': 'metabase' };

  before(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs += chunk.toString();
        done();
      },
    });
    t = await startTestPlatform({ log: createLogger('debug', sink) });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    oauth = await startOAuthProviderFake({ clientId: 'iso-client', clientSecret: 'iso-client-secret-value', autoApprove: true, issueRefreshTokens: true });
    await createMetabaseIntegration(t);
    await t.api('/integrations', {
      method: 'POST',
      json: {
        provider: 'google-drive',
        unique_key: 'drive',
        credentials: { type: 'OAUTH2', client_id: 'iso-client', client_secret: 'iso-client-secret-value', scopes: 'a', webhook_secret: 'iso-webhook-secret' },
        integration_config: { authorization_url: `${oauth.url}/oauth/authorize`, token_url: `${oauth.url}/oauth/token`, base_url: oauth.url },
      },
    });
    await addMetabaseConnection(t, metabase.url, API_KEY);
    await enableMetabaseEndpoints(t, ['POST /users']);
    await t.api('/proxy/api/user/current?api_key=leaky-query-secret', { headers: dev });
    const session = (await (await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u1' } } })).json()) as Json;
    const start = await fetch(`${t.url}/oauth/connect/drive?connect_session_token=${session.data.token}`, { redirect: 'manual' });
    const approved = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    assert.equal((await fetch(approved.headers.get('location')!)).status, 200);
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    await oauth?.close();
  });

  test("the prod key reads, changes and triggers nothing of dev's", async () => {
    const prod = { key: t.prodKey };
    assert.equal((await t.api('/integrations/metabase', prod)).status, 404);
    assert.deepEqual(((await (await t.api('/integrations', prod)).json()) as Json).data, []);
    assert.deepEqual(((await (await t.api('/connections', prod)).json()) as Json).connections, []);
    assert.equal(await refusal(await t.api('/connections/acme?provider_config_key=metabase', prod)), '400 unknown_provider_config: Provider does not exists');
    assert.equal(
      await refusal(await t.api('/connections/acme?provider_config_key=metabase', { ...prod, method: 'DELETE' })),
      '400 unknown_connection: Connection not found',
    );
    assert.equal(
      (await t.api('/connections/metadata', { ...prod, method: 'POST', json: { connection_id: 'acme', provider_config_key: 'metabase', metadata: { x: 1 } } }))
        .status,
      404,
    );
    assert.equal(
      await refusal(await t.api('/action/trigger', { ...prod, method: 'POST', headers: dev, json: { action_name: 'create-user', input: {} } })),
      '400 unknown_provider: Failed to find provider',
    );
    assert.equal((await t.api('/users', { ...prod, method: 'POST', headers: dev, json: {} })).status, 404);
    assert.equal(
      await refusal(await t.api('/records?model=User', { ...prod, headers: dev })),
      '400 unknown_connection: Provided ConnectionId and ProviderConfigKey does not match a valid connection',
    );
    assert.equal(
      await refusal(await t.api('/proxy/api/user/current', { ...prod, headers: dev })),
      '400 unknown_provider_config: Provider config metabase does not exist',
    );
    assert.equal(
      await refusal(await t.api('/sync/trigger', { ...prod, method: 'POST', json: { syncs: ['users'], provider_config_key: 'metabase' } })),
      '400 unknown_provider_config: Integration metabase does not exist',
    );
    const prodLogs = (await (await t.api('/logs', prod)).json()) as Json;
    assert.deepEqual(prodLogs.data, []);
    const devLogs = (await (await t.api('/logs')).json()) as Json;
    assert.ok(devLogs.data.length > 0);
    assert.equal((await t.api('/connections/acme?provider_config_key=metabase')).status, 200);
  });

  test('a connect-session token cannot call secret-key routes', async () => {
    const session = (await (await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u2' } } })).json()) as Json;
    for (const [method, path] of [
      ['GET', '/connections'],
      ['POST', '/integrations'],
      ['GET', '/connections/acme?provider_config_key=metabase'],
      ['POST', '/action/trigger'],
      ['GET', '/logs'],
      ['GET', '/environment'],
    ] as const) {
      const res = await fetch(`${t.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${session.data.token}`, 'content-type': 'application/json', ...dev },
        body: method === 'POST' ? '{}' : undefined,
      });
      assert.equal(res.status, 401, `${method} ${path}`);
    }
  });

  test('private, loopback, link-local and metadata addresses are refused unless allowed', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://10.0.0.7/hook', 'http://[::1]:8080/x', 'http://192.168.1.1/']) {
      const res = await t.api('/environment', { method: 'PATCH', json: { webhook_url: url } });
      assert.match(await refusal(res), /^400 invalid_body: webhook_url: .* is a private, loopback or link-local address that is not allowed$/, url);
      const proxied = await t.api('/proxy/x', { headers: { ...dev, 'base-url-override': url } });
      assert.match(
        await refusal(proxied),
        /^400 base_url_override_not_allowed: .* is a private, loopback or link-local address that is not allowed$/,
        `proxy ${url}`,
      );
    }
    const metabaseDomain = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'metabase',
        connection_id: 'evil',
        connection_config: { hostname: 'https://169.254.169.254' }, // https, so the address is the only reason to refuse
        credentials: { type: 'API_KEY', apiKey: 'k' },
      },
    });
    assert.match(
      await refusal(metabaseDomain),
      /^400 connection_test_failed: .*169\.254\.169\.254 is a private, loopback or link-local address that is not allowed$/,
    );
    assert.equal((await t.api('/connections/evil?provider_config_key=metabase')).status, 404);
  });

  test('the database dump and the logs hold no plaintext credential, key or token', async () => {
    // A provider webhook to the URL that ends with the integration's secret: the path is logged, the secret is not.
    const webhookSecret = ((await (await t.api('/integrations/drive/webhook-secret')).json()) as Json).data.webhook_url_with_token as string;
    await fetch(webhookSecret, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    // The OAuth flow of before() issued an access and a refresh token; both are looked for.
    const tokens = oauth.state.tokens.filter((tok) => tok.grant === 'authorization_code').flatMap((tok) => [tok.accessToken, tok.refreshToken ?? '']);
    assert.ok(tokens.length >= 2 && tokens.every((tok) => tok.length >= 16), `the OAuth flow's tokens: ${tokens.length}`);
    const secrets = [
      webhookSecret.split('/').pop()!,
      API_KEY,
      'iso-client-secret-value',
      'iso-webhook-secret',
      t.devKey,
      t.prodKey,
      'leaky-query-secret',
      ...tokens,
    ];
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    const tables = (await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).rows.map((r) => r.tablename as string);
    let dump = '';
    for (const table of tables) dump += JSON.stringify((await client.query(`SELECT * FROM ${client.escapeIdentifier(table)}`)).rows);
    await client.end();
    assert.ok(dump.length > 1000);
    assert.ok(logs.length > 1000, 'the platform logged');
    for (const secret of secrets) {
      assert.ok(!dump.includes(secret), `database holds ${secret.slice(0, 6)}…`);
      assert.ok(!logs.includes(secret), `logs hold ${secret.slice(0, 6)}…`);
    }
  });
});
