/**
 * Base paths as Nango's (issue 30, item 3): a function written for Nango calls an endpoint relative to
 * the provider's base URL, so our base URL must not repeat a prefix the endpoint already carries.
 * Each row is one endpoint the public function library calls, with the connection-config keys Nango
 * names, and the URL the provider's own docs give for it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildUrl } from '../../lib/http/provider-client.js';
import { getCatalogProvider, resolveBaseUrl } from './providers.js';

type Row = [provider: string, connectionConfig: Record<string, string>, endpoint: string, url: string];

const families: Record<string, Row[]> = {
  'HR and recruiting': [
    ['lattice', {}, '/developer/v1/users', 'https://api.latticehq.com/developer/v1/users'],
    ['lever-basic', {}, '/v1/opportunities', 'https://api.lever.co/v1/opportunities'],
    ['lever-basic-sandbox', {}, '/v1/opportunities', 'https://api.sandbox.lever.co/v1/opportunities'],
    ['lever-sandbox', {}, '/v1/opportunities', 'https://api.sandbox.lever.co/v1/opportunities'],
    ['namely-pat', { company: 'acme' }, '/v1/profiles', 'https://acme.namely.com/api/v1/profiles'],
    [
      'oracle-hcm',
      { restServerUrl: 'acme.fa.us2.oraclecloud.com' },
      'hcmRestApi/resources/11.13.18.05/workers',
      'https://acme.fa.us2.oraclecloud.com/hcmRestApi/resources/11.13.18.05/workers',
    ],
    [
      'paylocity',
      { environment: 'api', companyId: 'S2222' },
      '/api/v2/companies/S2222/employees',
      'https://api.paylocity.com/api/v2/companies/S2222/employees',
    ],
    ['paychex', {}, '/companies', 'https://api.paychex.com/companies'],
    ['recruiterflow', {}, '/api/external/user/list', 'https://api.recruiterflow.com/api/external/user/list'],
    ['teamtailor', { extension: 'api' }, '/v1/candidates', 'https://api.teamtailor.com/v1/candidates'],
    ['timetastic', {}, '/holidays', 'https://app.timetastic.co.uk/api/holidays'],
    [
      'ukg-pro',
      { hostname: 'service5.ultipro.com', customerApiKey: 'k' },
      '/personnel/v1/employee-changes',
      'https://service5.ultipro.com/personnel/v1/employee-changes',
    ],
    [
      'ukg-ready',
      { hostname: 'secure.saashr.com', realmId: '23444234' },
      '/ta/rest/v2/companies/23444234/employees/1',
      'https://secure.saashr.com/ta/rest/v2/companies/23444234/employees/1',
    ],
    [
      'workday',
      { hostname: 'wd3-impl-services1.workday.com', tenant: 'acme' },
      '/Human_Resources/v44.0',
      'https://wd3-impl-services1.workday.com/ccx/service/acme/Human_Resources/v44.0',
    ],
    ['zoho-people', { extension: 'eu' }, '/people/api/forms', 'https://people.zoho.eu/people/api/forms'],
  ],
  'accounting, payments and commerce': [
    [
      'microsoft-business-central',
      { tenantId: 't', environmentName: 'production' },
      '/api/v2.0/companies',
      'https://api.businesscentral.dynamics.com/v2.0/t/production/api/v2.0/companies',
    ],
    ['odoo-api-key', { serverUrl: 'acme.odoo.com' }, '/2/res.partner/search_read', 'https://acme.odoo.com/json/2/res.partner/search_read'],
    ['paypal-sandbox', {}, '/v2/invoicing/invoices', 'https://api-m.sandbox.paypal.com/v2/invoicing/invoices'],
    ['pennylane', {}, '/api/external/v2/customer_invoices', 'https://app.pennylane.com/api/external/v2/customer_invoices'],
    [
      'quickbooks-sandbox',
      { realmId: '9341453474484455' },
      '/v3/company/9341453474484455/query',
      'https://sandbox-quickbooks.api.intuit.com/v3/company/9341453474484455/query',
    ],
    ['ramp-sandbox', {}, '/developer/v1/users', 'https://demo-api.ramp.com/developer/v1/users'],
    ['recharge', {}, '/customers', 'https://api.rechargeapps.com/customers'],
    ['sage-intacct-oauth', {}, '/v1/objects/general-ledger/account', 'https://api.intacct.com/ia/api/v1/objects/general-ledger/account'],
    ['shopify-partner', { partnerId: '1234' }, '2026-07/graphql.json', 'https://partners.shopify.com/1234/api/2026-07/graphql.json'],
    ['splitwise', {}, '/api/v3.0/get_expenses', 'https://secure.splitwise.com/api/v3.0/get_expenses'],
    ['squareup', {}, '/v2/customers', 'https://connect.squareup.com/v2/customers'],
    ['squareup-sandbox', {}, '/v2/customers', 'https://connect.squareupsandbox.com/v2/customers'],
    ['stripe-api-key', {}, '/v1/invoices', 'https://api.stripe.com/v1/invoices'],
    ['stripe-app', {}, '/v1/invoices', 'https://api.stripe.com/v1/invoices'],
    ['stripe-app-sandbox', { appDomain: 'acme' }, '/v1/invoices', 'https://api.stripe.com/v1/invoices'],
    ['stripe-express', {}, '/v1/invoices', 'https://api.stripe.com/v1/invoices'],
    ['zoho-books', { extension: 'com' }, '/books/v3/invoices', 'https://www.zohoapis.com/books/v3/invoices'],
  ],
  'CRM, support and work management': [
    ['freshservice', { subdomain: 'acme' }, '/api/v2/tickets', 'https://acme.freshservice.com/api/v2/tickets'],
    ['jira-data-center', { endpointURL: 'jira.example.com' }, '/issue/PROJ-1', 'https://jira.example.com/rest/api/latest/issue/PROJ-1'],
    ['make', { environmentUrl: 'eu1.make.com' }, '/scenarios', 'https://eu1.make.com/api/v2/scenarios'],
    ['ninety-io', {}, '/v1/todos', 'https://api.public.ninety.io/v1/todos'],
    ['pipelinecrm', { appKey: 'a'.repeat(32) }, '/api/v3/deals', 'https://api.pipelinecrm.com/api/v3/deals'],
    ['servicenow', { hostname: 'acme.service-now.com' }, '/api/now/table/incident', 'https://acme.service-now.com/api/now/table/incident'],
    ['shortcut', {}, '/api/v3/stories/1', 'https://api.app.shortcut.com/api/v3/stories/1'],
    ['zendesk-api-key', { subdomain: 'acme' }, '/api/v2/tickets.json', 'https://acme.zendesk.com/api/v2/tickets.json'],
    ['zoho-desk', { extension: 'com' }, '/v1/tickets', 'https://desk.zoho.com/api/v1/tickets'],
  ],
  'Microsoft and Google': [
    ['microsoft-excel', {}, '/v1.0/me/drive/root/children', 'https://graph.microsoft.com/v1.0/me/drive/root/children'],
    [
      'microsoft-excel-oauth2-cc',
      { tenantId: 't' },
      '/v1.0/drives/d/items/i/workbook/worksheets',
      'https://graph.microsoft.com/v1.0/drives/d/items/i/workbook/worksheets',
    ],
    ['microsoft-power-bi-oauth2-cc', { tenantId: 't' }, '/v1.0/myorg/groups', 'https://api.powerbi.com/v1.0/myorg/groups'],
    ['microsoft-powerpoint-oauth2-cc', { tenantId: 't' }, '/v1.0/drives/d/items/i', 'https://graph.microsoft.com/v1.0/drives/d/items/i'],
    ['microsoft-word-oauth2-cc', { tenantId: 't' }, '/v1.0/drives/d/items/i', 'https://graph.microsoft.com/v1.0/drives/d/items/i'],
    ['one-drive-personal', {}, '/v1.0/drive/root/children', 'https://api.onedrive.com/v1.0/drive/root/children'],
    ['google-chat', {}, '/v1/spaces', 'https://chat.googleapis.com/v1/spaces'],
  ],
  'communication, identity, storage and the rest': [
    ['egnyte', { subdomain: 'acme' }, '/v1/fs/Shared', 'https://acme.egnyte.com/pubapi/v1/fs/Shared'],
    ['luma', {}, '/public/v1/calendar/list-events', 'https://api.lu.ma/public/v1/calendar/list-events'],
    ['mailgun', { region: 'api.eu' }, '/v4/domains', 'https://api.eu.mailgun.net/v4/domains'],
    ['millionverifier', {}, '/v3/credits', 'https://api.millionverifier.com/api/v3/credits'],
    ['next-cloud-ocs', { domain: 'cloud.example.com' }, '/cloud/users', 'https://cloud.example.com/ocs/v1.php/cloud/users'],
    ['okta-preview', { subdomain: 'acme' }, '/api/v1/users', 'https://acme.oktapreview.com/api/v1/users'],
    ['ring-central', {}, '/restapi/v1.0/account/~', 'https://platform.ringcentral.com/restapi/v1.0/account/~'],
    ['ring-central-sandbox', {}, '/scim/v2/Users', 'https://platform.devtest.ringcentral.com/scim/v2/Users'],
    [
      'salesforce-sandbox',
      { instance_url: 'https://acme--dev.sandbox.my.salesforce.com' },
      '/services/data/v60.0/sobjects',
      'https://acme--dev.sandbox.my.salesforce.com/services/data/v60.0/sobjects',
    ],
    ['strava-web', {}, '/api/v3/athlete/activities', 'https://www.strava.com/api/v3/athlete/activities'],
    ['supabase', { projectUrl: 'abcdefgh.supabase.co' }, '/rest/v1/todos', 'https://abcdefgh.supabase.co/rest/v1/todos'],
    ['webex', {}, '/v1/rooms', 'https://webexapis.com/v1/rooms'],
    ['wildix-pbx', { subdomain: 'acme' }, '/api/v1/Colleagues/', 'https://acme.wildixin.com/api/v1/Colleagues/'],
    ['zoho-mail', { extension: 'eu' }, '/api/accounts', 'https://mail.zoho.eu/api/accounts'],
    ['zoom-cc', { accountId: 'abc' }, '/v2/users', 'https://api.zoom.us/v2/users'],
  ],
};

for (const [family, rows] of Object.entries(families)) {
  test(`${family}: a function's endpoint on the catalogue base URL is the URL the provider documents`, () => {
    for (const [name, connectionConfig, endpoint, url] of rows) {
      const provider = getCatalogProvider(name);
      assert.ok(provider, `${name} is in the catalogue`);
      assert.equal(buildUrl(resolveBaseUrl(provider, {}, connectionConfig), endpoint).toString(), url, name);
    }
  });
}
