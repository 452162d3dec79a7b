/**
 * Definitions in Nango's format (issue 30, items 1 and 2): every key and value shape of Nango's
 * providers file is accepted, those with a runtime meaning are used, the others are kept and named
 * in warnings; a minimal definition needs only a name, an auth mode and a base URL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definitionWarnings, providerDefinitionSchema } from './definition.js';
import { providerFromDefinition } from './providers.js';

const problems = (input: unknown) => {
  const r = providerDefinitionSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

/** An entry written as Nango writes its entries, for a made-up provider. */
const nangoShaped = {
  name: 'acme',
  display_name: 'Acme',
  categories: ['crm'],
  auth_mode: 'OAUTH2',
  authorization_url: 'https://${connectionConfig.region}.acme.test/oauth/authorize || https://acme.test/oauth/authorize',
  token_url: { OAUTH2: 'https://acme.test/oauth/token', API_KEY: 'https://acme.test/keys' },
  authorization_method: 'header',
  authorization_params: { prompt: 'consent', offline: true },
  token_params: { grant_type: 'authorization_code', version: 2 },
  body_format: 'json',
  token_response_metadata: ['account.api_host'],
  redirect_uri_metadata: ['accounts-server'],
  proxy: {
    base_url: 'https://${connectionConfig.account.api_host}',
    headers: { 'x-region': '${connectionConfig.region}' },
    retry: { at: ['x-ratelimit-reset', 'x-rate-limit-reset'], after: 'retry-after', remaining: 'x-ratelimit-remaining', error_code: ['429'] },
    decompress: true,
    verification: { method: 'GET', endpoints: ['v1/me'], data: {} },
    paginate: { type: 'cursor', cursor_path_in_response: 'next', cursor_name_in_request: 'cursor', limit_name_in_request: 'limit', limit: '100' },
  },
  connection_config: {
    region: {
      type: 'string',
      title: 'Region',
      description: 'Where the account is hosted',
      enum: ['us', 'eu'],
      default_value: 'us',
      order: 2,
      prefix: 'https://',
      suffix: '.acme.test',
      format: 'hostname',
      doc_section: '#region',
    },
    'accounts-server': { type: 'string', title: '', description: '', automated: true },
    tenant: { type: 'string', title: 'Tenant', hidden: true, default_value: 'common', order: 1 },
  },
  credentials: { apiKey: { type: 'string', title: 'Key', secret: true, example: 'k'.repeat(300), pattern: '^[a-z]+$' } },
  docs: 'https://acme.test/docs',
  docs_connect: 'https://acme.test/docs/connect',
  setup_guide_url: 'https://acme.test/docs/setup',
  post_connection_script: 'acmePostConnection',
  webhook_routing_script: 'acmeWebhookRouting',
};

test("an entry in Nango's format is accepted: arrays of retry headers, prefix/suffix/enum/order/default_value/hidden/automated/format on fields, a token_url per auth mode, scalar params", () => {
  assert.deepEqual(problems(nangoShaped), []);
});

test("the keys of Nango's format with a runtime meaning are used", () => {
  const p = providerFromDefinition(providerDefinitionSchema.parse(nangoShaped));
  assert.equal(p.tokenUrl, 'https://acme.test/oauth/token', "the token_url of the entry's own auth mode");
  assert.equal(p.tokenRequestAuthMethod, 'basic', 'authorization_method: header is HTTP Basic on the token request');
  assert.deepEqual(p.authorizationParams, { prompt: 'consent', offline: 'true' });
  assert.deepEqual(p.tokenParams, { grant_type: 'authorization_code', version: '2' });
  assert.deepEqual(p.retry, { at: ['x-ratelimit-reset', 'x-rate-limit-reset'], after: ['retry-after'] });
  assert.deepEqual(p.verification?.paths, ['/v1/me']);
  assert.deepEqual(Object.keys(p.connectionConfig), ['tenant', 'region', 'accounts-server'], 'fields in their order');
  assert.deepEqual(p.connectionConfig.region!.choices, ['us', 'eu']);
  assert.equal(p.connectionConfig.region!.default, 'us');
  assert.equal(p.connectionConfig.tenant!.default, 'common');
  assert.equal(p.connectionConfig['accounts-server']!.required, false, 'an automated field is filled by Switchyard, not asked');
});

test('keys of the format without a runtime meaning, and unknown keys, are kept and named in warnings', () => {
  const def = providerDefinitionSchema.parse({ ...nangoShaped, colour: 'blue' });
  assert.equal((def as Record<string, unknown>).post_connection_script, 'acmePostConnection');
  const warnings = definitionWarnings(def);
  for (const expected of [
    `Nango's key "post_connection_script" kept but not used`,
    `Nango's key "setup_guide_url" kept but not used`,
    `Nango's key "proxy.decompress" kept but not used`,
    `Nango's key "proxy.retry.remaining" kept but not used`,
    `Nango's key "proxy.verification.data" kept but not used`,
    `Nango's key "connection_config.region.format" kept but not used`,
    `unknown key "colour" kept but not used`,
  ])
    assert.ok(warnings.includes(expected), `${expected} in ${JSON.stringify(warnings, null, 1)}`);
});

test('values the runtime cannot act on are accepted with a warning: an invalid pattern, an unsupported token request method or body format, placeholders Switchyard does not fill', () => {
  const def = providerDefinitionSchema.parse({
    name: 'acme',
    auth_mode: 'OAUTH2_CC',
    token_url: 'https://acme.test/token',
    token_request_auth_method: 'private_key_jwt',
    body_format: 'query',
    redirect_uri_metadata: ['accounts-server'],
    proxy: { base_url: 'https://acme.test', headers: { 'x-nonce': '${random}', 'x-sig': '${sha256Hex(${clientId})}', 'x-basic': '${base64(${clientId})}' } },
    credentials: { apiKey: { title: 'Key', pattern: '[z-a]' } },
  });
  const warnings = definitionWarnings(def);
  for (const expected of [
    /^credentials\.apiKey\.pattern: /,
    /^token_request_auth_method: private_key_jwt /,
    /^body_format: query /,
    /\$\{random\}/,
    /\$\{sha256Hex\(/,
    /^redirect_uri_metadata\.0: fills "accounts-server", which connection_config does not declare/,
  ])
    assert.ok(
      warnings.some((w) => expected.test(w)),
      `${expected} in ${JSON.stringify(warnings)}`,
    );
  assert.equal(providerFromDefinition(def).credentialFields.apiKey!.pattern, '[z-a]', 'kept as given');
  assert.ok(!warnings.some((w) => w.includes('base64')), `\${base64(...)} is filled, so not warned of: ${JSON.stringify(warnings)}`);
});

test('still refused, naming the field: an auth mode not supported yet, an undeclared connection-config placeholder, a default outside its enum', () => {
  assert.match(problems({ ...nangoShaped, auth_mode: 'INSTALL_PLUGIN' }).join('\n'), /^auth_mode: INSTALL_PLUGIN is not supported yet/m);
  assert.match(
    problems({ ...nangoShaped, proxy: { base_url: 'https://${connectionConfig.site}.acme.test' } }).join('\n'),
    /^proxy\.base_url: uses \$\{connectionConfig\.site\}/m,
  );
  assert.match(
    problems({ ...nangoShaped, connection_config: { region: { title: 'Region', enum: ['us', 'eu'], default_value: 'au' } } }).join('\n'),
    /^connection_config\.region\.default_value: must be one of us, eu/m,
  );
});

test('a minimal definition (name, auth mode, base URL; no docs page, no display name) is accepted', () => {
  const minimal = { name: 'acme', auth_mode: 'API_KEY', proxy: { base_url: 'https://api.acme.test' } };
  assert.deepEqual(problems(minimal), []);
  const p = providerFromDefinition(providerDefinitionSchema.parse(minimal));
  assert.equal(p.displayName, 'acme');
  assert.equal(p.docs, '');
});
