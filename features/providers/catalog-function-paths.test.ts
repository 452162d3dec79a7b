/**
 * Base paths as Nango's (issue 30 item 3): the endpoint a function of Nango's public library passes
 * to the proxy, joined to our `proxy.base_url` as the proxy joins them, must give the URL the
 * provider documents. A prefix in both (`/v1` in the base URL and in the endpoint) shows up here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildUrl } from '../../lib/http/provider-client.js';
import { catalogEndpoints } from './catalog-paths-check.js';
import { getCatalogProvider } from './providers.js';

type Case = { config?: Record<string, string>; endpoint: string; url: string };

const cases: Record<string, Case> = {
  '1password-scim': { config: { domain: 'scim.example.com' }, endpoint: '/Users', url: 'https://scim.example.com/scim/Users' },
  'acuity-scheduling': { endpoint: '/appointments', url: 'https://acuityscheduling.com/api/v1/appointments' },
  aircall: { endpoint: '/v1/calls', url: 'https://api.aircall.io/v1/calls' },
  'aircall-basic': { endpoint: '/v2/users', url: 'https://api.aircall.io/v2/users' },
  'airtable-pat': { endpoint: '/v0/meta/bases', url: 'https://api.airtable.com/v0/meta/bases' },
  algolia: { config: { APP_ID: 'ABCDEF1234' }, endpoint: '/1/indexes/products/query', url: 'https://abcdef1234.algolia.net/1/indexes/products/query' },
  apollo: { endpoint: '/v1/contacts/search', url: 'https://api.apollo.io/api/v1/contacts/search' },
  'auth0-cc': { config: { hostname: 'acme.us.auth0.com' }, endpoint: '/api/v2/users', url: 'https://acme.us.auth0.com/api/v2/users' },
  avalara: { endpoint: '/companies', url: 'https://rest.avatax.com/api/v2/companies' },
  'avalara-sandbox': { endpoint: '/transactions/create', url: 'https://sandbox-rest.avatax.com/api/v2/transactions/create' },
  'azure-devops': { config: { organizationUrl: 'dev.azure.com/myorg' }, endpoint: '/_apis/projects', url: 'https://dev.azure.com/myorg/_apis/projects' },
  'bamboohr-basic': {
    config: { subdomain: 'acme' },
    endpoint: '/v1/employees/directory',
    url: 'https://api.bamboohr.com/api/gateway.php/acme/v1/employees/directory',
  },
  baserow: { config: { baseUrl: 'https://api.baserow.io' }, endpoint: '/database/rows/table/1/', url: 'https://api.baserow.io/api/database/rows/table/1/' },
  basin: { endpoint: '/v1/forms', url: 'https://usebasin.com/api/v1/forms' },
  'cal-com-v2': { endpoint: '/bookings', url: 'https://api.cal.com/v2/bookings' },
  canva: { endpoint: '/rest/v1/designs', url: 'https://api.canva.com/rest/v1/designs' },
  clicksend: { endpoint: '/v3/sms/send', url: 'https://rest.clicksend.com/v3/sms/send' },
  coda: { endpoint: '/docs', url: 'https://coda.io/apis/v1/docs' },
  'databricks-workspace': {
    config: { databricksInstance: 'dbc-a1b2345c-d6e7.cloud.databricks.com' },
    endpoint: '/sql/warehouses',
    url: 'https://dbc-a1b2345c-d6e7.cloud.databricks.com/api/2.0/sql/warehouses',
  },
  'datadog-oauth': {
    config: { siteParameter: 'datadoghq.eu', authorizeHost: 'app.datadoghq.eu' },
    endpoint: '/v1/dashboard',
    url: 'https://api.datadoghq.eu/api/v1/dashboard',
  },
  dialpad: { endpoint: '/api/v2/users', url: 'https://dialpad.com/api/v2/users' },
  'dialpad-sandbox': { endpoint: '/api/v2/company', url: 'https://sandbox.dialpad.com/api/v2/company' },
  discourse: { config: { defaultHost: 'forum.example.com', apiUsername: 'system' }, endpoint: '/posts.json', url: 'https://forum.example.com/posts.json' },
  'docusign-sandbox': { endpoint: '/restapi/v2.1/accounts/1/envelopes', url: 'https://demo.docusign.net/restapi/v2.1/accounts/1/envelopes' },
  'dynamic-mockups': { endpoint: '/v1/mockups', url: 'https://app.dynamicmockups.com/api/v1/mockups' },
  dynatrace: { config: { environmentId: 'abc12345' }, endpoint: '/api/v2/entities', url: 'https://abc12345.live.dynatrace.com/api/v2/entities' },
  'dynatrace-oauth': {
    config: { accountUuid: '9a8b7c6d-1234-5678-abcd-ef0123456789' },
    endpoint: '/iam/v1/accounts/x/users',
    url: 'https://api.dynatrace.com/iam/v1/accounts/x/users',
  },
  elevenlabs: { endpoint: '/v1/voices', url: 'https://api.elevenlabs.io/v1/voices' },
  exa: { endpoint: '/search', url: 'https://api.exa.ai/search' },
  'exact-online': { config: { extension: 'nl' }, endpoint: '/api/v1/123/crm/Accounts', url: 'https://start.exactonline.nl/api/v1/123/crm/Accounts' },
  expensify: { endpoint: '/ExpensifyIntegrations', url: 'https://integrations.expensify.com/Integration-Server/ExpensifyIntegrations' },
  fireflies: { endpoint: '/graphql', url: 'https://api.fireflies.ai/graphql' },
  freshbooks: { endpoint: '/accounting/account/abc/users/clients', url: 'https://api.freshbooks.com/accounting/account/abc/users/clients' },
  'gong-oauth': { config: { api_base_url_for_customer: 'https://us-12345.api.gong.io' }, endpoint: '/v2/calls', url: 'https://us-12345.api.gong.io/v2/calls' },
  'google-ads': { endpoint: '/v21/customers:listAccessibleCustomers', url: 'https://googleads.googleapis.com/v21/customers:listAccessibleCustomers' },
  'google-docs': { endpoint: '/v1/documents/abc', url: 'https://docs.googleapis.com/v1/documents/abc' },
  'google-gemini': { endpoint: '/v1beta/models', url: 'https://generativelanguage.googleapis.com/v1beta/models' },
  'gorgias-basic': { config: { subdomain: 'acme' }, endpoint: '/api/tickets', url: 'https://acme.gorgias.com/api/tickets' },
  grammarly: { endpoint: '/v1/users', url: 'https://api.grammarly.com/ecosystem/api/v1/users' },
  greenhouse: { config: { resource: 'harvest' }, endpoint: '/v1/candidates', url: 'https://harvest.greenhouse.io/v1/candidates' },
  'greenhouse-basic': { config: { resource: 'harvest' }, endpoint: '/v1/applications', url: 'https://harvest.greenhouse.io/v1/applications' },
  'gusto-demo': { endpoint: '/v1/companies/c1/employees', url: 'https://api.gusto-demo.com/v1/companies/c1/employees' },
  'hackerrank-work': { endpoint: '/x/api/v3/tests', url: 'https://www.hackerrank.com/x/api/v3/tests' },
  highlevel: { endpoint: '/contacts/abc', url: 'https://services.leadconnectorhq.com/contacts/abc' },
  instantly: { endpoint: '/v2/campaigns', url: 'https://api.instantly.ai/api/v2/campaigns' },
  ironclad: { config: { subdomain: 'na1' }, endpoint: '/public/api/v1/workflows', url: 'https://na1.ironcladapp.com/public/api/v1/workflows' },
  'jira-basic': { config: { subdomain: 'acme' }, endpoint: '/rest/api/3/issue/KEY-1', url: 'https://acme.atlassian.net/rest/api/3/issue/KEY-1' },
  'keeper-scim': { config: { node: '123435384338765' }, endpoint: '/Users', url: 'https://keepersecurity.com/api/rest/scim/v2/123435384338765/Users' },
  kustomer: { config: { extension: 'acme.api' }, endpoint: '/v1/conversations', url: 'https://acme.api.kustomerapp.com/v1/conversations' },
  lastpass: { endpoint: '/enterpriseapi.php', url: 'https://lastpass.com/enterpriseapi.php' },
};

for (const [name, c] of Object.entries(cases)) {
  test(`${name}: the function library's endpoint lands on the documented URL`, () => {
    const provider = getCatalogProvider(name);
    assert.ok(provider, `no catalogue entry named ${name}`);
    assert.equal(buildUrl(catalogEndpoints(provider, c.config ?? {}).baseUrl(), c.endpoint).href, c.url);
  });
}
