import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getCatalogProvider } from './providers.js';
import { catalogEndpoints } from './catalog-paths-check.js';
import { withConfigDefaults } from './connection-config.js';

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
  assert.equal(metabase.connectionConfig.hostname!.required, true);
  assert.deepEqual(getCatalogProvider('okta')!.connectionConfig.domain!.domains, ['*.okta.com', '*.oktapreview.com', '*.okta-emea.com', '*.okta-gov.com']);
  for (const name of ['checkr-partner', 'checkr-partner-staging']) assert.equal(getCatalogProvider(name)!.pkce, false);
});

test('regions and tenants (issue 30 item 6): the documented hosts as choices with a default, applied when a connection gives none; another value refused', () => {
  const at = (name: string, config: Record<string, unknown>) => {
    const p = getCatalogProvider(name)!;
    return catalogEndpoints(p, withConfigDefaults(p, config));
  };
  const choices = (name: string, field: string) => {
    const f = getCatalogProvider(name)!.connectionConfig[field]!;
    return [f.choices, f.default];
  };
  assert.deepEqual(choices('intercom', 'region'), [['eu', 'au'], undefined]);
  assert.equal(at('intercom', {}).baseUrl(), 'https://api.intercom.io', 'no region: the US host');
  assert.equal(at('intercom', { region: 'eu' }).baseUrl(), 'https://api.eu.intercom.io');
  assert.equal(at('intercom', { region: 'au' }).baseUrl(), 'https://api.au.intercom.io');
  assert.equal(at('amplitude', {}).baseUrl(), 'https://amplitude.com');
  assert.equal(at('amplitude', { hostname: 'analytics.eu.amplitude.com' }).baseUrl(), 'https://analytics.eu.amplitude.com');
  assert.equal(at('smartsheet', { domain: 'smartsheet.eu' }).baseUrl(), 'https://api.smartsheet.eu');
  assert.equal(at('smartsheet', { domain: 'smartsheet.au' }).tokenUrl('token'), 'https://api.smartsheet.au/2.0/token');
  assert.equal(
    catalogEndpoints(getCatalogProvider('smartsheet')!, {}).tokenUrl('token'),
    'https://api.smartsheet.com/2.0/token',
    'a connection made before the choice: the host after ||',
  );
  assert.equal(at('zoho-crm', {}).baseUrl(), 'https://www.zohoapis.com');
  assert.equal(at('zoho-crm', { extension: 'com.au' }).baseUrl(), 'https://www.zohoapis.com.au');
  for (const name of ['microsoft', 'one-drive', 'outlook', 'sharepoint-online'])
    assert.match(at(name, {}).authorizationUrl('cid') ?? '', /^https:\/\/login\.microsoftonline\.com\/common\/oauth2\/v2\.0\/authorize$/, name);
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
  for (const name of ['make', 'datadog-oauth', 'datadog', 'knowbe4', '1password-events', 'sentry', 'zoho-books', 'zoho-desk', 'zoho-mail', 'zoho-people']) {
    const p = getCatalogProvider(name)!;
    assert.ok(
      Object.values(p.connectionConfig).some((f) => f.choices && f.default),
      `${name} offers its hosts with a default`,
    );
    // Every choice makes a URL the resolver accepts (its host checks and the field's domains).
    for (const [key, f] of Object.entries(p.connectionConfig))
      for (const choice of f.choices ?? []) assert.doesNotThrow(() => at(name, { [key]: choice, applicationKey: 'k' }).baseUrl(), `${name} ${key}=${choice}`);
  }
  assert.throws(
    () => withConfigDefaults(getCatalogProvider('mailgun')!, { region: 'api.us' }),
    (err: Error & { errors?: { path: string[] }[] }) =>
      /^connection_config\.region must be one of api, api\.eu/.test(err.message) && err.errors?.[0]?.path.join('.') === 'connection_config.region',
  );
});
