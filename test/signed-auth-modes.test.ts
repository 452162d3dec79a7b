/**
 * Auth modes whose credentials are signed rather than stored tokens, each through the API against a
 * fake that checks the signature as the provider's docs say (test/fakes/signed-auth.ts): JWT
 * (Ghost Admin API, HS256 with the key's hex secret; App Store Connect, ES256 with a real key pair),
 * signed again before it expires as the clock moves; a GitHub App installation (RS256 app JWT,
 * installation tokens renewed before their hour ends); and AWS Signature Version 4 on proxied calls.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { GITHUB_INSTALLATION_ID, startAwsFake, startGitHubAppFake, startJwtApiFake } from './fakes/signed-auth.js';
import type { FakeServer } from './fakes/server.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('signed auth modes', () => {
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

  async function connect(provider: string, baseUrl: string, connectionId: string, body: Json) {
    await nango.createIntegration({ provider, unique_key: provider, integration_config: { base_url: baseUrl } } as never);
    return t.api('/connections', { method: 'POST', json: { provider_config_key: provider, connection_id: connectionId, ...body } });
  }
  const proxy = (provider: string, connectionId: string, endpoint: string) =>
    nango.proxy({ providerConfigKey: provider, connectionId, endpoint }).then(
      (r) => r.status,
      (err: { response?: { status: number } }) => err.response?.status ?? 0,
    );

  test('JWT (ghost-admin): the Admin API key signs an HS256 token with its kid and aud, verified, then signed again before its 5 minutes end', async () => {
    const id = randomBytes(12).toString('hex');
    const secret = randomBytes(32);
    const fake = await startJwtApiFake({
      scheme: 'Ghost',
      alg: 'HS256',
      key: secret,
      header: { kid: id },
      claims: { aud: '/admin/' },
      maxLifetimeSeconds: 300,
      now,
    });
    fakes.push(fake as FakeServer<unknown>);
    const wrong = await connect('ghost-admin', fake.url, 'ghost-wrong', {
      connection_config: { adminDomain: 'acme.ghost.io' },
      credentials: { type: 'JWT', privateKey: `${id}:${randomBytes(32).toString('hex')}` },
    });
    assert.equal(wrong.status, 400, await wrong.clone().text());
    assert.equal(((await wrong.json()) as Json).error.code, 'connection_test_failed');
    assert.deepEqual(fake.state.refused, ['bad signature']);

    const res = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'ghost-admin',
        connection_id: 'ghost',
        connection_config: { adminDomain: 'acme.ghost.io' },
        credentials: { type: 'JWT', privateKey: `${id}:${secret.toString('hex')}` },
      },
    });
    assert.equal(res.status, 201, await res.clone().text());
    const conn = (await nango.getConnection('ghost-admin', 'ghost')) as Json;
    assert.equal(conn.credentials.type, 'JWT');
    assert.ok(fake.state.accepted.includes(conn.credentials.token), 'the verification request carried the signed token');
    assert.equal(await proxy('ghost-admin', 'ghost', '/posts/'), 200);
    const first = fake.requests.at(-1)!;
    assert.equal(first.headers['accept-version'], 'v5.0');

    // 4.5 minutes on: the token has 30 s left, so the next call signs a new one.
    offsetMs += 270_000;
    await t.platform.deps.lookups.settled();
    assert.equal(await proxy('ghost-admin', 'ghost', '/posts/'), 200);
    const renewed = fake.requests.at(-1)!.headers.authorization!;
    assert.notEqual(renewed, first.headers.authorization);
    // Without the renewal the old token would be refused by now.
    offsetMs += 60_000;
    assert.equal(await proxy('ghost-admin', 'ghost', '/posts/'), 200);
    assert.deepEqual(fake.state.refused, ['bad signature']);
  });

  test('JWT (apple-app-store): ES256 with a real EC key pair, kid and iss from the entered fields; a bad key is refused naming it', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const fake = await startJwtApiFake({
      scheme: 'Bearer',
      alg: 'ES256',
      key: publicKey,
      header: { kid: 'KEY123' },
      claims: { iss: 'issuer-1', aud: 'appstoreconnect-v1' },
      maxLifetimeSeconds: 1200,
      now,
    });
    fakes.push(fake as FakeServer<unknown>);
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const res = await connect('apple-app-store', fake.url, 'asc', {
      credentials: { type: 'JWT', issuerId: 'issuer-1', privateKeyId: 'KEY123', privateKey: pem.replace(/\n/g, '\\n') },
    });
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal(await proxy('apple-app-store', 'asc', '/v1/apps'), 200);
    const bad = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'apple-app-store',
        connection_id: 'asc-bad',
        credentials: { type: 'JWT', issuerId: 'i', privateKeyId: 'k', privateKey: 'nope' },
      },
    });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as Json).error.message, /private key cannot sign/);
    const missing = await t.api('/connections', {
      method: 'POST',
      json: { provider_config_key: 'apple-app-store', connection_id: 'asc-missing', credentials: { type: 'JWT', issuerId: 'i', privateKey: pem } },
    });
    assert.equal(missing.status, 400);
    assert.deepEqual(((await missing.json()) as Json).error.errors[0].path, ['credentials', 'privateKeyId']);
  });

  test('JWT (snowflake-jwt): RS256 with a real RSA key pair, iss naming the public key by its SHA-256 fingerprint, the KEYPAIR_JWT type on every call', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    // As Snowflake computes it from the public key assigned to the user (its DER, the PEM body).
    const pub = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const fingerprint = createHash('sha256')
      .update(Buffer.from(pub.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64'))
      .digest('base64');
    const fake = await startJwtApiFake({
      scheme: 'Bearer',
      alg: 'RS256',
      key: publicKey,
      claims: { iss: `MYORG-ACME.ANN.SHA256:${fingerprint}`, sub: 'MYORG-ACME.ANN' },
      maxLifetimeSeconds: 3600,
      requestHeaders: { 'x-snowflake-authorization-token-type': 'KEYPAIR_JWT' },
      now,
    });
    fakes.push(fake as FakeServer<unknown>);
    const res = await connect('snowflake-jwt', fake.url, 'sf', {
      connection_config: { subdomain: 'myorg-acme' },
      credentials: {
        type: 'JWT',
        accountIdentifier: 'MYORG-ACME',
        userName: 'ANN',
        privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
    });
    assert.equal(res.status, 201, await res.clone().text());
    const statement = await nango.proxy({
      providerConfigKey: 'snowflake-jwt',
      connectionId: 'sf',
      method: 'POST',
      endpoint: '/api/v2/statements',
      data: { statement: 'SELECT CURRENT_TIMESTAMP' },
    });
    assert.equal(statement.status, 200);
    assert.deepEqual(fake.state.refused, []);
    assert.equal(fake.state.accepted.length, 1);
  });

  /** A connect session's token, for the browser's side of a flow. */
  async function sessionToken(): Promise<string> {
    const res = await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u-1' } } });
    return ((await res.json()) as Json).data.token as string;
  }

  test('APP (github-app): the Connect UI start redirects to the installation page, GitHub sends the browser to /app-auth/connect, the installation token is used by the proxy and fetched again before its hour ends', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const fake = await startGitHubAppFake({ appId: '424242', publicKey, slug: 'acme-sync', now });
    fakes.push(fake as FakeServer<unknown>);
    fake.setSetupUrl(`${t.url}/app-auth/connect`);
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await nango.createIntegration({
      provider: 'github-app',
      unique_key: 'github-app',
      // Nango's dashboard sends the .pem base64-encoded.
      credentials: { type: 'APP', app_id: '424242', app_link: `${fake.url}/apps/acme-sync`, private_key: Buffer.from(pem).toString('base64') },
      integration_config: {
        base_url: fake.url,
        token_url: `${fake.url}/app/installations/\${connectionConfig.installation_id}/access_tokens`,
        custom_domains: '127.0.0.1',
      },
    } as never);

    const start = await fetch(`${t.url}/oauth/connect/github-app?connect_session_token=${await sessionToken()}`, { redirect: 'manual' });
    assert.equal(start.status, 302, await start.clone().text());
    const page = new URL(start.headers.get('location')!);
    assert.equal(`${page.origin}${page.pathname}`, `${fake.url}/apps/acme-sync/installations/new`);
    assert.deepEqual([...page.searchParams.keys()], ['state']);
    const installed = await fetch(page, { redirect: 'manual' });
    assert.equal(installed.status, 302);
    const setup = installed.headers.get('location')!;
    assert.ok(setup.startsWith(`${t.url}/app-auth/connect?installation_id=${GITHUB_INSTALLATION_ID}&setup_action=install&state=`), setup);
    const done = await fetch(setup);
    assert.equal(done.status, 200, await done.clone().text());
    assert.match(await done.text(), /nango_oauth_callback_success/);
    // The state is spent: the same redirect again makes nothing.
    assert.equal((await fetch(setup)).status, 400);

    const [listed] = ((await nango.listConnections({ integrationId: 'github-app' } as never)) as Json).connections;
    const conn = (await nango.getConnection('github-app', listed.connection_id)) as Json;
    assert.equal(conn.credentials.type, 'APP');
    assert.equal(conn.connection_config.installation_id, GITHUB_INSTALLATION_ID);
    assert.equal(conn.connection_config.app_id, '424242');
    assert.deepEqual(
      fake.state.issued.map((i) => i.token),
      [conn.credentials.access_token],
    );
    assert.equal(await proxy('github-app', listed.connection_id, '/installation/repositories'), 200);
    assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${conn.credentials.access_token}`);

    // 50 minutes on, the token has 10 left: the next call fetches another with a fresh app JWT.
    offsetMs += 50 * 60_000;
    assert.equal(await proxy('github-app', listed.connection_id, '/installation/repositories'), 200);
    assert.equal(fake.state.issued.length, 2);
    assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${fake.state.issued[1]!.token}`);
    // Past the first token's hour, the renewed one still works and none other is fetched.
    offsetMs += 15 * 60_000;
    assert.equal(await proxy('github-app', listed.connection_id, '/installation/repositories'), 200);
    assert.equal(fake.state.issued.length, 2);
    assert.deepEqual(fake.state.refused, []);

    // An installation approved on GitHub itself (no connect flow, no state) goes back to GitHub.
    const orphan = await fetch(`${t.url}/app-auth/connect?installation_id=1&setup_action=install`, { redirect: 'manual' });
    assert.equal(orphan.status, 302);
    assert.equal(orphan.headers.get('location'), 'https://github.com');
    const bad = await fetch(`${t.url}/app-auth/connect?installation_id=abc&state=x`);
    // Every refusal is the HTML page that reports to the opener, as the route documents (schemathesis checks it).
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /text\/html/);
  });

  test('AWS_SIGV4 (aws-sigv4): proxied GET and POST signed with the access key and session token, verified by the fake', async () => {
    const keys = { accessKeyId: 'AKIAEXAMPLE123456789', secretAccessKey: randomBytes(30).toString('base64'), sessionToken: 'session-tok' };
    const fake = await startAwsFake({ ...keys, region: 'eu-west-1', service: 'execute-api' });
    fakes.push(fake as FakeServer<unknown>);
    const res = await connect('aws-sigv4', fake.url, 'aws', {
      connection_config: { region: 'eu-west-1', service: 'execute-api' },
      credentials: { type: 'AWS_SIGV4', access_key_id: keys.accessKeyId, secret_access_key: keys.secretAccessKey, session_token: keys.sessionToken },
    });
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal(await proxy('aws-sigv4', 'aws', '/prod/items?b=2&a=1'), 200);
    const post = await nango.proxy({ providerConfigKey: 'aws-sigv4', connectionId: 'aws', endpoint: '/prod/items', method: 'POST', data: { name: 'x y' } });
    assert.equal(post.status, 200);
    assert.deepEqual(fake.state.checks, ['ok', 'ok']);
    assert.match(fake.requests[0]!.headers.authorization!, /Credential=AKIAEXAMPLE123456789\/\d{8}\/eu-west-1\/execute-api\/aws4_request/);

    // A wrong secret is refused by the fake's own check.
    const other = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'aws-sigv4',
        connection_id: 'aws-wrong',
        connection_config: { region: 'eu-west-1', service: 'execute-api' },
        credentials: { type: 'AWS_SIGV4', access_key_id: keys.accessKeyId, secret_access_key: 'wrong', session_token: keys.sessionToken },
      },
    });
    assert.equal(other.status, 201);
    assert.equal(await proxy('aws-sigv4', 'aws-wrong', '/prod/items'), 403);
    assert.match(fake.state.checks.at(-1)!, /does not match/);
  });

  test('BASIC signed with SigV4 (aws-iam): the access key id and secret entered as username and password sign every request for iam in us-east-1 by default', async () => {
    const keys = { accessKeyId: 'AKIAIAMEXAMPLE000001', secretAccessKey: randomBytes(30).toString('base64') };
    const fake = await startAwsFake({ ...keys, region: 'us-east-1', service: 'iam' });
    fakes.push(fake as FakeServer<unknown>);
    const res = await connect('aws-iam', fake.url, 'iam', { credentials: { type: 'BASIC', username: keys.accessKeyId, password: keys.secretAccessKey } });
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal(await proxy('aws-iam', 'iam', '/?Action=ListUsers&Version=2010-05-08'), 200);
    assert.deepEqual(fake.state.checks, ['ok']);
    assert.match(fake.requests[0]!.headers.authorization!, /^AWS4-HMAC-SHA256 Credential=AKIAIAMEXAMPLE000001\/\d{8}\/us-east-1\/iam\/aws4_request/);
  });
});
