/**
 * Nango's CUSTOM and BILL auth modes through the API and the Connect UI's flow, against fakes that
 * behave as the providers' docs say: a GitHub App with user authorization during installation
 * (test/fakes/signed-auth.ts: the installation page sends the browser to the callback URL with a
 * code and the installation id; the app's RS256 JWT verified with a real key pair), and Bill's
 * session login (test/fakes/bill.ts: `sessionId` and `devKey` headers, BDC_1109 for a dead session).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { startBillFake } from './fakes/bill.js';
import { GITHUB_INSTALLATION_ID, startGitHubAppFake } from './fakes/signed-auth.js';
import type { FakeServer } from './fakes/server.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('CUSTOM and BILL auth modes', () => {
  let t: TestPlatform;
  let nango: Nango;
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  const fakes: FakeServer<unknown>[] = [];

  before(async () => {
    t = await startTestPlatform({ clock: { now: () => new Date(now()) } });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
  });
  after(async () => {
    await t?.stop();
    for (const f of fakes) await f.close();
  });

  const proxy = (pck: string, connectionId: string, endpoint: string) =>
    nango.proxy({ providerConfigKey: pck, connectionId, endpoint }).then(
      (r) => r.status,
      (err: { response?: { status: number } }) => err.response?.status ?? 0,
    );
  async function sessionToken(): Promise<string> {
    const res = await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u-1' } } });
    return ((await res.json()) as Json).data.token as string;
  }

  test("CUSTOM (github-app-oauth): the installation page sends the browser to the OAuth callback with a code and the installation id; the user's token and the installation's are kept as Nango's combined credentials, the proxy uses the installation token, both are renewed before they expire", async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const oauth = { clientId: 'Iv1.abc123', clientSecret: 'app-oauth-secret' };
    const fake = await startGitHubAppFake({ appId: '515151', publicKey, slug: 'acme-oauth', now, oauth });
    fakes.push(fake as FakeServer<unknown>);
    // "Request user authorization (OAuth) during installation": GitHub goes to the callback URL, not the Setup URL.
    fake.setSetupUrl(`${t.url}/oauth/callback`);
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const created = await t.api('/integrations', {
      method: 'POST',
      json: {
        provider: 'github-app-oauth',
        unique_key: 'github-app-oauth',
        credentials: {
          type: 'CUSTOM',
          client_id: oauth.clientId,
          client_secret: oauth.clientSecret,
          app_id: '515151',
          app_link: `${fake.url}/apps/acme-oauth`,
          private_key: Buffer.from(pem).toString('base64'),
        },
        integration_config: {
          base_url: fake.url,
          token_url: `${fake.url}/login/oauth/access_token`,
          installation_token_url: `${fake.url}/app/installations/\${connectionConfig.installation_id}/access_tokens`,
          custom_domains: '127.0.0.1',
        },
      },
    });
    assert.equal(created.status, 200, await created.clone().text());

    const start = await fetch(`${t.url}/oauth/connect/github-app-oauth?connect_session_token=${await sessionToken()}`, { redirect: 'manual' });
    assert.equal(start.status, 302, await start.clone().text());
    const page = new URL(start.headers.get('location')!);
    assert.equal(`${page.origin}${page.pathname}`, `${fake.url}/apps/acme-oauth/installations/new`);
    const installed = await fetch(page, { redirect: 'manual' });
    const callback = new URL(installed.headers.get('location')!);
    assert.equal(`${callback.origin}${callback.pathname}`, `${t.url}/oauth/callback`);
    assert.deepEqual([...callback.searchParams.keys()], ['code', 'installation_id', 'setup_action', 'state']);
    const done = await fetch(callback);
    assert.equal(done.status, 200, await done.clone().text());
    assert.match(await done.text(), /nango_oauth_callback_success/);

    const [listed] = ((await nango.listConnections({ integrationId: 'github-app-oauth' } as never)) as Json).connections;
    const conn = (await nango.getConnection('github-app-oauth', listed.connection_id, false, true)) as Json;
    assert.equal(conn.credentials.type, 'CUSTOM');
    assert.equal(conn.credentials.app.type, 'APP');
    assert.equal(conn.credentials.app.access_token, fake.state.issued[0]!.token);
    assert.equal(conn.credentials.user.type, 'OAUTH2');
    assert.equal(conn.credentials.user.access_token, fake.state.userTokens[0]!.token);
    assert.equal(conn.credentials.user.refresh_token, fake.state.userTokens[0]!.refreshToken);
    assert.equal(conn.connection_config.installation_id, GITHUB_INSTALLATION_ID);
    assert.equal(conn.connection_config.app_id, '515151');

    assert.equal(await proxy('github-app-oauth', listed.connection_id, '/installation/repositories'), 200);
    assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${fake.state.issued[0]!.token}`);
    // 50 minutes on, the installation token has 10 left: another is fetched with a fresh app JWT; the user's (8 hours) stays.
    offsetMs += 50 * 60_000;
    assert.equal(await proxy('github-app-oauth', listed.connection_id, '/installation/repositories'), 200);
    assert.equal(fake.state.issued.length, 2);
    assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${fake.state.issued[1]!.token}`);
    assert.equal(fake.state.userTokens.length, 1);
    // Near the user token's 8 hours, it is renewed with its refresh token, and the installation token with it.
    offsetMs += 7 * 3600_000;
    assert.equal(await proxy('github-app-oauth', listed.connection_id, '/installation/repositories'), 200);
    assert.deepEqual(
      fake.state.userTokens.map((u) => u.grant),
      ['authorization_code', 'refresh_token'],
    );
    const renewed = (await nango.getConnection('github-app-oauth', listed.connection_id)) as Json;
    assert.equal(renewed.credentials.user.access_token, fake.state.userTokens[1]!.token);
    assert.equal(renewed.credentials.app.access_token, fake.state.issued.at(-1)!.token);
    assert.deepEqual(fake.state.refused, []);

    // A redirect without the installation id is refused with the page that reports to the opener.
    const again = await fetch(`${t.url}/oauth/connect/github-app-oauth?connect_session_token=${await sessionToken()}`, { redirect: 'manual' });
    const state = new URL(again.headers.get('location')!).searchParams.get('state')!;
    const missing = await fetch(`${t.url}/oauth/callback?code=x&setup_action=install&state=${state}`);
    assert.equal(missing.status, 400);
    assert.match(await missing.text(), /missing_installation_id/);
  });

  test('BILL (bill): the Connect UI posts the sign-in fields, the login answers the session; proxied calls carry sessionId and devKey; a session Bill ended is signed in again on its 401, and one due is renewed before the call', async () => {
    const account = { username: 'ap@acme.test', password: 'pw-1', organizationId: '00801ABCDEFGHIJKLMN0', devKey: '01ABCDEFGHIJKLMNOPQRS' };
    const fake = await startBillFake(account, { now });
    fakes.push(fake as FakeServer<unknown>);
    await nango.createIntegration({
      provider: 'bill',
      unique_key: 'bill',
      integration_config: { base_url: `${fake.url}/connect`, token_url: `${fake.url}/connect/v3/login` },
    } as never);

    const wrong = await fetch(`${t.url}/auth/bill/bill?connect_session_token=${await sessionToken()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: account.username, password: 'nope', organization_id: account.organizationId, dev_key: account.devKey }),
    });
    assert.equal(wrong.status, 400);
    assert.match(((await wrong.json()) as Json).error.message, /BDC_1101/);
    const missing = await fetch(`${t.url}/auth/bill/bill?connect_session_token=${await sessionToken()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: account.username, password: account.password, organization_id: account.organizationId }),
    });
    assert.equal(missing.status, 400);
    assert.match(await missing.text(), /dev_key/);

    const res = await fetch(`${t.url}/auth/bill/bill?connect_session_token=${await sessionToken()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: account.username, password: account.password, organization_id: account.organizationId, dev_key: account.devKey }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { connectionId } = (await res.json()) as Json;
    const conn = (await nango.getConnection('bill', connectionId)) as Json;
    assert.equal(conn.credentials.type, 'BILL');
    assert.equal(conn.credentials.session_id, fake.state.logins[0]);
    assert.equal(conn.credentials.dev_key, account.devKey);
    assert.equal(conn.credentials.organization_id, account.organizationId);
    assert.equal(conn.credentials.user_id, '006ABCDEFGHIJKLMN0q1');

    assert.equal(await proxy('bill', connectionId, '/v3/users'), 200);
    const sent = fake.requests.at(-1)!;
    assert.equal(sent.path, '/connect/v3/users');
    assert.equal(sent.headers.sessionid, fake.state.logins[0]);
    assert.equal(sent.headers.devkey, account.devKey);

    // Bill ends the session early (signed out elsewhere): its 401 BDC_1109 brings a new login and the call again.
    fake.state.sessions.clear();
    assert.equal(await proxy('bill', connectionId, '/v3/users'), 200);
    assert.equal(fake.state.logins.length, 2);
    assert.deepEqual(fake.state.refused, [fake.state.logins[0]]);
    assert.equal(fake.requests.at(-1)!.headers.sessionid, fake.state.logins[1]);

    // Imported with Nango's BILL fields through the API: signed in on save.
    const imported = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'bill',
        connection_id: 'bill-imported',
        credentials: { type: 'BILL', username: account.username, password: account.password, organization_id: account.organizationId, dev_key: account.devKey },
      },
    });
    assert.equal(imported.status, 201, await imported.clone().text());
    assert.equal(((await imported.json()) as Json).credentials.session_id, fake.state.logins[2]);

    // 25 minutes on, the session is within the refresh margin of its 35 idle minutes: signed in again before the call.
    // The imported connection is due too, and its scheduled check may sign it in meanwhile: count from here.
    const loginsBefore = fake.state.logins.length;
    offsetMs += 25 * 60_000;
    assert.equal(await proxy('bill', connectionId, '/v3/users'), 200);
    assert.equal(fake.state.refused.length, 1, 'the call went out with a fresh session, not one Bill refused');
    const renewed = ((await nango.getConnection('bill', connectionId)) as Json).credentials.session_id;
    assert.ok(fake.state.logins.indexOf(renewed) >= loginsBefore, 'the connection holds a session signed in after the clock moved');
    assert.ok(
      fake.requests.some((r) => r.path === '/connect/v3/users' && r.headers.sessionid === renewed),
      'the call carried the renewed session',
    );
  });
});
