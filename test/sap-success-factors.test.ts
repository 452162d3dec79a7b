/**
 * sap-success-factors (TWO_STEP with a declared SAML bearer assertion): Switchyard signs a SAML 2.0
 * Assertion with the connection's private key for each token request; the fake of SAP's token
 * endpoint verifies it with xml-crypto, an independent XML-DSig implementation, before issuing a token.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { startSapSuccessFactorsFake, type SapClient, type SapFake } from './fakes/sap-successfactors.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const pem = () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string };
};

describe('sap-success-factors: the SAML 2.0 bearer assertion grant', () => {
  let t: TestPlatform;
  let nango: Nango;
  let fake: SapFake;
  const keys = pem();
  const client: SapClient = { companyId: 'SFPART012345', apiKey: 'YzA4MTVhMTQzZTUzMjc3NTk0ZDY2Nzc1', publicKey: keys.publicKey, userName: 'sfapi' };
  const connection = (id: string, privateKey: string) =>
    t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'sap-success-factors',
        connection_id: id,
        connection_config: { apiServer: 'api4.successfactors.com', companyId: client.companyId },
        credentials: { type: 'TWO_STEP', apiKey: client.apiKey, userName: client.userName, privateKey },
      },
    });

  before(async () => {
    t = await startTestPlatform();
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    fake = await startSapSuccessFactorsFake(client);
    await nango.createIntegration({
      provider: 'sap-success-factors',
      unique_key: 'sap-success-factors',
      integration_config: { token_url: `${fake.url}/oauth/token`, base_url: fake.url },
    } as never);
  });
  after(async () => {
    await t?.stop();
    await fake?.close();
  });

  test('connected through the API: the signed assertion accepted by the token endpoint, the token sent as Bearer', async () => {
    const created = await connection('sf-1', keys.privateKey);
    assert.equal(created.status, 201, await created.clone().text());
    assert.deepEqual(fake.state.refusals, []);
    const request = fake.requests.find((r) => r.path === '/oauth/token')!;
    const form = new URLSearchParams(request.body);
    assert.deepEqual([...form.keys()].sort(), ['assertion', 'client_id', 'company_id', 'grant_type', 'new_token']);
    assert.equal(form.get('grant_type'), 'urn:ietf:params:oauth:grant-type:saml2-bearer');
    assert.equal(form.get('new_token'), 'true');
    const signed = fake.state.accepted.at(-1)!;
    assert.match(signed, /<saml:AuthnStatement [^>]*SessionIndex="[^"]+"/);
    assert.match(signed, /Name="api_key"/);
    const conn = (await nango.getConnection('sap-success-factors', 'sf-1')) as Json;
    assert.ok(fake.state.tokens.has(conn.credentials.token));
    assert.equal(conn.credentials.assertion, undefined, 'the assertion is made per request, not stored');
    const res = await nango.proxy({ providerConfigKey: 'sap-success-factors', connectionId: 'sf-1', endpoint: '/odata/v2/User' });
    assert.equal(res.status, 200);
    assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${conn.credentials.token}`);
  });

  test("the fake's check can fail: an assertion signed with another key, or altered after signing, is refused", async () => {
    const wrongKey = await connection('sf-wrong-key', pem().privateKey);
    assert.ok(wrongKey.status >= 400 && wrongKey.status < 500, `${wrongKey.status} ${await wrongKey.clone().text()}`);
    assert.equal(fake.state.refusals.at(-1), 'the signature does not verify');

    const notAKey = await connection('sf-not-a-key', 'not a PEM key');
    assert.ok(notAKey.status >= 400 && notAKey.status < 500, `${notAKey.status} ${await notAKey.clone().text()}`);

    const accepted = new URLSearchParams(fake.requests.find((r) => r.path === '/oauth/token' && r.status === 200)!.body);
    const xml = Buffer.from(accepted.get('assertion')!, 'base64').toString('utf8');
    const altered = xml.replace(`>${client.userName}<`, '>admin<');
    assert.notEqual(altered, xml);
    accepted.set('assertion', Buffer.from(altered).toString('base64'));
    const res = await fetch(`${fake.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: accepted.toString(),
    });
    assert.equal(res.status, 401);
    assert.equal(fake.state.refusals.at(-1), 'the signature does not verify');
  });
});
