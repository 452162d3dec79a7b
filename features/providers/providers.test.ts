import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getCatalogProvider } from './providers.js';

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
