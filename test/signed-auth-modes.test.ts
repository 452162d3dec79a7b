/**
 * Auth modes whose credentials are signed rather than stored tokens, each through the API against a
 * fake that checks the signature as the provider's docs say (test/fakes/signed-auth.ts): JWT
 * (Ghost Admin API, HS256 with the key's hex secret; App Store Connect, ES256 with a real key pair),
 * signed again before it expires as the clock moves, and AWS Signature Version 4 on proxied calls.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { startAwsFake, startJwtApiFake } from './fakes/signed-auth.js';
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
});
