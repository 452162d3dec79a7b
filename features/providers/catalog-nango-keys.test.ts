/**
 * Connection-config keys as Nango's (issue 30, item 3): a connection imported from Nango carries the
 * keys Nango's entry of the same name declares (Okta's and PostHog's `subdomain`, Teamwork's
 * `installation.apiEndPoint`, Salesforce's `hostname`, …) or none at all (Gong), and must reach the
 * URL the provider documents with them, as one made here does with ours. Each row: a provider, the
 * config of such a connection, an endpoint as the functions call it, and the documented URL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredCredentials } from '../connections/credentials.js';
import { catalogEndpoints, type PathRow, testPathFamilies } from './catalog-paths-check.js';
import { getCatalogProvider } from './providers.js';

const families: Record<string, PathRow[]> = {
  'imported configs, identity': [
    ['okta', { subdomain: 'acme' }, '/api/v1/users', 'https://acme.okta.com/api/v1/users'],
    // A connection made here before, or an org off okta.com, names the whole domain.
    ['okta', { domain: 'acme.oktapreview.com' }, '/api/v1/users', 'https://acme.oktapreview.com/api/v1/users'],
  ],
  'imported configs, analytics and calls': [
    ['posthog', { subdomain: 'eu' }, '/api/projects/', 'https://eu.posthog.com/api/projects/'],
    ['posthog', { subdomain: 'us.i' }, '/capture/', 'https://us.i.posthog.com/capture/'],
    ['posthog', { domain: 'posthog.example.com' }, '/api/projects/', 'https://posthog.example.com/api/projects/'],
    ['gong', {}, '/v2/calls', 'https://api.gong.io/v2/calls'],
    ['gong', { domain: 'us-12345.api.gong.io' }, '/v2/calls', 'https://us-12345.api.gong.io/v2/calls'],
    ['gong-oauth', {}, '/v2/users', 'https://api.gong.io/v2/users'],
    ['survey-monkey', {}, '/v3/surveys', 'https://api.surveymonkey.com/v3/surveys'],
    ['surveymonkey', { access_url: 'https://api.eu.surveymonkey.com' }, '/v3/surveys', 'https://api.eu.surveymonkey.com/v3/surveys'],
  ],
  'imported configs, project tools': [
    [
      'teamwork',
      { 'installation.apiEndPoint': 'https://acme.teamwork.com/' },
      '/projects/api/v3/projects.json',
      'https://acme.teamwork.com/projects/api/v3/projects.json',
    ],
    ['teamwork', { 'installation.apiEndPoint': 'https://acme.eu.teamwork.com/' }, '/me.json', 'https://acme.eu.teamwork.com/me.json'],
  ],
};

testPathFamilies(families);

const at = (name: string, config: Record<string, string>) => catalogEndpoints(getCatalogProvider(name)!, config);
const headersOf = (name: string, config: Record<string, string>, credentials: StoredCredentials) => {
  const auth = at(name, config).auth(credentials);
  if (auth.type === 'custom') return auth.headers;
  if (auth.type === 'bearer') return { authorization: `Bearer ${auth.token}` };
  assert.equal(auth.type, 'header');
  return { [auth.name.toLowerCase()]: auth.value };
};

test('imported configs: the values Nango keeps for sign-in and tokens are used, and a config without them still works', () => {
  const salesforce = at('salesforce', { hostname: 'acme.my.salesforce.com', instance_url: 'https://acme.my.salesforce.com' });
  salesforce.check();
  assert.equal(salesforce.tokenUrl('refresh'), 'https://acme.my.salesforce.com/services/oauth2/token');
  assert.equal(at('salesforce', {}).tokenUrl('refresh'), 'https://login.salesforce.com/services/oauth2/token');
  assert.equal(at('salesforce-sandbox', {}).authorizationUrl('cid'), 'https://test.salesforce.com/services/oauth2/authorize');

  assert.equal(at('auth0-cc', { hostname: 'acme.us.auth0.com', audience: 'https://api.example.com' }).params('token').audience, 'https://api.example.com');
  assert.equal(at('auth0-cc', { hostname: 'acme.us.auth0.com' }).params('token').audience, 'https://acme.us.auth0.com/api/v2/');

  // Nango's subdomain is optional there: a service-account connection without one passes the check.
  at('atlassian-service-account-oauth2', {}).check();
  at('okta', { subdomain: 'acme' }).check();
  assert.equal(at('okta', { subdomain: 'acme' }).tokenUrl('token'), 'https://acme.okta.com/oauth2/v1/token');
  at('gong', {}).check();
});

test('imported configs: header values Nango keeps in the connection are sent; without them, the documented default', () => {
  const key: StoredCredentials = { type: 'API_KEY', apiKey: 'k' };
  assert.equal(headersOf('anthropic', { version: '2024-01-01' }, key)['anthropic-version'], '2024-01-01');
  assert.equal(headersOf('anthropic', {}, key)['anthropic-version'], '2023-06-01');
  assert.equal(headersOf('anthropic-admin', {}, key)['anthropic-version'], '2023-06-01');
  assert.equal(headersOf('github-pat', { version: '2026-03-10' }, key)['x-github-api-version'], '2026-03-10');
  assert.equal(headersOf('github-pat', {}, key)['x-github-api-version'], '2022-11-28');
  const token: StoredCredentials = { type: 'OAUTH2', access_token: 't', raw: {} };
  assert.equal(headersOf('procore', { companyId: '42' }, token)['procore-company-id'], '42');
  assert.equal(headersOf('procore', {}, token)['procore-company-id'], undefined);
});
