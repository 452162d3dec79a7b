import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ValidationFailed } from '../../lib/errors.js';
import { authHeaders } from '../../lib/http/provider-client.js';
import type { Integration } from '../integrations/store.js';
import { providerDefinitionSchema } from '../providers/definition.js';
import { getCatalogProvider, providerFromDefinition, type IntegrationConfig, type Provider } from '../providers/providers.js';
import { authorizeUrl } from './oauth.js';
import { oauth2CcCredentials } from './credentials.js';
import { authInjection, endpoints } from './target.js';

const def = (extra: Record<string, unknown>) =>
  providerFromDefinition(providerDefinitionSchema.parse({ name: 'acme', display_name: 'Acme', docs: 'https://acme.test/docs', ...extra }));
const integration = (integrationConfig: IntegrationConfig = {}): Integration => ({
  id: 1,
  environmentId: 1,
  uniqueKey: 'x',
  provider: 'x',
  displayName: null,
  credentials: null,
  integrationConfig,
  custom: null,
  forwardWebhooks: false,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});
const HOSTS = ['127.0.0.1', 'localhost'];
const at = (provider: Provider, config: Record<string, unknown>, integrationConfig?: IntegrationConfig) =>
  endpoints(HOSTS, provider, integration(integrationConfig), config);

/** The field a refusal names (errors[].path), or the thrown error when it is not a 400 naming one. */
function refusedField(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationFailed && err.code === 'invalid_connection_config') return err.errors[0]!.path.join('.');
    throw err;
  }
  assert.fail('was accepted');
}

const userDefined = def({
  auth_mode: 'OAUTH2_CC',
  token_url: 'https://${connectionConfig.subdomain}.acme.test/oauth/token',
  proxy: { base_url: 'https://${connectionConfig.subdomain}.acme.test/api' },
  connection_config: { subdomain: { title: 'Subdomain' } },
});

test('a value that would move the host is refused, naming the field, wherever the template puts it', () => {
  const tricks = ['attacker.example#', 'x/..', 'a@attacker.example', 'https://attacker.example', 'attacker.example', 'x?', 'x\\y'];
  const cases: [Provider, string][] = [
    [getCatalogProvider('okta')!, 'domain'],
    [getCatalogProvider('auth0-cc')!, 'hostname'],
    [getCatalogProvider('zendesk')!, 'subdomain'],
    [userDefined, 'subdomain'],
  ];
  for (const [provider, field] of cases) {
    for (const value of tricks) {
      const e = at(provider, { [field]: value });
      assert.equal(
        refusedField(() => e.check()),
        `connection_config.${field}`,
        `${provider.name} ${value}: check`,
      );
      if (provider.tokenUrl)
        assert.equal(
          refusedField(() => e.tokenUrl('token')),
          `connection_config.${field}`,
          `${provider.name} ${value}: token URL`,
        );
      assert.equal(
        refusedField(() => e.baseUrl()),
        `connection_config.${field}`,
        `${provider.name} ${value}: base URL`,
      );
    }
  }
});

test("a host name field is held to the provider's documented domains unless the integration allows custom ones", () => {
  const okta = getCatalogProvider('okta')!;
  assert.equal(at(okta, { domain: 'acme.okta.com' }).tokenUrl('token'), 'https://acme.okta.com/oauth2/v1/token');
  assert.equal(at(okta, { domain: 'acme.oktapreview.com' }).authorizationUrl('cid'), 'https://acme.oktapreview.com/oauth2/v1/authorize');
  assert.equal(
    refusedField(() => at(okta, { domain: 'login.acme.com' }).tokenUrl('token')),
    'connection_config.domain',
  );
  assert.equal(
    refusedField(() => at(okta, { domain: 'okta.com.attacker.example' }).tokenUrl('token')),
    'connection_config.domain',
  );
  assert.equal(at(okta, { domain: 'login.acme.com' }, { custom_domains: 'login.acme.com' }).tokenUrl('token'), 'https://login.acme.com/oauth2/v1/token');
  assert.equal(at(okta, { domain: 'id.acme.com' }, { custom_domains: 'x.test, *.acme.com' }).baseUrl(), 'https://id.acme.com');
  assert.equal(
    refusedField(() => at(okta, { domain: 'login.other.com' }, { custom_domains: '*.acme.com' }).tokenUrl('token')),
    'connection_config.domain',
  );
  // Several labels where the documented domains allow them (Zoho's com.au, Datadog's us3.datadoghq.com).
  assert.equal(at(getCatalogProvider('zoho-crm')!, { extension: 'com.au' }).tokenUrl('token'), 'https://accounts.zoho.com.au/oauth/v2/token');
  assert.equal(at(getCatalogProvider('datadog')!, { siteParameter: 'us3.datadoghq.com' }).baseUrl(), 'https://api.us3.datadoghq.com/api');
  assert.equal(
    refusedField(() => at(getCatalogProvider('datadog')!, { siteParameter: 'attacker.example' }).baseUrl()),
    'connection_config.siteParameter',
  );
});

test('a base URL templated with a host or a full URL (a self-hosted tool): any host, https unless allow-listed', () => {
  const metabase = getCatalogProvider('metabase')!;
  assert.equal(at(metabase, { hostname: 'acme.metabaseapp.com' }).baseUrl(), 'https://acme.metabaseapp.com');
  assert.equal(at(metabase, { hostname: 'http://127.0.0.1:3000/base/' }).baseUrl(), 'http://127.0.0.1:3000/base');
  assert.equal(at(metabase, { hostname: 'metabase.acme.com:8443' }).baseUrl(), 'https://metabase.acme.com:8443');
  assert.equal(at(metabase, {}, { base_url: 'https://other.test/' }).baseUrl(), 'https://other.test');
  assert.equal(
    refusedField(() => at(metabase, { hostname: 'http://metabase.example.com' }).check()),
    'connection_config.hostname',
  );
  assert.throws(() => at(metabase, { hostname: 'http://metabase.example.com' }).baseUrl(), /connection_config\.hostname must use https/);
  for (const trick of [
    'x/..',
    'a@attacker.example',
    'attacker.example#',
    'https://u:p@attacker.example',
    'https://attacker.example/?q',
    'https://h/%2e%2e/x',
  ]) {
    assert.equal(
      refusedField(() => at(metabase, { hostname: trick }).baseUrl()),
      'connection_config.hostname',
      trick,
    );
  }
  const salesforce = getCatalogProvider('salesforce')!;
  assert.equal(at(salesforce, { instance_url: 'https://acme.my.salesforce.com' }).baseUrl(), 'https://acme.my.salesforce.com');
});

test('values in a path or query are percent-encoded; "." and ".." are refused', () => {
  const p = def({
    auth_mode: 'NONE',
    proxy: { base_url: 'https://api.acme.test/stores/${connectionConfig.store}?team=${connectionConfig.team}' },
    connection_config: { store: { title: 'Store' }, team: { title: 'Team' } },
  });
  assert.equal(at(p, { store: 'a/../b', team: 'x&y=1' }).baseUrl(), 'https://api.acme.test/stores/a%2F..%2Fb?team=x%26y%3D1');
  assert.equal(
    refusedField(() => at(p, { store: '..', team: 't' }).baseUrl()),
    'connection_config.store',
  );
  const microsoft = getCatalogProvider('microsoft')!;
  assert.equal(at(microsoft, { tenant: 'x/..' }).tokenUrl('token'), 'https://login.microsoftonline.com/x%2F../oauth2/v2.0/token');
});

test("token, refresh and authorization parameters are filled with the connection's values (Auth0's audience)", () => {
  const auth0 = getCatalogProvider('auth0-cc')!;
  const e = at(auth0, { hostname: 'acme.us.auth0.com' });
  assert.deepEqual(e.params('token'), { audience: 'https://acme.us.auth0.com/api/v2/' });
  assert.equal(e.tokenUrl('token'), 'https://acme.us.auth0.com/oauth/token');
  assert.deepEqual(at(auth0, { hostname: 'acme.us.auth0.com', audience: 'https://api.example.com' }).params('token'), { audience: 'https://api.example.com' });
  // The connection check, made before any token request, names the missing host (the audience is optional).
  assert.throws(() => at(auth0, {}).check(), /connection_config\.hostname is required/);
});

test("the credentials' origins: the base URL's, the verification URL's and the definition's credential_origins", () => {
  const p = def({
    auth_mode: 'API_KEY',
    proxy: {
      base_url: 'https://api.acme.test/v1',
      credential_origins: ['https://files.acme.test', 'https://${connectionConfig.region}.uploads.acme.test/x'],
      verification: { method: 'GET', endpoints: ['/me'], base_url_override: 'https://accounts.acme.test' },
    },
    connection_config: { region: { title: 'Region', optional: true } },
  });
  assert.deepEqual(at(p, { region: 'eu' }).origins(), [
    'https://api.acme.test',
    'https://accounts.acme.test',
    'https://files.acme.test',
    'https://eu.uploads.acme.test',
  ]);
  // A value the config lacks, or one that may not stand there, opens no origin.
  assert.deepEqual(at(p, {}).origins(), ['https://api.acme.test', 'https://accounts.acme.test', 'https://files.acme.test']);
  assert.deepEqual(at(p, { region: 'attacker.example#' }).origins(), ['https://api.acme.test', 'https://accounts.acme.test', 'https://files.acme.test']);
});

test('credentials go where the templates say, else by the auth mode default', () => {
  const inject = (d: Record<string, unknown>, creds: Parameters<typeof authInjection>[1], config = {}) => {
    const a = authInjection(def(d), creds, config);
    return { headers: authHeaders(a), query: a.type === 'custom' ? a.query : {} };
  };
  const proxy = { base_url: 'https://api.acme.test' };
  assert.deepEqual(inject({ auth_mode: 'API_KEY', proxy }, { type: 'API_KEY', apiKey: 'k' }).headers, { authorization: 'Bearer k' });
  assert.deepEqual(
    inject(
      {
        auth_mode: 'API_KEY',
        proxy: { ...proxy, query: { api_key: '${apiKey}' }, headers: { 'x-team': '${connectionConfig.team}' } },
        connection_config: { team: { title: 'Team' } },
      },
      { type: 'API_KEY', apiKey: 'k' },
      { team: 't1' },
    ),
    { headers: { 'x-team': 't1' }, query: { api_key: 'k' } },
  );
  assert.deepEqual(inject({ auth_mode: 'BASIC', proxy }, { type: 'BASIC', username: 'u', password: 'p' }).headers, {
    authorization: `Basic ${Buffer.from('u:p').toString('base64')}`,
  });
  assert.deepEqual(
    inject({ auth_mode: 'BASIC', proxy: { ...proxy, headers: { 'x-user': '${username}' } } }, { type: 'BASIC', username: 'u', password: 'p' }).headers,
    { 'x-user': 'u' },
  );
  assert.deepEqual(
    inject({ auth_mode: 'OAUTH2', authorization_url: 'https://a.test/auth', token_url: 'https://a.test/token', proxy }, { type: 'OAUTH2', access_token: 't' })
      .headers,
    { authorization: 'Bearer t' },
  );
  assert.deepEqual(
    inject(
      { auth_mode: 'OAUTH2_CC', token_url: 'https://a.test/token', proxy: { ...proxy, headers: { authorization: 'Token ${accessToken}' } } },
      { type: 'OAUTH2_CC', token: 't' },
    ).headers,
    { authorization: 'Token t' },
  );
  assert.deepEqual(inject({ auth_mode: 'NONE', proxy }, { type: 'NONE' }).headers, {});
});

test("a plugin's authorize hook places the credentials itself", () => {
  const checkr = getCatalogProvider('checkr-partner')!;
  const a = authInjection(
    checkr,
    { type: 'OAUTH2', access_token: 'tok' },
    {},
    { authorize: (c) => (c.type === 'OAUTH2' ? { type: 'basic', username: c.access_token, password: '' } : undefined) },
  );
  assert.deepEqual(a, { type: 'basic', username: 'tok', password: '' });
});

test("Mandrill's key goes in the JSON body (proxy.body), not in a header", () => {
  const mandrill = getCatalogProvider('mandrill')!;
  const a = authInjection(mandrill, { type: 'API_KEY', apiKey: 'md-1' }, {});
  assert.deepEqual(a, { type: 'custom', headers: {}, query: {}, body: { key: 'md-1' } });
  assert.deepEqual(authHeaders(a), {});
});

test("TikTok's client key takes client_id's place in the authorization URL (authorization_url_replacements)", () => {
  const tiktok = getCatalogProvider('tiktok-personal')!;
  const url = new URL(
    authorizeUrl({
      endpoints: at(tiktok, {}),
      credentials: { type: 'OAUTH2', client_id: 'awkey123', client_secret: 's', scopes: 'user.info.basic,video.list' },
      redirectUri: 'https://app.test/oauth/callback',
      state: 'st',
    }),
  );
  assert.equal(url.searchParams.get('client_key'), 'awkey123');
  assert.equal(url.searchParams.get('client_id'), null);
  assert.equal(url.searchParams.get('scope'), 'user.info.basic,video.list');
});

test("ADP's client certificate goes with its token wherever the token goes (mutual TLS), and a pasted one-line PEM is re-wrapped", () => {
  const body = 'MIIB'.padEnd(100, 'A');
  const parsed = oauth2CcCredentials.parse({
    type: 'OAUTH2_CC',
    token: 'tok',
    client_certificate: `-----BEGIN CERTIFICATE----- ${body} -----END CERTIFICATE-----`,
    client_private_key: `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----`,
  });
  assert.equal(parsed.client_certificate, `-----BEGIN CERTIFICATE-----\n${body.slice(0, 64)}\n${body.slice(64)}\n-----END CERTIFICATE-----\n`);
  assert.equal(oauth2CcCredentials.safeParse({ type: 'OAUTH2_CC', client_private_key: 'not a key' }).error?.issues[0]?.path.join('.'), 'client_private_key');
  const stored = { ...parsed, expires_at: undefined };
  const a = authInjection(getCatalogProvider('adp')!, stored, {});
  assert.deepEqual(a, {
    type: 'custom',
    headers: { authorization: 'Bearer tok' },
    query: {},
    clientCertificate: { cert: parsed.client_certificate, key: parsed.client_private_key },
  });
  assert.equal(getCatalogProvider('adp-workforce-now')!.requireClientCertificate, true);
});
