/**
 * Base paths as Nango's (issue 30, item 3) for the breadth entries of pool C (provider names a–k that
 * no function in the public library calls yet): each row is an endpoint as the provider's docs write
 * it after the base Nango's users call relative to, and the URL the docs give for it.
 */
import { type PathRow, testPathFamilies } from './catalog-paths-check.js';

const families: Record<string, PathRow[]> = {
  Google: [
    ['google-bigquery', {}, '/bigquery/v2/projects', 'https://bigquery.googleapis.com/bigquery/v2/projects'],
    ['google-cloud-storage', {}, '/storage/v1/b/my-bucket/o', 'https://storage.googleapis.com/storage/v1/b/my-bucket/o'],
    ['google-contacts', {}, '/v1/people/me/connections', 'https://people.googleapis.com/v1/people/me/connections'],
    ['google-forms', {}, '/v1/forms/abc', 'https://forms.googleapis.com/v1/forms/abc'],
    ['google-maps', {}, '/maps/api/geocode/json', 'https://maps.googleapis.com/maps/api/geocode/json'],
    ['google-meet', {}, '/v2/conferenceRecords', 'https://meet.googleapis.com/v2/conferenceRecords'],
    ['google-search-console', {}, '/v3/sites', 'https://www.googleapis.com/webmasters/v3/sites'],
    ['google-slides', {}, '/v1/presentations/abc', 'https://slides.googleapis.com/v1/presentations/abc'],
    ['google-tasks', {}, '/tasks/v1/users/@me/lists', 'https://tasks.googleapis.com/tasks/v1/users/@me/lists'],
    ['google-workspace-admin', {}, '/admin/directory/v1/users', 'https://admin.googleapis.com/admin/directory/v1/users'],
  ],
  'Atlassian, GitHub and GitLab': [
    ['atlassian', {}, '/ex/jira/c1/rest/api/3/myself', 'https://api.atlassian.com/ex/jira/c1/rest/api/3/myself'],
    ['atlassian-admin', { organizationId: 'o1' }, '/admin/v1/orgs/o1/users', 'https://api.atlassian.com/admin/v1/orgs/o1/users'],
    [
      'atlassian-service-account-api-token',
      { cloudId: 'c1' },
      '/ex/confluence/c1/wiki/api/v2/pages',
      'https://api.atlassian.com/ex/confluence/c1/wiki/api/v2/pages',
    ],
    ['atlassian-service-account-oauth2', { subdomain: 'acme' }, '/ex/jira/c1/rest/api/3/search', 'https://api.atlassian.com/ex/jira/c1/rest/api/3/search'],
    ['confluence-basic', { subdomain: 'acme' }, '/wiki/api/v2/pages', 'https://acme.atlassian.net/wiki/api/v2/pages'],
    ['confluence-data-center', { endpointURL: 'confluence.example.com' }, '/rest/api/content', 'https://confluence.example.com/rest/api/content'],
    ['jira-data-center-api-key', { baseUrl: 'https://jira.example.com' }, '/rest/api/2/issue/PROJ-1', 'https://jira.example.com/rest/api/2/issue/PROJ-1'],
    ['jira-data-center-basic', { baseUrl: 'jira.example.com/jira' }, '/rest/api/2/search', 'https://jira.example.com/jira/rest/api/2/search'],
    ['github-pat', {}, '/repos/o/r/issues', 'https://api.github.com/repos/o/r/issues'],
    ['gitlab-pat', { hostname: 'gitlab.com' }, '/api/v4/projects', 'https://gitlab.com/api/v4/projects'],
  ],
  'commerce, payments and accounting': [
    ['adobe-commerce', { storeDomain: 'shop.example.com', storeCode: 'default' }, '/V1/products', 'https://shop.example.com/rest/default/V1/products'],
    ['amazon', { extension: 'co.uk' }, '/user/profile', 'https://api.amazon.com/user/profile'],
    ['brex', {}, '/v2/users/me', 'https://platform.brexapis.com/v2/users/me'],
    [
      'commercetools',
      { region: 'europe-west1', cloudProvider: 'gcp', projectKey: 'shop' },
      '/products',
      'https://api.europe-west1.gcp.commercetools.com/shop/products',
    ],
    ['e-conomic', {}, '/customers', 'https://restapi.e-conomic.com/customers'],
    ['easypost', {}, '/v2/shipments', 'https://api.easypost.com/v2/shipments'],
    ['fortnox', {}, '/invoices', 'https://api.fortnox.se/3/invoices'],
    ['freeagent', {}, '/v2/invoices', 'https://api.freeagent.com/v2/invoices'],
    ['gumroad', {}, '/v2/products', 'https://api.gumroad.com/v2/products'],
    ['intuit', {}, '/v3/company/9130348651234567/query', 'https://quickbooks.api.intuit.com/v3/company/9130348651234567/query'],
  ],
  'marketing and CRM': [
    ['affinity', {}, '/persons', 'https://api.affinity.co/persons'],
    ['affinity-v2', {}, '/v2/companies', 'https://api.affinity.co/v2/companies'],
    ['bitly', {}, '/v4/bitlinks/bit.ly/abc', 'https://api-ssl.bitly.com/v4/bitlinks/bit.ly/abc'],
    ['braze', { instanceUrl: 'iad-02.braze.com' }, '/users/track', 'https://rest.iad-02.braze.com/users/track'],
    ['constant-contact', {}, '/v3/contacts', 'https://api.cc.email/v3/contacts'],
    ['copper-api-key', { userEmail: 'owner@example.com' }, '/v1/people/search', 'https://api.copper.com/developer_api/v1/people/search'],
    ['customer-io', { subdomain: 'track-eu' }, '/api/v1/customers/42', 'https://track-eu.customer.io/api/v1/customers/42'],
    ['eventbrite', {}, '/v3/users/me/', 'https://www.eventbriteapi.com/v3/users/me/'],
    ['keap', {}, '/crm/rest/v1/contacts', 'https://api.infusionsoft.com/crm/rest/v1/contacts'],
    ['klaviyo-oauth', {}, '/api/profiles', 'https://a.klaviyo.com/api/profiles'],
  ],
  'developer tools and data': [
    ['anthropic-admin', {}, '/v1/organizations/users', 'https://api.anthropic.com/v1/organizations/users'],
    ['apify', {}, '/v2/acts', 'https://api.apify.com/v2/acts'],
    ['axiom', { subdomain: 'api' }, '/v1/datasets', 'https://api.axiom.co/v1/datasets'],
    ['clerk', {}, '/v1/users', 'https://api.clerk.com/v1/users'],
    ['clickhouse', {}, '/v1/organizations', 'https://api.clickhouse.cloud/v1/organizations'],
    ['cloudflare', {}, '/v4/zones', 'https://api.cloudflare.com/client/v4/zones'],
    ['cursor-admin', {}, '/teams/members', 'https://api.cursor.com/teams/members'],
    ['databricks-account', { accountId: 'a1' }, '/workspaces', 'https://accounts.cloud.databricks.com/api/2.0/accounts/a1/workspaces'],
    ['grafana', { domain: 'acme.grafana.net' }, '/api/search', 'https://acme.grafana.net/api/search'],
    ['incident-io', {}, '/v2/incidents', 'https://api.incident.io/v2/incidents'],
  ],
  'HR, recruiting and CRM': [
    ['employment-hero', {}, '/v1/organisations', 'https://api.employmenthero.com/api/v1/organisations'],
    ['factorial', {}, '/2025-10-01/resources/employees/employees', 'https://api.factorialhr.com/api/2025-10-01/resources/employees/employees'],
    ['factorial-api-key', {}, '/2025-10-01/resources/employees/employees', 'https://api.factorialhr.com/api/2025-10-01/resources/employees/employees'],
    ['folk', {}, '/v1/people', 'https://api.folk.app/v1/people'],
    ['freshteam', { accountName: 'acme' }, '/api/employees', 'https://acme.freshteam.com/api/employees'],
    ['greenhouse-job-board', { boardToken: 'acme' }, '/v1/boards/acme/jobs', 'https://boards-api.greenhouse.io/v1/boards/acme/jobs'],
    ['humaans-io', {}, '/people', 'https://app.humaans.io/api/people'],
    ['insightly', { pod: 'na1' }, '/v3.1/Contacts', 'https://api.na1.insightly.com/v3.1/Contacts'],
    ['jazzhr', {}, '/v1/applicants', 'https://api.resumatorapi.com/v1/applicants'],
    ['jobadder', {}, '/v2/candidates', 'https://api.jobadder.com/v2/candidates'],
  ],
  'productivity, support and identity': [
    ['asana-scim', {}, '/1.0/scim/Users', 'https://app.asana.com/api/1.0/scim/Users'],
    ['autodesk', {}, '/project/v1/hubs', 'https://developer.api.autodesk.com/project/v1/hubs'],
    ['cal-com-v1', {}, '/bookings', 'https://api.cal.com/v1/bookings'],
    ['dropbox-sign', {}, '/v3/signature_request/list', 'https://api.hellosign.com/v3/signature_request/list'],
    ['fitbit', {}, '/1/user/-/profile.json', 'https://api.fitbit.com/1/user/-/profile.json'],
    ['front-api-key', {}, '/conversations', 'https://api2.frontapp.com/conversations'],
    ['guru', {}, '/search/query', 'https://api.getguru.com/api/v1/search/query'],
    ['helpscout-docs', {}, '/v1/sites', 'https://docsapi.helpscout.net/v1/sites'],
    ['jumpcloud', {}, '/v2/usergroups', 'https://console.jumpcloud.com/api/v2/usergroups'],
  ],
};

testPathFamilies(families);
