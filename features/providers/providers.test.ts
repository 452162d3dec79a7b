import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authHeaders } from '../../lib/http/provider-client.js';
import { authInjection, getCatalogProvider, providerFromDefinition, resolveBaseUrl } from './providers.js';
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
