import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildUrl } from '../../lib/http/provider-client.js';
import { CATALOG_DIR, catalog, readCatalogEntry } from './catalog.js';
import { ALTERNATIVES, BASE64, NOW, definitionWarnings, providerDefinitionSchema, tokenUrlOf, type ProviderDefinition } from './definition.js';
import { catalogEndpoints } from './catalog-paths-check.js';
import { getCatalogProvider, type Provider } from './providers.js';

test('every catalogue file is a valid definition named as its file', () => {
  const files = readdirSync(CATALOG_DIR).filter((f) => f.endsWith('.yaml'));
  const failures: string[] = [];
  for (const f of files) {
    try {
      readCatalogEntry(path.join(CATALOG_DIR, f));
    } catch (err) {
      failures.push((err as Error).message);
    }
  }
  assert.deepEqual(failures, []);
  assert.equal(catalog().size, files.length);
});

test('every catalogue entry cites a documentation page of its own (https) and has a display name', () => {
  const missing = [...catalog().values()].filter((d) => !d.docs?.startsWith('https://') || !d.display_name).map((d) => d.name);
  assert.deepEqual(missing, []);
});

/** Every URL template of an entry, each ` || ` alternative on its own, with where it stands. */
function urlsOf(d: ProviderDefinition): [string, string][] {
  const out: [string, string][] = [];
  const add = (where: string, t: string | undefined) => {
    for (const alt of t?.split(ALTERNATIVES) ?? []) out.push([where, alt]);
  };
  add('authorization_url', d.authorization_url);
  if (typeof d.token_url === 'object') for (const [mode, t] of Object.entries(d.token_url)) add(`token_url.${mode}`, t);
  else add('token_url', d.token_url);
  add('refresh_url', d.refresh_url);
  add('proxy.base_url', d.proxy?.base_url);
  add('proxy.verification.base_url_override', d.proxy?.verification?.base_url_override);
  add('docs', d.docs);
  add('docs_connect', d.docs_connect);
  return out;
}

test('every URL of every catalogue entry is https (or starts with a placeholder, whose value the runtime holds to https)', () => {
  const plain = [...catalog().values()].flatMap((d) =>
    urlsOf(d)
      .filter(([, url]) => !url.startsWith('https://') && !url.startsWith('${'))
      .map(([where, url]) => `${d.name} ${where}: ${url}`),
  );
  assert.deepEqual(plain, []);
});

/** The credentials placeholders each auth mode fills. */
const CREDENTIAL_PLACEHOLDERS: Record<string, string[]> = {
  API_KEY: ['apiKey', 'credentials.apiKey'],
  BASIC: ['username', 'password', 'credentials.username', 'credentials.password'],
  OAUTH2: ['accessToken', 'clientId'],
  OAUTH2_CC: ['accessToken', 'clientId'],
  JWT: ['accessToken'],
  // And `${credentials.x}` of the entry's own fields (below).
  TWO_STEP: ['accessToken'],
  APP: ['accessToken'],
  // The installation token.
  CUSTOM: ['accessToken'],
  // Bill's login fields and the session it answered (features/connections/bill.ts).
  BILL: ['username', 'password', 'organization_id', 'dev_key', 'session_id', 'user_id'].map((k) => `credentials.${k}`),
  AWS_SIGV4: [],
  // The X-WSSE value made for each request.
  SIGNATURE: ['accessToken', 'username', 'password', 'credentials.username', 'credentials.password'],
  // Signed, never templated.
  OAUTH1: [],
  TBA: [],
  NONE: [],
};

test("every placeholder of every catalogue entry is declared: a connection-config field (or a value filled after authorization), or a credential of the entry's own auth mode", () => {
  const undeclared: string[] = [];
  for (const d of catalog().values()) {
    const filled = new Set(d.token_response_metadata ?? []);
    const texts = [
      ...Object.entries({ ...d.proxy?.headers, ...d.proxy?.query, ...d.token_headers }),
      ...(['authorization_params', 'token_params', 'refresh_params'] as const).flatMap((k) =>
        Object.entries(d[k] ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
      ),
    ];
    const { type: _type, lifetimeInSeconds: _lifetime, audiences, attributes, ...assertion } = d.assertion ?? { audiences: [], attributes: {} };
    texts.push(
      ...Object.entries({ ...assertion, ...attributes }).filter((e): e is [string, string] => typeof e[1] === 'string'),
      ...[audiences].flat().map((a): [string, string] => ['assertion.audiences', a]),
    );
    // A declared assertion is signed for each token request and stands in as `${credentials.assertion}`.
    const entered =
      d.auth_mode === 'TWO_STEP' ? [...Object.keys(d.credentials ?? {}), ...(d.assertion ? ['assertion'] : [])].map((k) => `credentials.${k}`) : [];
    // `${base64(...)}` is read without its wrapper, and `${now...}` in a text is filled there, as the definition's own check reads them.
    const templates = [...urlsOf(d), ...texts.map(([where, t]): [string, string] => [where, t.replace(NOW, '')])];
    for (const [where, t] of templates) {
      for (const [, ref] of t.replace(BASE64, '$1').matchAll(/\$\{([^}]*)\}/g)) {
        const key = /^connectionConfig\.(.+)$/.exec(ref!)?.[1];
        const ok =
          key !== undefined ? Boolean(d.connection_config?.[key]) || filled.has(key) : [...CREDENTIAL_PLACEHOLDERS[d.auth_mode]!, ...entered].includes(ref!);
        if (!ok) undeclared.push(`${d.name} ${where}: \${${ref}}`);
      }
    }
  }
  assert.deepEqual(undeclared, []);
});

/**
 * One API and one credential type: the same auth mode, URLs, default scopes, verification request
 * and credential fields. Two names for it are allowed only when one is an `alias` of the other (or
 * both of a third), as Nango's names for Square and SurveyMonkey are of ours.
 */
test('no two catalogue names for one API and one credential type, unless one is an alias', () => {
  const byApi = new Map<string, string[]>();
  for (const d of catalog().values()) {
    if (d.alias) continue;
    const key = JSON.stringify([
      d.auth_mode,
      d.proxy?.base_url,
      d.authorization_url,
      tokenUrlOf(d),
      [...(d.default_scopes ?? [])].sort(),
      d.proxy?.verification?.endpoints ?? [],
      d.proxy?.verification?.base_url_override,
      Object.keys(d.credentials ?? {}).sort(),
      Object.keys(d.connection_config ?? {}).sort(),
    ]);
    byApi.set(key, [...(byApi.get(key) ?? []), d.name]);
  }
  assert.deepEqual(
    [...byApi.values()].filter((names) => names.length > 1),
    [],
  );
  for (const d of catalog().values())
    if (d.alias) assert.ok(catalog().has(d.alias) && !catalog().get(d.alias)!.alias, `${d.name}: alias of a catalogue entry that is not itself an alias`);
});

/**
 * Names that meant another API or credential type than Nango's (issue 30): each means what Nango's
 * does (its auth mode and connection-config keys), or is left out until it can (an auth mode or a
 * flow Switchyard lacks); what it meant before has a name of its own (migration 025 moves stored
 * integrations there).
 */
test("names Nango gives these APIs mean what Nango's mean; what they meant before has its own name", () => {
  const meaning = (name: string) => {
    const d = catalog().get(name);
    return (
      d && [
        d.auth_mode,
        Object.keys(d.connection_config ?? {})
          .sort()
          .join(','),
      ]
    );
  };
  assert.deepEqual(
    Object.fromEntries(
      ['auth0', 'copper', 'datadog', 'klaviyo', 'sentry', 'bigcommerce', 'contentful', 'personio', 'segment', 'trello'].map((n) => [n, meaning(n)]),
    ),
    {
      auth0: ['OAUTH2', 'subdomain'],
      copper: ['OAUTH2', ''],
      datadog: ['API_KEY', 'applicationKey,siteParameter'],
      klaviyo: ['API_KEY', ''],
      sentry: ['API_KEY', 'hostname'],
      bigcommerce: ['OAUTH2', 'accountUuid,storeHash'],
      // Left out: Contentful documents only the implicit grant, Personio v1 answers its token in
      // data.token, Segment's OAuth is a partner flow.
      contentful: undefined,
      personio: undefined,
      segment: undefined,
      trello: ['OAUTH1', ''],
    },
  );
  assert.deepEqual(
    Object.fromEntries(
      [
        'auth0-cc',
        'bigcommerce-api-key',
        'contentful-pat',
        'copper-api-key',
        'datadog-basic',
        'klaviyo-oauth',
        'personio-v2',
        'segment-api-key',
        'sentry-oauth-app',
        'trello-api-key',
      ].map((n) => [n, catalog().get(n)?.auth_mode]),
    ),
    {
      'auth0-cc': 'OAUTH2_CC',
      'bigcommerce-api-key': 'API_KEY',
      'contentful-pat': 'API_KEY',
      'copper-api-key': 'API_KEY',
      'datadog-basic': 'BASIC',
      'klaviyo-oauth': 'OAUTH2',
      'personio-v2': 'OAUTH2_CC',
      'segment-api-key': 'API_KEY',
      'sentry-oauth-app': 'OAUTH2',
      'trello-api-key': 'API_KEY',
    },
  );
});

test("Nango's names for Square and SurveyMonkey exist and mean what ours mean", () => {
  for (const [nango, ours] of [
    ['squareup', 'square'],
    ['survey-monkey', 'surveymonkey'],
  ] as const) {
    const theirs = catalog().get(nango);
    assert.ok(theirs, `${nango} is in the catalogue`);
    assert.equal(theirs.alias, ours, `${nango} is an alias of ${ours}`);
    assert.equal(getCatalogProvider(nango)!.baseUrl, getCatalogProvider(ours)!.baseUrl);
    assert.equal(getCatalogProvider(nango)!.tokenUrl, getCatalogProvider(ours)!.tokenUrl);
  }
});

const apiKeyProvider = {
  name: 'acme',
  display_name: 'Acme',
  auth_mode: 'API_KEY',
  proxy: { base_url: 'https://${connectionConfig.subdomain}.acme.test/api', headers: { authorization: 'Bearer ${apiKey}' } },
  connection_config: { subdomain: { title: 'Subdomain' } },
  credentials: { apiKey: { title: 'API key', secret: true } },
  docs: 'https://acme.test/docs/auth',
};

test('a definition with placeholders, fields and a key it does not use parses; the key is reported', () => {
  const input = { ...apiKeyProvider, post_connection_script: 'x' };
  assert.deepEqual(definitionWarnings(providerDefinitionSchema.parse(input)), [`Nango's key "post_connection_script" kept but not used`]);
});

test('bad definitions are refused naming the field', () => {
  const problems = (input: unknown) => {
    const r = providerDefinitionSchema.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  assert.match(problems({ ...apiKeyProvider, auth_mode: 'MAGIC' }).join('\n'), /^auth_mode: /m);
  assert.match(problems({ ...apiKeyProvider, auth_mode: 'OAUTH2' }).join('\n'), /^authorization_url: is required/m);
  assert.match(problems({ ...apiKeyProvider, connection_config: {} }).join('\n'), /^proxy\.base_url: uses \$\{connectionConfig\.subdomain\}/m);
  assert.match(
    problems({ ...apiKeyProvider, proxy: { base_url: 'https://x.test', query: { k: '${secret}' } } }).join('\n'),
    /^proxy\.query\.k: unknown placeholder/m,
  );
  assert.match(problems({ ...apiKeyProvider, docs: 'not a url' }).join('\n'), /^docs: /m);
});

test('the catalogue README lists every entry as the YAML files say', async () => {
  const { readFileSync } = await import('node:fs');
  const { readmeWithTable } = await import('../../scripts/catalog-table.js');
  const readme = readFileSync(path.join(CATALOG_DIR, 'README.md'), 'utf8');
  assert.equal(readme, readmeWithTable(readme), 'run: node --import tsx scripts/catalog-table.ts --write');
});

/*
 * Base paths as Nango's (issue 30 item 3, issue 29 item 5). A Nango function calls
 * `nango.get({ endpoint })` with the API's version or prefix in the endpoint (Notion's `/v1/pages`,
 * Freshdesk's `/api/v2/contacts`), and the proxy appends it to `proxy.base_url`; so a base URL must
 * stop where those endpoints begin. Each row: a provider, the connection config it needs, an
 * endpoint as the provider's API reference writes its path, and the full URL that reference gives;
 * for an entry whose verification endpoints had to change with its base URL, the URL its verification
 * request reaches (the provider's documented "who am I" call), unchanged by the move.
 * The rows were written from each provider's documentation, one family at a time.
 */
type BasePathRow = [provider: string, connectionConfig: Record<string, string>, endpoint: string, url: string, verificationUrl?: string];
const CLOUD_ID = '1324a887-45db-1bf4-1e99-ef0ff456d421';
const basePaths: Record<string, BasePathRow[]> = {
  atlassian: [
    [
      'jira',
      { cloudId: CLOUD_ID },
      `/ex/jira/${CLOUD_ID}/rest/api/3/myself`,
      `https://api.atlassian.com/ex/jira/${CLOUD_ID}/rest/api/3/myself`,
      `https://api.atlassian.com/ex/jira/${CLOUD_ID}/rest/api/3/myself`,
    ],
    [
      'confluence',
      { cloudId: CLOUD_ID },
      `/ex/confluence/${CLOUD_ID}/wiki/api/v2/pages`,
      `https://api.atlassian.com/ex/confluence/${CLOUD_ID}/wiki/api/v2/pages`,
      `https://api.atlassian.com/ex/confluence/${CLOUD_ID}/wiki/rest/api/user/current`,
    ],
    ['bitbucket', {}, '/2.0/repositories/acme', 'https://api.bitbucket.org/2.0/repositories/acme', 'https://api.bitbucket.org/2.0/user'],
    ['trello-api-key', { appKey: '0'.repeat(32) }, '/1/members/me/boards', 'https://api.trello.com/1/members/me/boards', 'https://api.trello.com/1/members/me'],
    ['trello', {}, '/1/members/me/boards', 'https://api.trello.com/1/members/me/boards', 'https://api.trello.com/1/members/me'],
  ],
  'signed (OAuth 1.0a, TBA)': [
    [
      'twitter',
      {},
      '/1.1/statuses/user_timeline.json',
      'https://api.x.com/1.1/statuses/user_timeline.json',
      'https://api.x.com/1.1/account/verify_credentials.json',
    ],
    ['emarsys', {}, '/api/v2/contact/getdata', 'https://api.emarsys.net/api/v2/contact/getdata', 'https://api.emarsys.net/api/v2/settings'],
    ['smugmug', {}, '/api/v2/user/cmac', 'https://api.smugmug.com/api/v2/user/cmac', 'https://api.smugmug.com/api/v2!authuser'],
    ['netsuite-tba', { accountId: '1234567-sb1' }, '/customer/42', 'https://1234567-sb1.suitetalk.api.netsuite.com/services/rest/record/v1/customer/42'],
  ],
  freshworks: [
    ['freshdesk', { subdomain: 'acme' }, '/api/v2/tickets', 'https://acme.freshdesk.com/api/v2/tickets', 'https://acme.freshdesk.com/api/v2/agents/me'],
    [
      'freshsales',
      { bundleAlias: 'acme.myfreshworks.com/crm/sales' },
      '/api/contacts/144',
      'https://acme.myfreshworks.com/crm/sales/api/contacts/144',
      'https://acme.myfreshworks.com/crm/sales/api/selector/owners',
    ],
  ],
  accounting: [
    [
      'quickbooks',
      { realmId: '9130348651234567' },
      '/v3/company/9130348651234567/query?query=select',
      'https://quickbooks.api.intuit.com/v3/company/9130348651234567/query?query=select',
      'https://quickbooks.api.intuit.com/v3/company/9130348651234567/query?query=select%20*%20from%20CompanyInfo',
    ],
    ['xero', {}, '/api.xro/2.0/Invoices', 'https://api.xero.com/api.xro/2.0/Invoices'],
    ['ramp', {}, '/developer/v1/transactions', 'https://api.ramp.com/developer/v1/transactions', 'https://api.ramp.com/developer/v1/business'],
    [
      'chargebee',
      { subdomain: 'acme' },
      '/api/v2/customers',
      'https://acme.chargebee.com/api/v2/customers',
      'https://acme.chargebee.com/api/v2/customers?limit=1',
    ],
  ],
  'knowledge and productivity': [
    ['notion', {}, '/v1/pages', 'https://api.notion.com/v1/pages', 'https://api.notion.com/v1/users/me'],
    ['airtable', {}, '/v0/meta/bases', 'https://api.airtable.com/v0/meta/bases', 'https://api.airtable.com/v0/meta/whoami'],
    ['asana', {}, '/api/1.0/users/me', 'https://app.asana.com/api/1.0/users/me', 'https://app.asana.com/api/1.0/users/me'],
    ['clickup', {}, '/api/v2/team', 'https://api.clickup.com/api/v2/team', 'https://api.clickup.com/api/v2/user'],
    ['smartsheet', {}, '/2.0/sheets', 'https://api.smartsheet.com/2.0/sheets', 'https://api.smartsheet.com/2.0/users/me'],
    ['toggl', {}, '/api/v9/me', 'https://api.track.toggl.com/api/v9/me', 'https://api.track.toggl.com/api/v9/me'],
    ['harvest', { accountId: '123456' }, '/v2/users/me', 'https://api.harvestapp.com/v2/users/me', 'https://api.harvestapp.com/v2/users/me'],
    ['wordpress', {}, '/me', 'https://public-api.wordpress.com/rest/v1/me', 'https://public-api.wordpress.com/rest/v1.1/me'],
    ['webflow', {}, '/v2/sites', 'https://api.webflow.com/v2/sites', 'https://api.webflow.com/v2/token/introspect'],
  ],
  crm: [
    ['attio', {}, '/v2/objects', 'https://api.attio.com/v2/objects', 'https://api.attio.com/v2/self'],
    ['close', {}, '/v1/lead/', 'https://api.close.com/api/v1/lead/', 'https://api.close.com/api/v1/me/'],
    [
      'copper-api-key',
      { userEmail: 'owner@example.com' },
      '/v1/people/search',
      'https://api.copper.com/developer_api/v1/people/search',
      'https://api.copper.com/developer_api/v1/account',
    ],
    ['active-campaign', { hostname: 'acme.api-us1.com' }, '/3/contacts', 'https://acme.api-us1.com/api/3/contacts', 'https://acme.api-us1.com/api/3/users/me'],
    ['outreach', {}, '/api/v2/prospects', 'https://api.outreach.io/api/v2/prospects', 'https://api.outreach.io/api/v2/users?page[size]=1'],
    ['zoho-crm', { extension: 'eu' }, '/crm/v2/Leads', 'https://www.zohoapis.eu/crm/v2/Leads', 'https://www.zohoapis.eu/crm/v8/users?type=CurrentUser'],
    ['hubspot', {}, '/crm/v3/objects/contacts', 'https://api.hubapi.com/crm/v3/objects/contacts'],
    ['pipedrive', { api_domain: 'https://acme.pipedrive.com' }, '/v1/deals', 'https://acme.pipedrive.com/api/v1/deals'],
    [
      'salesforce',
      { instance_url: 'https://acme.my.salesforce.com' },
      '/services/data/v60.0/sobjects',
      'https://acme.my.salesforce.com/services/data/v60.0/sobjects',
    ],
  ],
  'hr and recruiting': [
    ['netsuite', { accountId: '1234567-sb1' }, '/customer', 'https://1234567-sb1.suitetalk.api.netsuite.com/services/rest/record/v1/customer'],
    ['gem', {}, '/v0/candidates', 'https://api.gem.com/v0/candidates', 'https://api.gem.com/v0/users'],
    ['hubstaff', {}, '/v2/organizations', 'https://api.hubstaff.com/v2/organizations', 'https://api.hubstaff.com/v2/users/me'],
    ['paycom', {}, '/api/v1/employeedirectory', 'https://api.paycomonline.net/api/v1/employeedirectory'],
    ['unanet', { firmId: '9999', apiKey: 'k' }, '/api/contacts', 'https://compass.cosential.com/api/contacts', 'https://compass.cosential.com/api/user'],
    [
      'bamboohr',
      { subdomain: 'acme' },
      '/v1/employees/directory',
      'https://api.bamboohr.com/api/gateway.php/acme/v1/employees/directory',
      'https://api.bamboohr.com/api/gateway.php/acme/v1/employees/0',
    ],
    ['hibob-service-user', {}, '/v1/people/search', 'https://api.hibob.com/v1/people/search'],
    ['deel', {}, '/rest/v2/contracts', 'https://api.letsdeel.com/rest/v2/contracts', 'https://api.letsdeel.com/rest/v2/organizations'],
    ['lever', {}, '/v1/opportunities', 'https://api.lever.co/v1/opportunities', 'https://api.lever.co/v1/users?limit=1'],
    ['greenhouse-harvest', {}, '/v1/candidates', 'https://harvest.greenhouse.io/v1/candidates', 'https://harvest.greenhouse.io/v1/users?per_page=1'],
    ['workable', { subdomain: 'acme' }, '/spi/v3/jobs', 'https://acme.workable.com/spi/v3/jobs', 'https://acme.workable.com/spi/v3/accounts'],
  ],
  'support and communication': [
    ['gorgias', { subdomain: 'acme' }, '/api/tickets', 'https://acme.gorgias.com/api/tickets', 'https://acme.gorgias.com/api/account'],
    ['helpscout-mailbox', {}, '/v2/conversations', 'https://api.helpscout.net/v2/conversations', 'https://api.helpscout.net/v2/users/me'],
    ['zendesk', { subdomain: 'acme' }, '/api/v2/tickets', 'https://acme.zendesk.com/api/v2/tickets'],
    ['discord', {}, '/api/v10/users/@me', 'https://discord.com/api/v10/users/@me', 'https://discord.com/api/v10/users/@me'],
    ['twilio', {}, '/2010-04-01/Accounts.json', 'https://api.twilio.com/2010-04-01/Accounts.json', 'https://api.twilio.com/2010-04-01/Accounts.json'],
    ['mailchimp', { dc: 'us6' }, '/3.0/lists', 'https://us6.api.mailchimp.com/3.0/lists', 'https://us6.api.mailchimp.com/3.0/ping'],
    ['slack', {}, '/chat.postMessage', 'https://slack.com/api/chat.postMessage'],
    ['zoom', {}, '/users/me', 'https://api.zoom.us/v2/users/me'],
  ],
  'storage and documents': [
    ['box', {}, '/2.0/folders/0', 'https://api.box.com/2.0/folders/0', 'https://api.box.com/2.0/users/me'],
    ['dropbox', {}, '/2/files/list_folder', 'https://api.dropboxapi.com/2/files/list_folder', 'https://api.dropboxapi.com/2/users/get_current_account'],
    [
      'docusign',
      { baseUri: 'https://na3.docusign.net' },
      '/restapi/v2.1/accounts/a1/envelopes',
      'https://na3.docusign.net/restapi/v2.1/accounts/a1/envelopes',
      'https://account.docusign.com/oauth/userinfo',
    ],
    ['google-drive', {}, '/drive/v3/files', 'https://www.googleapis.com/drive/v3/files'],
    ['one-drive', { tenant: 'common' }, '/v1.0/me/drive', 'https://graph.microsoft.com/v1.0/me/drive'],
  ],
  'developer tools': [
    ['aws-iam', {}, '/?Action=ListUsers&Version=2010-05-08', 'https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08'],
    [
      'connectsecure',
      { base_url: 'pod123.myconnectsecure.com', tenant: 'acme' },
      '/r/company/companies',
      'https://pod123.myconnectsecure.com/r/company/companies',
      'https://pod123.myconnectsecure.com/w/authorize',
    ],
    ['gitlab', {}, '/api/v4/projects', 'https://gitlab.com/api/v4/projects', 'https://gitlab.com/api/v4/user'],
    ['digitalocean', {}, '/v2/droplets', 'https://api.digitalocean.com/v2/droplets', 'https://api.digitalocean.com/v2/account'],
    ['netlify', {}, '/api/v1/sites', 'https://api.netlify.com/api/v1/sites', 'https://api.netlify.com/api/v1/user'],
    ['sentry', { hostname: 'de.sentry.io' }, '/0/organizations/', 'https://de.sentry.io/api/0/organizations/', 'https://de.sentry.io/api/0/organizations/'],
    ['sentry-oauth-app', {}, '/0/organizations/', 'https://sentry.io/api/0/organizations/', 'https://sentry.io/api/0/organizations/'],
    ['auth0', { subdomain: 'acme.us' }, '/api/v2/users', 'https://acme.us.auth0.com/api/v2/users'],
    ['auth0-cc', { hostname: 'acme.us.auth0.com' }, '/api/v2/users', 'https://acme.us.auth0.com/api/v2/users'],
    ['github', {}, '/user/repos', 'https://api.github.com/user/repos'],
    [
      'bitdefender',
      { ACCESS_URL: 'https://cloud.gravityzone.bitdefender.com/api' },
      '/v1.0/jsonrpc/network',
      'https://cloud.gravityzone.bitdefender.com/api/v1.0/jsonrpc/network',
    ],
    ['dope-security', {}, '/v1/endpoints', 'https://api.flightdeck.dope.security/v1/endpoints'],
    ['ingenious-build', { subdomain: 'acme' }, '/api/v2/pub/projects', 'https://acme.ingenious.build/api/v2/pub/projects'],
    [
      'microsoft-dynamics-365-finance-and-operations-cc',
      { tenantId: '00000000-0000-0000-0000-000000000000', environmentUrl: 'acme.operations.dynamics.com' },
      '/data/Customers',
      'https://acme.operations.dynamics.com/data/Customers',
    ],
  ],
  analytics: [
    [
      'evaluagent',
      { region: 'api.us-east' },
      '/v1/quality/evaluations',
      'https://api.us-east.evaluagent.com/v1/quality/evaluations',
      'https://api.us-east.evaluagent.com/v1/ping',
    ],
    ['clari-copilot', {}, '/calls', 'https://rest-api.copilot.clari.com/calls', 'https://rest-api.copilot.clari.com/users'],
    ['datadog', { siteParameter: 'datadoghq.eu' }, '/v2/users', 'https://api.datadoghq.eu/api/v2/users', 'https://api.datadoghq.eu/api/v1/validate'],
    [
      'datadog-basic',
      { siteParameter: 'datadoghq.eu' },
      '/v1/validate',
      'https://api.datadoghq.eu/api/v1/validate',
      'https://api.datadoghq.eu/api/v2/validate_keys',
    ],
    ['amplitude', {}, '/api/2/events/list', 'https://amplitude.com/api/2/events/list'],
    ['mixpanel', {}, '/api/app/me', 'https://mixpanel.com/api/app/me', 'https://mixpanel.com/api/app/me'],
    [
      'metabase',
      { hostname: 'acme.metabaseapp.com' },
      '/api/user/current',
      'https://acme.metabaseapp.com/api/user/current',
      'https://acme.metabaseapp.com/api/user/current',
    ],
    ['posthog', { domain: 'us.posthog.com' }, '/api/projects/', 'https://us.posthog.com/api/projects/'],
  ],
  'commerce and surveys': [
    [
      'woocommerce',
      { storeURL: 'shop.example.com' },
      '/wp-json/wc/v3/orders',
      'https://shop.example.com/wp-json/wc/v3/orders',
      'https://shop.example.com/wp-json/wc/v3/products?per_page=1',
    ],
    ['shopify', { subdomain: 'acme' }, '/admin/api/2024-10/products.json', 'https://acme.myshopify.com/admin/api/2024-10/products.json'],
    ['square', {}, '/v2/customers', 'https://connect.squareup.com/v2/customers'],
    [
      'surveymonkey',
      { access_url: 'https://api.surveymonkey.com' },
      '/v3/surveys',
      'https://api.surveymonkey.com/v3/surveys',
      'https://api.surveymonkey.com/v3/users/me',
    ],
    ['pinterest', {}, '/v5/boards', 'https://api.pinterest.com/v5/boards', 'https://api.pinterest.com/v5/user_account'],
  ],
};

/** The URL the connection check's first request goes to, as features/connections/service.ts builds it. */
function verificationUrlOf(provider: Provider, connectionConfig: Record<string, string>): string | undefined {
  const v = provider.verification;
  if (!v) return undefined;
  return buildUrl(catalogEndpoints(provider, connectionConfig).verificationUrl(), v.paths[0]!).toString();
}

for (const [family, rows] of Object.entries(basePaths)) {
  test(`base paths as Nango's, ${family}: an endpoint with its API's prefix reaches the documented URL`, () => {
    const wrong: string[] = [];
    for (const [name, connectionConfig, endpoint, url, verificationUrl] of rows) {
      const provider = getCatalogProvider(name);
      if (!provider) {
        wrong.push(`${name}: not in the catalogue`);
        continue;
      }
      try {
        const got = buildUrl(catalogEndpoints(provider, connectionConfig).baseUrl(), endpoint).toString();
        if (got !== url) wrong.push(`${name}: ${endpoint} → ${got}, want ${url}`);
        const verifies = verificationUrlOf(provider, connectionConfig);
        if (verificationUrl !== undefined && verifies !== verificationUrl) wrong.push(`${name}: verification → ${verifies}, want ${verificationUrl}`);
      } catch (err) {
        wrong.push(`${name}: ${(err as Error).message}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
}
