/**
 * Base paths as Nango's (issue 30, item 3) for the breadth entries of pool D (provider names l–z that
 * no function in the public library calls yet): each row is an endpoint as the provider's docs write
 * it after the base Nango's users call relative to, and the URL the docs give for it.
 */
import { type PathRow, testPathFamilies } from './catalog-paths-check.js';

const tenant = 'a1b2c3d4-e5f6-47a8-9b0c-d1234567890f';

const families: Record<string, PathRow[]> = {
  'Microsoft and identity': [
    ['microsoft-oauth2-cc', { tenantId: tenant }, '/v1.0/users', 'https://graph.microsoft.com/v1.0/users'],
    ['microsoft-tenant-specific', { tenant: 'contoso.onmicrosoft.com' }, '/v1.0/me', 'https://graph.microsoft.com/v1.0/me'],
    ['sharepoint-online-oauth2-cc', { tenantId: tenant }, '/v1.0/sites/root', 'https://graph.microsoft.com/v1.0/sites/root'],
    ['okta-api-key', { hostname: 'acme.okta.com' }, '/api/v1/users', 'https://acme.okta.com/api/v1/users'],
    ['onelogin', { subdomain: 'acme' }, '/api/2/users', 'https://acme.onelogin.com/api/2/users'],
    ['pingone', { tld: 'eu', environmentId: tenant }, `/v1/environments/${tenant}/users`, `https://api.pingone.eu/v1/environments/${tenant}/users`],
    ['pingone-cc', { tld: 'com', environmentId: tenant }, `/v1/environments/${tenant}/users`, `https://api.pingone.com/v1/environments/${tenant}/users`],
    ['workos', {}, '/organizations', 'https://api.workos.com/organizations'],
    ['notion-scim', {}, '/v2/Users', 'https://api.notion.com/scim/v2/Users'],
    ['openai-admin', {}, '/v1/organization/users', 'https://api.openai.com/v1/organization/users'],
  ],
  'marketing and communication': [
    ['lemlist', {}, '/api/campaigns', 'https://api.lemlist.com/api/campaigns'],
    ['mailjet', {}, '/v3/REST/contact', 'https://api.mailjet.com/v3/REST/contact'],
    ['resend', {}, '/emails', 'https://api.resend.com/emails'],
    ['loops-so', {}, '/v1/contacts/create', 'https://app.loops.so/api/v1/contacts/create'],
    ['lob', {}, '/v1/postcards', 'https://api.lob.com/v1/postcards'],
    ['reply-io', {}, '/v1/people', 'https://api.reply.io/v1/people'],
    ['whatsapp-business', {}, '/v21.0/1234/messages', 'https://graph.facebook.com/v21.0/1234/messages'],
    ['mattermost', { hostname: 'chat.example.com' }, '/v4/posts', 'https://chat.example.com/api/v4/posts'],
    ['podium', {}, '/v4/locations', 'https://api.podium.com/v4/locations'],
    ['semrush', {}, '/management/v1/projects', 'https://api.semrush.com/management/v1/projects'],
  ],
  'payments and commerce': [
    ['mollie', {}, '/v2/payments', 'https://api.mollie.com/v2/payments'],
    ['paddle', { subdomain: 'sandbox-api' }, '/products', 'https://sandbox-api.paddle.com/products'],
    ['razorpay', {}, '/v1/payments', 'https://api.razorpay.com/v1/payments'],
    ['shippo', {}, '/shipments', 'https://api.goshippo.com/shipments'],
    ['shipstation', {}, '/orders', 'https://ssapi.shipstation.com/orders'],
    ['shipstation-v2', {}, '/v2/shipments', 'https://api.shipstation.com/v2/shipments'],
    ['shopify-api-key', { subdomain: 'acme' }, '/admin/api/2025-01/products.json', 'https://acme.myshopify.com/admin/api/2025-01/products.json'],
    ['shopify-cc', { subdomain: 'acme' }, '/admin/api/2025-01/graphql.json', 'https://acme.myshopify.com/admin/api/2025-01/graphql.json'],
    ['shopware', { shopwareUrl: 'shop.example.com' }, '/search/product', 'https://shop.example.com/api/search/product'],
    ['tremendous', {}, '/orders', 'https://api.tremendous.com/api/v2/orders'],
  ],
  'AI and developer tools': [
    ['replicate', {}, '/v1/predictions', 'https://api.replicate.com/v1/predictions'],
    ['perplexity', {}, '/chat/completions', 'https://api.perplexity.ai/chat/completions'],
    ['xai', {}, '/v1/chat/completions', 'https://api.x.ai/v1/chat/completions'],
    ['terraform', {}, '/api/v2/organizations', 'https://app.terraform.io/api/v2/organizations'],
    ['rootly', {}, '/v1/incidents', 'https://api.rootly.com/v1/incidents'],
    ['statsig', {}, '/console/v1/gates', 'https://statsigapi.net/console/v1/gates'],
    ['vanta', {}, '/v1/people', 'https://api.vanta.com/v1/people'],
    ['splunk', { hostname: 'acme.splunkcloud.com:8089' }, '/services/search/jobs', 'https://acme.splunkcloud.com:8089/services/search/jobs'],
    ['meilisearch', { instanceUrl: 'https://ms-1234.meilisearch.io' }, '/indexes/movies/search', 'https://ms-1234.meilisearch.io/indexes/movies/search'],
    ['n8n', { baseUrl: 'https://acme.app.n8n.cloud' }, '/v1/workflows', 'https://acme.app.n8n.cloud/api/v1/workflows'],
  ],
  'automation, localization and data': [
    ['zapier', {}, '/v2/zaps', 'https://api.zapier.com/v2/zaps'],
    ['pipedream', {}, '/v1/users/me', 'https://api.pipedream.com/v1/users/me'],
    ['snipe-it', { hostname: 'acme.snipe-it.io' }, '/v1/hardware', 'https://acme.snipe-it.io/api/v1/hardware'],
    ['tailscale-api-key', {}, '/v2/tailnet/-/devices', 'https://api.tailscale.com/api/v2/tailnet/-/devices'],
    ['phrase', { hostname: 'api.us.app.phrase.com' }, '/v2/projects', 'https://api.us.app.phrase.com/v2/projects'],
    ['lokalise', {}, '/projects', 'https://api.lokalise.com/api2/projects'],
    ['neon', {}, '/v2/projects', 'https://console.neon.tech/api/v2/projects'],
    [
      'snowflake',
      { snowflake_account_url: 'myorg-myaccount.snowflakecomputing.com' },
      '/api/v2/statements',
      'https://myorg-myaccount.snowflakecomputing.com/api/v2/statements',
    ],
    ['twenty-crm', {}, '/companies', 'https://api.twenty.com/rest/companies'],
    ['twenty-crm-self-hosted', { domain: 'crm.example.com' }, '/people', 'https://crm.example.com/rest/people'],
  ],
  'HR, recruiting and sales CRM': [
    ['personio-v2', {}, '/persons', 'https://api.personio.de/v2/persons'],
    ['payfit', {}, '/companies/c1/collaborators', 'https://partner-api.payfit.com/companies/c1/collaborators'],
    ['workable-oauth', { subdomain: 'acme' }, '/spi/v3/jobs', 'https://acme.workable.com/spi/v3/jobs'],
    ['smartrecruiters-api-key', {}, '/jobs', 'https://api.smartrecruiters.com/jobs'],
    ['recruitee', { companyId: '12345' }, '/candidates', 'https://api.recruitee.com/c/12345/candidates'],
    ['namely', { company: 'acme' }, '/v1/profiles', 'https://acme.namely.com/api/v1/profiles'],
    ['tsheetsteam', {}, '/timesheets', 'https://rest.tsheets.com/api/v1/timesheets'],
    ['sage-hr', { subdomain: 'acme' }, '/api/employees', 'https://acme.sage.hr/api/employees'],
    [
      'workday-oauth',
      { authorizationDomain: 'impl.workday.com', tokenDomain: 'wd2-impl-services1.workday.com', tenant: 'acme' },
      '/v1/acme/workers',
      'https://wd2-impl-services1.workday.com/ccx/api/v1/acme/workers',
    ],
    ['zendesk-sell', {}, '/v2/contacts', 'https://api.getbase.com/v2/contacts'],
  ],
  'video, social and wearables': [
    ['vimeo', {}, '/me/videos', 'https://api.vimeo.com/me/videos'],
    ['tumblr', {}, '/user/info', 'https://api.tumblr.com/v2/user/info'],
    ['threads', {}, '/v1.0/me/threads', 'https://graph.threads.net/v1.0/me/threads'],
    ['snapchat', {}, '/v1/me/organizations', 'https://adsapi.snapchat.com/v1/me/organizations'],
    ['strava', {}, '/api/v3/athlete/activities', 'https://www.strava.com/api/v3/athlete/activities'],
    ['stackexchange', {}, '/2.3/me', 'https://api.stackexchange.com/2.3/me'],
    ['oura', {}, '/v2/usercollection/daily_sleep', 'https://api.ouraring.com/v2/usercollection/daily_sleep'],
    ['whoop', {}, '/developer/v2/cycle', 'https://api.prod.whoop.com/developer/v2/cycle'],
    ['wakatime', {}, '/api/v1/users/current/summaries', 'https://wakatime.com/api/v1/users/current/summaries'],
    ['twitter-oauth2-cc', {}, '/2/tweets/search/recent', 'https://api.twitter.com/2/tweets/search/recent'],
  ],
  'product, construction, surveys, accounting and CRM': [
    ['productboard', {}, '/features', 'https://api.productboard.com/features'],
    ['procore', {}, '/rest/v1.0/companies', 'https://api.procore.com/rest/v1.0/companies'],
    ['qualtrics', { subdomain: 'iad1' }, '/API/v3/surveys', 'https://iad1.qualtrics.com/API/v3/surveys'],
    ['ticktick', {}, '/open/v1/project', 'https://api.ticktick.com/open/v1/project'],
    ['timely', {}, '/1.1/accounts', 'https://api.timelyapp.com/1.1/accounts'],
    ['teamleader', {}, '/contacts.list', 'https://api.focus.teamleader.eu/contacts.list'],
    ['sage', {}, '/v3.1/contacts', 'https://api.accounting.sage.com/v3.1/contacts'],
    ['xero-oauth2-cc', {}, '/api.xro/2.0/Invoices', 'https://api.xero.com/api.xro/2.0/Invoices'],
    ['zuora', { subdomain: 'rest.eu' }, '/v1/accounts', 'https://rest.eu.zuora.com/v1/accounts'],
    [
      'salesforce-cc',
      { hostname: 'acme.my.salesforce.com', instance_url: 'https://acme.my.salesforce.com' },
      '/services/data/v60.0/sobjects',
      'https://acme.my.salesforce.com/services/data/v60.0/sobjects',
    ],
  ],
};

testPathFamilies(families);
