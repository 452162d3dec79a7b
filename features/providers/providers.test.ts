import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authHeaders } from '../../lib/http/provider-client.js';
import { authInjection, getCatalogProvider, providerFromDefinition, resolveAuthorizationUrl, resolveBaseUrl, resolveTokenUrl } from './providers.js';
import { providerDefinitionSchema } from './definition.js';

const def = (extra: Record<string, unknown>) =>
  providerDefinitionSchema.parse({ name: 'acme', display_name: 'Acme', docs: 'https://acme.test/docs', ...extra });

test('the shipped providers come from the catalogue with the settings the runtime had', () => {
  const slack = getCatalogProvider('slack')!;
  assert.equal(slack.authMode, 'OAUTH2');
  assert.equal(slack.pkce, false);
  assert.equal(slack.scopeSeparator, ',');
  assert.deepEqual(slack.tokenResponseMetadata, ['bot_user_id', 'team.id']);
  const drive = getCatalogProvider('google-drive')!;
  assert.equal(drive.pkce, true);
  assert.deepEqual(drive.authorizationParams, { access_type: 'offline', prompt: 'consent' });
  assert.deepEqual(drive.verification, { method: 'GET', paths: ['/drive/v3/about?fields=user'] });
  const metabase = getCatalogProvider('metabase')!;
  assert.equal(metabase.connectionConfig.hostname!.httpsUnlessAllowListed, true);
  assert.equal(metabase.connectionConfig.hostname!.required, true);
  for (const name of ['checkr-partner', 'checkr-partner-staging']) assert.equal(getCatalogProvider(name)!.pkce, false);
});

test('a base URL templated with a host or a full URL (a self-hosted tool), https implied', () => {
  const metabase = getCatalogProvider('metabase')!;
  assert.equal(resolveBaseUrl(metabase, {}, { hostname: 'acme.metabaseapp.com' }), 'https://acme.metabaseapp.com');
  assert.equal(resolveBaseUrl(metabase, {}, { hostname: 'http://127.0.0.1:3000/base/' }), 'http://127.0.0.1:3000/base');
  assert.equal(resolveBaseUrl(metabase, { base_url: 'https://other.test/' }, {}), 'https://other.test');
});

test('credentials go where the templates say, else by the auth mode default', () => {
  const inject = (d: Record<string, unknown>, creds: Parameters<typeof authInjection>[1], config = {}) => {
    const a = authInjection(providerFromDefinition(def(d)), creds, config);
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
    {
      'x-user': 'u',
    },
  );
  assert.deepEqual(
    inject({ auth_mode: 'OAUTH2', authorization_url: 'https://a.test/auth', token_url: 'https://a.test/token', proxy }, { type: 'OAUTH2', access_token: 't' })
      .headers,
    {
      authorization: 'Bearer t',
    },
  );
  assert.deepEqual(
    inject(
      { auth_mode: 'OAUTH2_CC', token_url: 'https://a.test/token', proxy: { ...proxy, headers: { authorization: 'Token ${accessToken}' } } },
      { type: 'OAUTH2_CC', token: 't' },
    ).headers,
    {
      authorization: 'Token t',
    },
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

test('regions and tenants (issue 30 item 6): the documented hosts as choices with a default, applied when a connection gives none; another value refused', async () => {
  const { withConfigDefaults } = await import('./connection-config.js');
  const base = (name: string, config: Record<string, unknown>) => {
    const p = getCatalogProvider(name)!;
    return resolveBaseUrl(p, {}, withConfigDefaults(p, config));
  };
  const choices = (name: string, field: string) => {
    const f = getCatalogProvider(name)!.connectionConfig[field]!;
    return [f.choices, f.default];
  };
  assert.deepEqual(choices('intercom', 'region'), [['eu', 'au'], undefined]);
  assert.equal(base('intercom', {}), 'https://api.intercom.io', 'no region: the US host');
  assert.equal(base('intercom', { region: 'eu' }), 'https://api.eu.intercom.io');
  assert.equal(base('intercom', { region: 'au' }), 'https://api.au.intercom.io');
  assert.equal(base('amplitude', {}), 'https://amplitude.com');
  assert.equal(base('amplitude', { hostname: 'analytics.eu.amplitude.com' }), 'https://analytics.eu.amplitude.com');
  assert.equal(base('smartsheet', { domain: 'smartsheet.eu' }), 'https://api.smartsheet.eu');
  const smartsheet = getCatalogProvider('smartsheet')!;
  assert.equal(resolveTokenUrl(smartsheet, {}, withConfigDefaults(smartsheet, { domain: 'smartsheet.au' })), 'https://api.smartsheet.au/2.0/token');
  assert.equal(resolveTokenUrl(smartsheet, {}, {}), 'https://api.smartsheet.com/2.0/token', 'a connection made before the choice: the first host');
  assert.equal(base('zoho-crm', {}), 'https://www.zohoapis.com');
  assert.equal(base('zoho-crm', { extension: 'com.au' }), 'https://www.zohoapis.com.au');
  for (const name of ['microsoft', 'one-drive', 'outlook', 'sharepoint-online']) {
    const p = getCatalogProvider(name)!;
    assert.equal(resolveAuthorizationUrl(p, {}, 'cid', withConfigDefaults(p, {})), 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize', name);
  }
  for (const [name, field, values, dflt] of [
    ['mailgun', 'region', ['api', 'api.eu'], 'api'],
    ['paylocity', 'environment', ['api', 'dc1demogw'], 'api'],
    ['teamtailor', 'extension', ['api', 'api.na'], 'api'],
    ['itglue', 'subdomain', ['api', 'api.eu', 'api.au'], 'api'],
    ['ironclad', 'subdomain', ['na1', 'eu1', 'demo'], 'na1'],
    ['customer-io', 'subdomain', ['cdp', 'cdp-eu'], 'cdp'],
    ['amazon', 'extension', ['com', 'co.uk', 'co.jp'], 'com'],
    ['exact-online', 'extension', ['nl', 'be', 'de', 'fr', 'es', 'co.uk', 'com'], 'nl'],
  ] as const)
    assert.deepEqual(choices(name, field), [values, dflt], name);
  for (const name of ['make', 'datadog-oauth', 'datadog', 'knowbe4', '1password-events', 'sentry', 'zoho-books', 'zoho-desk', 'zoho-mail', 'zoho-people'])
    assert.ok(
      Object.values(getCatalogProvider(name)!.connectionConfig).some((f) => f.choices && f.default),
      `${name} offers its hosts with a default`,
    );
  assert.throws(
    () => withConfigDefaults(getCatalogProvider('mailgun')!, { region: 'api.us' }),
    (err: Error & { errors?: { path: string[] }[] }) =>
      /^connection_config\.region must be one of api, api\.eu/.test(err.message) && err.errors?.[0]?.path.join('.') === 'connection_config.region',
  );
});
