import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import {
  ATLASSIAN_CLOUD_ID,
  BASECAMP_ACCOUNT_ID,
  BIGCOMMERCE_ACCOUNT_UUID,
  BIGCOMMERCE_STORE_HASH,
  HARVEST_ACCOUNT_ID,
  POST_AUTH_CLIENT,
  QUICKBOOKS_REALM_ID,
  startPostAuthProviderFake,
  type FakeServer,
  type InstagramTokens,
  type PostAuthProviderFake,
  type PostAuthProviderKind,
} from './fakes/index.js';
import { startTikTokBusinessFake, TIKTOK_ADVERTISER_IDS, TIKTOK_CLIENT } from './fakes/tiktok-business.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The catalogue entries whose connection needs values known only after authorization (or a refresh
 * URL, a User-Agent, an auth mode) connect through the real OAuth flow against fakes that behave as
 * the providers' docs say, with the integration's URL overrides pointing at the fake.
 */
describe('catalogue entries that need values known after authorization', () => {
  let t: TestPlatform;
  let nango: Nango;
  const fakes: FakeServer<unknown>[] = [];
  // Moved by the tests of long-lived tokens, back to 0 after each.
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;

  before(async () => {
    t = await startTestPlatform({ clock: { now: () => new Date(now()) } });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
  });
  after(async () => {
    await t?.stop();
    for (const f of fakes) await f.close();
  });

  async function connect<F extends FakeServer<unknown> = PostAuthProviderFake & { instagram: InstagramTokens }>(
    provider: string,
    kind: PostAuthProviderKind | { start: () => Promise<F>; client: { clientId: string; clientSecret: string } },
    opts: {
      paths: { authorize: string; token: string; refresh?: string };
      config?: Record<string, string>;
      /** Integration config naming the fake's own URLs. */
      fakeConfig?: (url: string) => Record<string, string>;
      params?: Record<string, string>;
    },
  ): Promise<{ fake: F; conn: Json }> {
    const fake = (typeof kind === 'string' ? await startPostAuthProviderFake(kind, { now }) : await kind.start()) as F;
    fakes.push(fake);
    const client = typeof kind === 'string' ? POST_AUTH_CLIENT : kind.client;
    await nango.createIntegration({
      provider,
      unique_key: provider,
      credentials: { type: 'OAUTH2', client_id: client.clientId, client_secret: client.clientSecret },
      integration_config: {
        authorization_url: `${fake.url}${opts.paths.authorize}`,
        token_url: `${fake.url}${opts.paths.token}`,
        refresh_url: `${fake.url}${opts.paths.refresh ?? opts.paths.token}`,
        base_url: fake.url,
        post_connection_base_url: fake.url,
        ...opts.config,
        ...opts.fakeConfig?.(fake.url),
      },
    } as never);
    const res = await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'u-1' } } });
    const token = ((await res.json()) as Json).data.token as string;
    const params = Object.entries(opts.params ?? {})
      .map(([k, v]) => `&params[${k}]=${encodeURIComponent(v)}`)
      .join('');
    const start = await fetch(`${t.url}/oauth/connect/${provider}?connect_session_token=${token}${params}`, { redirect: 'manual' });
    assert.equal(start.status, 302, await start.clone().text());
    const approved = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    assert.equal(approved.status, 302, await approved.clone().text());
    const done = await fetch(approved.headers.get('location')!);
    assert.equal(done.status, 200, await done.clone().text());
    const [listed] = ((await nango.listConnections({ integrationId: provider } as never)) as Json).connections;
    return { fake, conn: (await nango.getConnection(provider, listed.connection_id)) as Json };
  }

  async function proxied(fake: PostAuthProviderFake, conn: Json, endpoint: string, path = endpoint) {
    const res = await nango.proxy({ providerConfigKey: conn.provider_config_key, connectionId: conn.connection_id, endpoint });
    assert.equal(res.status, 200);
    const call = fake.apiCalls(path).at(-1);
    assert.ok(call, `the fake received ${path}`);
    assert.equal(call.headers.authorization, `Bearer ${conn.credentials.access_token}`);
    return call;
  }

  const atlassian = { authorize: '/authorize', token: '/oauth/token' };

  test('jira: cloudId and baseUrl from the accessible resources', async () => {
    const { fake, conn } = await connect('jira', 'atlassian', { paths: atlassian });
    assert.equal(conn.connection_config.cloudId, ATLASSIAN_CLOUD_ID);
    assert.equal(conn.connection_config.baseUrl, 'https://acme.atlassian.net');
    await proxied(fake, conn, `/ex/jira/${ATLASSIAN_CLOUD_ID}/rest/api/3/myself`);
  });

  test('confluence: cloudId from the accessible resources', async () => {
    const { fake, conn } = await connect('confluence', 'atlassian', { paths: atlassian });
    assert.equal(conn.connection_config.cloudId, ATLASSIAN_CLOUD_ID);
    await proxied(fake, conn, `/ex/confluence/${ATLASSIAN_CLOUD_ID}/wiki/rest/api/user/current`);
  });

  test('quickbooks: realmId from the redirect', async () => {
    const { fake, conn } = await connect('quickbooks', 'quickbooks', { paths: { authorize: '/connect/oauth2', token: '/oauth2/v1/tokens/bearer' } });
    assert.equal(conn.connection_config.realmId, QUICKBOOKS_REALM_ID);
    await proxied(fake, conn, `/v3/company/${QUICKBOOKS_REALM_ID}/companyinfo/${QUICKBOOKS_REALM_ID}`);
  });

  test('mailchimp: dc from the OAuth metadata endpoint', async () => {
    const { fake, conn } = await connect('mailchimp', 'mailchimp', { paths: { authorize: '/oauth2/authorize', token: '/oauth2/token' } });
    assert.equal(conn.connection_config.dc, 'us6');
    assert.match(fake.requests.find((r) => r.path === '/oauth2/metadata')!.headers.authorization!, /^OAuth /);
    await proxied(fake, conn, '/3.0/ping');
  });

  test('docusign: baseUri and accountId of the default account from userinfo', async () => {
    const { fake, conn } = await connect('docusign', 'docusign', { paths: { authorize: '/oauth/auth', token: '/oauth/token' } });
    assert.equal(conn.connection_config.baseUri, 'https://na3.docusign.net');
    assert.equal(conn.connection_config.accountId, 'acc-main');
    await proxied(fake, conn, '/restapi/v2.1/accounts/acc-main/envelopes');
  });

  test("basecamp: accountId from the authorization endpoint, the integration's User-Agent on every call", async () => {
    const { fake, conn } = await connect('basecamp', 'basecamp', {
      paths: { authorize: '/authorization/new', token: '/authorization/token' },
      config: { user_agent: 'AcmeApp (dev@acme.test)' },
    });
    assert.equal(String(conn.connection_config.accountId), String(BASECAMP_ACCOUNT_ID));
    const call = await proxied(fake, conn, '/projects.json');
    assert.equal(call.headers['user-agent'], 'AcmeApp (dev@acme.test)');
  });

  test('harvest: accountId from the accounts endpoint, Harvest-Account-Id and the default User-Agent', async () => {
    const { fake, conn } = await connect('harvest', 'harvest', { paths: { authorize: '/oauth2/authorize', token: '/api/v2/oauth2/token' } });
    assert.equal(String(conn.connection_config.accountId), String(HARVEST_ACCOUNT_ID));
    const call = await proxied(fake, conn, '/v2/users/me');
    assert.equal(call.headers['harvest-account-id'], String(HARVEST_ACCOUNT_ID));
    assert.match(call.headers['user-agent']!, /^Switchyard \(\+https?:\/\//);
  });

  test('figma: tokens refreshed at the refresh URL', async () => {
    const { fake, conn } = await connect('figma', 'figma', { paths: { authorize: '/oauth', token: '/v1/oauth/token', refresh: '/v1/oauth/refresh' } });
    const refreshed = (await nango.getConnection('figma', conn.connection_id, true)) as Json;
    assert.notEqual(refreshed.credentials.access_token, conn.credentials.access_token);
    assert.ok(fake.requests.some((r) => r.path === '/v1/oauth/refresh' && r.status === 200));
    await proxied(fake, refreshed, '/v1/me');
  });

  test('auth0: the authorization-code flow on the tenant domain (auth0-cc is the client-credentials entry)', async () => {
    const { fake, conn } = await connect('auth0', 'auth0', { paths: { authorize: '/authorize', token: '/oauth/token' }, params: { subdomain: 'acme' } });
    assert.equal(conn.connection_config.subdomain, 'acme');
    await proxied(fake, conn, '/api/v2/users');
  });

  test('instagram: the short-lived token traded for a long-lived one at once, renewed with ig_refresh_token before its 60 days end', async () => {
    const { fake, conn } = await connect('instagram', 'instagram', {
      paths: { authorize: '/oauth/authorize', token: '/oauth/access_token' },
      fakeConfig: (url) => ({ access_token_exchange_url: `${url}/access_token`, access_token_refresh_url: `${url}/refresh_access_token` }),
    });
    const exchange = fake.requests.find((r) => r.path === '/access_token');
    assert.ok(exchange, 'the short-lived token was traded at /access_token');
    assert.equal(exchange.query.grant_type, 'ig_exchange_token');
    assert.equal(exchange.query.client_secret, POST_AUTH_CLIENT.clientSecret);
    assert.ok(fake.provider.verifyAccessToken(exchange.query.access_token), 'the short-lived token of the code exchange was traded');
    assert.deepEqual(fake.instagram.exchanged, [conn.credentials.access_token]);
    assert.equal(conn.credentials.refresh_token, undefined);
    const sixtyDays = 60 * 24 * 3600_000;
    assert.ok(Math.abs(Date.parse(conn.credentials.expires_at) - (now() + sixtyDays)) < 120_000, conn.credentials.expires_at);
    await proxied(fake, conn, '/me');
    try {
      // Ten minutes before the 60 days end, the next call renews the token first.
      offsetMs = sixtyDays - 10 * 60_000;
      await t.platform.deps.lookups.settled();
      const res = await nango.proxy({ providerConfigKey: 'instagram', connectionId: conn.connection_id, endpoint: '/me' });
      assert.equal(res.status, 200);
      assert.equal(fake.instagram.renewed.length, 1);
      assert.equal(fake.requests.find((r) => r.path === '/refresh_access_token')!.query.grant_type, 'ig_refresh_token');
      assert.equal(fake.apiCalls('/me').at(-1)!.headers.authorization, `Bearer ${fake.instagram.renewed[0]}`);
      const renewed = (await nango.getConnection('instagram', conn.connection_id)) as Json;
      assert.equal(renewed.credentials.access_token, fake.instagram.renewed[0]);
      assert.ok(Date.parse(renewed.credentials.expires_at) > now() + sixtyDays - 120_000);
    } finally {
      offsetMs = 0;
    }
  });
  test("bigcommerce: the store's context in the authorization and token requests, the token sent as X-Auth-Token under /stores/{hash}", async () => {
    const { fake, conn } = await connect('bigcommerce', 'bigcommerce', {
      paths: { authorize: '/oauth2/authorize', token: '/oauth2/token' },
      params: { storeHash: BIGCOMMERCE_STORE_HASH, accountUuid: BIGCOMMERCE_ACCOUNT_UUID },
      fakeConfig: (url) => ({ base_url: `${url}/stores/\${connectionConfig.storeHash}` }),
    });
    assert.equal(conn.connection_config.storeHash, BIGCOMMERCE_STORE_HASH);
    assert.equal(conn.connection_config.context, `stores/${BIGCOMMERCE_STORE_HASH}`);
    assert.equal(conn.credentials.expires_at, undefined);
    const path = `/stores/${BIGCOMMERCE_STORE_HASH}/v3/catalog/products`;
    const res = await nango.proxy({ providerConfigKey: 'bigcommerce', connectionId: conn.connection_id, endpoint: '/v3/catalog/products' });
    assert.equal(res.status, 200);
    const call = fake.apiCalls(path).at(-1);
    assert.ok(call, `the fake received ${path}`);
    assert.equal(call.headers['x-auth-token'], conn.credentials.access_token);
  });

  const tiktok = { start: startTikTokBusinessFake, client: { clientId: TIKTOK_CLIENT.appId, clientSecret: TIKTOK_CLIENT.secret } };
  const tiktokApi = (url: string) => ({ base_url: `${url}/open_api/v1.3` });

  test('tiktok-ads: app_id, secret and auth_code in a JSON token request, the token and advertiser_ids read from data, sent as Access-Token', async () => {
    const { fake, conn } = await connect('tiktok-ads', tiktok, {
      paths: { authorize: '/portal/auth', token: '/open_api/v1.3/oauth2/access_token/' },
      fakeConfig: tiktokApi,
    });
    assert.deepEqual(Object.keys(fake.state.tokenRequests[0]!.body).sort(), ['app_id', 'auth_code', 'secret']);
    assert.ok(fake.state.tokens.has(conn.credentials.access_token));
    assert.deepEqual(conn.connection_config.advertiser_ids, TIKTOK_ADVERTISER_IDS);
    const res = await nango.proxy({ providerConfigKey: 'tiktok-ads', connectionId: conn.connection_id, endpoint: '/campaign/get/' });
    assert.equal((res.data as Json).code, 0, JSON.stringify(res.data));
    assert.equal(fake.requests.at(-1)!.headers['access-token'], conn.credentials.access_token);
  });

  test('tiktok-accounts: client_key to authorize, auth_code to the tt_user token endpoint, tokens from data, renewed at its refresh URL', async () => {
    const { fake, conn } = await connect('tiktok-accounts', tiktok, {
      paths: { authorize: '/v2/auth/authorize/', token: '/open_api/v1.3/tt_user/oauth2/token/', refresh: '/open_api/v1.3/tt_user/oauth2/refresh_token/' },
      fakeConfig: tiktokApi,
    });
    assert.deepEqual(Object.keys(fake.state.tokenRequests[0]!.body).sort(), ['auth_code', 'client_id', 'client_secret', 'grant_type', 'redirect_uri']);
    assert.equal(conn.connection_config.open_id, 'open-1');
    assert.ok(Math.abs(Date.parse(conn.credentials.expires_at) - (Date.now() + 86_400_000)) < 120_000, conn.credentials.expires_at);
    const refreshed = (await nango.getConnection('tiktok-accounts', conn.connection_id, true)) as Json;
    assert.notEqual(refreshed.credentials.access_token, conn.credentials.access_token);
    assert.equal(fake.state.tokenRequests.at(-1)!.path, '/open_api/v1.3/tt_user/oauth2/refresh_token/');
    const res = await nango.proxy({ providerConfigKey: 'tiktok-accounts', connectionId: conn.connection_id, endpoint: '/identity/get/' });
    assert.equal((res.data as Json).code, 0, JSON.stringify(res.data));
    assert.equal(fake.requests.at(-1)!.headers['access-token'], refreshed.credentials.access_token);
  });
});
