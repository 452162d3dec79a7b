/**
 * @module features/connections/target — the resolver: the one way from a connection (or one being
 * made) to what its requests go to. It loads the provider's definition, the integration (its URL
 * overrides and custom domains) and the connection (config, and credentials refreshed when due) once,
 * and gives the base URL, the authorization and token URLs with their parameters, the auth to attach
 * and the origins that may receive it. Every template is filled here, by providers/templates.ts, so
 * a connection-config value cannot take a URL off the host its template allows, whoever asks: the
 * proxy, scripts, verification, the OAuth flows, token refresh and provider plugins.
 */
import { BadRequest, NotFound, ValidationFailed } from '../../lib/errors.js';
import { constantTimeEqual } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';
import { authHeaders, type AuthInjection, type OAuth1Signer } from '../../lib/http/index.js';
import { credentialsFor } from '../../lib/http/credential-scope.js';
import { getIntegrationById, type Integration } from '../integrations/store.js';
import type { Provider, ProviderRuntimeHooks } from '../providers/providers.js';
import { findProvider } from '../providers/store.js';
import { fillText, fillUrl, InvalidConfigValue, MissingConfigValue, type TemplateVars, type UrlRules } from '../providers/templates.js';
import { billFields, billHeaders } from './bill.js';
import { twoStepFields, type StoredCredentials } from './credentials.js';
import { discoveredMetadata, resourceParam } from './mcp-metadata.js';
import { withFreshCredentials } from './refresh.js';
import { wsseToken } from './wsse.js';
import type { ConnectionDeps } from './service.js';
import { getConnectionByPk, type Connection } from './store.js';

/** A provider's URLs, parameters and auth for one connection config, every value checked where it lands. */
export interface Endpoints {
  readonly provider: Provider;
  readonly integration: Integration;
  readonly connectionConfig: Record<string, unknown>;
  /** Where requests go: the integration's `base_url`, else the definition's; no trailing slash. */
  baseUrl(): string;
  authorizationUrl(clientId: string): string | undefined;
  /** The token endpoint; for a refresh, the definition's `refresh_url` when it has one; a GitHub App's installation-token endpoint. */
  tokenUrl(purpose: 'token' | 'refresh' | 'installation'): string | undefined;
  /** The definition's `authorization_params`, `token_params`, `refresh_params` or (OAUTH1) `request_params`, placeholders filled (`${credentials.x}`: the entered fields; `${now...}`: `now`, else the current time). */
  params(of: 'authorization' | 'token' | 'refresh' | 'request', credentials?: Record<string, string>, now?: Date): Record<string, string>;
  /** OAUTH1: the request-token URL. */
  requestUrl(): string | undefined;
  /** TWO_STEP: the definition's `token_headers`, filled with the entered fields. */
  tokenHeaders(credentials: Record<string, string>): Record<string, string>;
  /** The verification request's base: the definition's `verification.base_url_override`, else the base URL. */
  verificationUrl(): string;
  /** The post-connection call's base (the integration's `post_connection_base_url`, the definition's override, else the base URL); undefined without one. */
  postConnectionUrl(): string | undefined;
  /** The post-connection call with a new token: its base, its headers filled, and the auth (none when its headers place the token). */
  postConnectionRequest(credentials: StoredCredentials): { baseUrl: string; headers: Record<string, string>; auth: AuthInjection } | undefined;
  /** OAUTH2: the definition's token exchange or self-refresh request for this access token, URL and query filled; undefined without one. */
  accessTokenRequest(kind: 'exchange' | 'refresh', accessToken: string): { url: string; query: Record<string, string> } | undefined;
  /** The origins that may receive the credentials: the base URL's, the verification URL's and the definition's `credential_origins`. */
  origins(): string[];
  /** The credentials as they go on the wire (the definition's templates, else the auth mode's default; a plugin may place them itself). */
  auth(credentials: StoredCredentials | null, hooks?: ProviderRuntimeHooks): AuthInjection;
  /** Checks the config against the definition (required fields, patterns, every URL it fills): a 400 naming the first bad field. */
  check(): void;
  /** A header, claim or key template filled with the connection config and the entered fields (`${credentials.x}`); undefined when a value is missing. */
  fillWithCredentials(template: string, credentials: Record<string, unknown>): string | undefined;
}

/** A 400 naming a field: `errors[].path` and the message (`connection_config.domain must use https…`). */
function fieldError(code: 'missing_connection_config' | 'invalid_connection_config', field: string, reason: string): ValidationFailed {
  return new ValidationFailed(code, [{ code: 'invalid_value', message: reason, path: field.split('.') }], `${field} ${reason}`);
}

/** The API error for a template that could not be filled. */
function configError(provider: Provider, err: unknown): unknown {
  if (!(err instanceof MissingConfigValue || err instanceof InvalidConfigValue)) return err;
  const field = err.key.replace(/^connectionConfig\./, 'connection_config.');
  if (err instanceof MissingConfigValue) return fieldError('missing_connection_config', field, `is required by ${provider.name}`);
  return fieldError('invalid_connection_config', field, err.reason);
}

function customDomains(integration: Integration): string[] {
  return (integration.integrationConfig.custom_domains ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);
}

/** The endpoints of a provider for one connection config (no I/O; see `providerTarget` for a stored connection). */
export function endpoints(
  allowedPrivateHosts: readonly string[],
  provider: Provider,
  integration: Integration,
  connectionConfig: Record<string, unknown>,
): Endpoints {
  const overrides = integration.integrationConfig;
  const custom = customDomains(integration);
  const rules: UrlRules = {
    allowedPrivateHosts,
    domainsOf(key) {
      const name = /^connectionConfig\.(.+)$/.exec(key)?.[1];
      const own = name !== undefined && Object.hasOwn(provider.connectionConfig, name) ? provider.connectionConfig[name]!.domains : undefined;
      return own && [...own, ...custom];
    },
  };
  const vars: TemplateVars = { connectionConfig };
  const url = (template: string, extra: TemplateVars = {}): string => {
    try {
      return fillUrl(template, { ...vars, ...extra }, rules);
    } catch (err) {
      throw configError(provider, err);
    }
  };
  // MCP_OAUTH2_GENERIC: the endpoints its discovery found, kept with the connection (mcp-metadata.ts).
  const generic = provider.authMode === 'MCP_OAUTH2_GENERIC';
  const discovered = generic ? discoveredMetadata(connectionConfig) : undefined;
  const authorizationTemplate = overrides.authorization_url ?? discovered?.authorization_endpoint ?? provider.authorizationUrl;
  const tokenTemplate = (purpose: 'token' | 'refresh' | 'installation') =>
    purpose === 'installation'
      ? provider.authMode === 'CUSTOM'
        ? (overrides.installation_token_url ?? provider.installationTokenUrl)
        : (overrides.token_url ?? provider.installationTokenUrl)
      : purpose === 'refresh'
        ? (overrides.refresh_url ?? overrides.token_url ?? discovered?.token_endpoint ?? provider.refreshUrl ?? provider.tokenUrl)
        : (overrides.token_url ?? discovered?.token_endpoint ?? provider.tokenUrl);
  const postConnectionTemplate = provider.postConnection && (overrides.post_connection_base_url ?? provider.postConnection.base_url_override);
  const baseUrl = () => url(overrides.base_url ?? provider.baseUrl).replace(/\/+$/, '');
  const verificationUrl = () => {
    const override = provider.verification?.baseUrlOverride;
    return override ? url(override).replace(/\/+$/, '') : baseUrl();
  };
  const postConnectionUrl = () => {
    if (!provider.postConnection) return undefined;
    return postConnectionTemplate ? url(postConnectionTemplate).replace(/\/+$/, '') : baseUrl();
  };
  const fillAll = (templates: Record<string, string>, with_: TemplateVars) => {
    try {
      return Object.fromEntries(Object.entries(templates).map(([k, t]) => [k, fillText(t, with_)]));
    } catch (err) {
      throw configError(provider, err);
    }
  };
  const self: Endpoints = {
    provider,
    integration,
    connectionConfig,
    baseUrl,
    authorizationUrl: (clientId) => (authorizationTemplate ? url(authorizationTemplate, { clientId }) : undefined),
    tokenUrl: (purpose) => {
      const template = tokenTemplate(purpose);
      return template ? url(template) : undefined;
    },
    params(of, credentials, now) {
      const templates =
        { authorization: provider.authorizationParams, token: provider.tokenParams, refresh: provider.refreshParams, request: provider.oauth1?.requestParams }[
          of
        ] ?? {};
      return { ...(generic && resourceParam(connectionConfig)), ...fillAll(templates, { ...vars, ...(credentials && { credentials }), ...(now && { now }) }) };
    },
    requestUrl: () => (provider.oauth1?.requestUrl ? url(provider.oauth1.requestUrl) : undefined),
    tokenHeaders: (credentials) => fillAll(provider.twoStep?.headers ?? {}, { ...vars, credentials }),
    verificationUrl,
    postConnectionUrl,
    accessTokenRequest(kind, accessToken) {
      const request = provider.accessTokenRequests?.[kind];
      if (!request) return undefined;
      const client = integration.credentials;
      const filled = { ...vars, accessToken, ...(client && { clientId: client.client_id, clientSecret: client.client_secret }) };
      return { url: url(overrides[`access_token_${kind}_url`] ?? request.url), query: fillAll(request.params, filled) };
    },
    postConnectionRequest(credentials) {
      const base = postConnectionUrl();
      if (!base || !provider.postConnection) return undefined;
      const accessToken =
        credentials.type === 'OAUTH2'
          ? credentials.access_token
          : credentials.type === 'OAUTH2_CC' || credentials.type === 'TWO_STEP'
            ? credentials.token
            : undefined;
      let headers: Record<string, string>;
      try {
        headers = Object.fromEntries(
          Object.entries(provider.postConnection.headers ?? {}).map(([k, t]) => [k.toLowerCase(), fillText(t, { ...vars, accessToken })]),
        );
      } catch (err) {
        throw configError(provider, err);
      }
      const auth = 'authorization' in headers ? withUserAgent({ type: 'none' }, overrides.user_agent) : self.auth(credentials);
      return { baseUrl: base, headers, auth };
    },
    origins() {
      const out = new Set<string>();
      for (const resolve of [baseUrl, verificationUrl, postConnectionUrl, ...provider.credentialOrigins.map((t) => () => url(t))]) {
        try {
          const resolved = resolve();
          if (resolved) out.add(new URL(resolved).origin);
        } catch {
          // An origin this config cannot fill, or fills with a bad value, receives nothing.
        }
      }
      return [...out];
    },
    auth: (credentials, hooks) =>
      withUserAgent(
        oauth1Auth(provider, integration, connectionConfig, credentials) ?? authInjection(provider, credentials, connectionConfig, hooks),
        overrides.user_agent,
      ),
    fillWithCredentials(template, credentials) {
      try {
        return fillText(template, { ...vars, credentials: credentials as Record<string, string> });
      } catch (err) {
        if (err instanceof MissingConfigValue) return undefined;
        throw configError(provider, err);
      }
    },
    check() {
      for (const [key, field] of Object.entries(provider.connectionConfig)) {
        const value = connectionConfig[key];
        if (field.required && (value === undefined || value === null || value === '')) {
          throw fieldError('missing_connection_config', `connection_config.${key}`, `is required: ${field.description}`);
        }
        if (value !== undefined && field.pattern && !field.pattern.test(String(value))) {
          throw fieldError('invalid_connection_config', `connection_config.${key}`, `is not valid: ${field.description}`);
        }
      }
      const templates = [
        overrides.base_url ?? provider.baseUrl,
        authorizationTemplate,
        tokenTemplate('token'),
        tokenTemplate('refresh'),
        tokenTemplate('installation'),
        provider.oauth1?.requestUrl,
        provider.verification?.baseUrlOverride,
        postConnectionTemplate,
        ...provider.credentialOrigins,
      ];
      for (const template of templates) {
        if (!template) continue;
        try {
          fillUrl(template, { ...vars, clientId: 'client' }, rules);
        } catch (err) {
          // A value this config does not have yet (one the token response brings) is checked when it comes.
          if (!(err instanceof MissingConfigValue)) throw configError(provider, err);
        }
      }
    },
  };
  return self;
}

/**
 * OAUTH1 and TBA: each request signed (lib/http/oauth1.ts) with the consumer key and secret (the
 * integration's client id and secret; a TBA connection's own override first) and the connection's
 * token; the definition's header and query templates go with it. TBA's realm is the NetSuite account
 * id as its docs write it (`123456_SB1` for the host's `123456-sb1`).
 */
function oauth1Auth(
  provider: Provider,
  integration: Integration,
  connectionConfig: Record<string, unknown>,
  credentials: StoredCredentials | null,
): AuthInjection | undefined {
  if (!provider.oauth1 || (credentials?.type !== 'OAUTH1' && credentials?.type !== 'TBA')) return undefined;
  const tba = credentials.type === 'TBA' ? credentials : undefined;
  const consumerKey = tba?.config_override?.client_id ?? integration.credentials?.client_id;
  const consumerSecret = tba?.config_override?.client_secret ?? integration.credentials?.client_secret;
  if (!consumerKey || !consumerSecret) throw new BadRequest('missing_credentials', `Integration ${integration.uniqueKey} has no consumer key and secret`);
  const accountId = connectionConfig.accountId;
  const signer: OAuth1Signer = {
    consumerKey,
    consumerSecret,
    token: tba ? tba.token_id : credentials.type === 'OAUTH1' ? credentials.oauth_token : undefined,
    tokenSecret: tba ? tba.token_secret : credentials.type === 'OAUTH1' ? credentials.oauth_token_secret : undefined,
    signatureMethod: provider.oauth1.signatureMethod,
    ...(tba && typeof accountId === 'string' && accountId ? { realm: accountId.toUpperCase().replaceAll('-', '_') } : {}),
  };
  const rest = authInjection(provider, credentials, connectionConfig);
  return { type: 'oauth1', signer, headers: authHeaders(rest), query: rest.type === 'custom' ? rest.query : {} };
}

/** The integration's User-Agent, sent with the credentials (the client's default goes where they do not). */
function withUserAgent(auth: AuthInjection, userAgent: string | undefined): AuthInjection {
  if (!userAgent) return auth;
  if (auth.type === 'custom' || auth.type === 'oauth1' || auth.type === 'aws-sigv4') return { ...auth, headers: { ...auth.headers, 'user-agent': userAgent } };
  return { type: 'custom', headers: { ...authHeaders(auth), 'user-agent': userAgent }, query: {} };
}

const SECRET_REFS: Record<StoredCredentials['type'], RegExp> = {
  API_KEY: /\$\{(?:credentials\.)?apiKey\}/,
  BASIC: /\$\{(?:credentials\.)?(?:username|password)\}/,
  OAUTH2: /\$\{accessToken\}/,
  OAUTH2_CC: /\$\{accessToken\}/,
  TWO_STEP: /\$\{accessToken\}/,
  JWT: /\$\{accessToken\}/,
  APP: /\$\{accessToken\}/,
  CUSTOM: /\$\{accessToken\}/,
  BILL: /\$\{(?:credentials\.)?session_id\}/,
  AWS_SIGV4: /$^/,
  // Signed, not templated (oauth1Auth).
  SIGNATURE: /\$\{accessToken\}/,
  OAUTH1: /$^/,
  TBA: /$^/,
  NONE: /$^/,
};

/**
 * How a connection's credentials go on the wire, from the definition: its `proxy.headers` and
 * `proxy.query` templates (with the connection's values), and, when no template places the secret,
 * the auth mode's default (Bearer for API_KEY and OAuth tokens, Basic for BASIC).
 */
export function authInjection(
  provider: Provider,
  credentials: StoredCredentials | null,
  connectionConfig: Record<string, unknown>,
  hooks?: ProviderRuntimeHooks,
): AuthInjection {
  const own = credentials && hooks?.authorize?.(credentials, provider);
  if (own) return own;
  const vars: TemplateVars = { connectionConfig };
  if (credentials?.type === 'AWS_SIGV4') return awsSigV4Injection(provider, credentials, connectionConfig);
  const signedBasic = provider.definition.aws_sigv4;
  if (credentials?.type === 'BASIC' && signedBasic) {
    const key = { access_key_id: credentials.username, secret_access_key: credentials.password };
    return awsSigV4Injection(provider, key, { ...connectionConfig, service: signedBasic.service });
  }
  // Nango's `${credentials.apiKey}`, `${credentials.username}`, `${credentials.password}` too.
  if (credentials?.type === 'API_KEY') Object.assign(vars, { apiKey: credentials.apiKey, credentials: { apiKey: credentials.apiKey } });
  if (credentials?.type === 'BASIC') {
    const { username, password } = credentials;
    Object.assign(vars, { username, password, credentials: { username, password } });
  }
  if (credentials?.type === 'OAUTH2') vars.accessToken = credentials.access_token;
  if (credentials?.type === 'OAUTH2_CC' && credentials.token) vars.accessToken = credentials.token;
  if (credentials?.type === 'SIGNATURE') {
    const { username, password } = credentials;
    Object.assign(vars, { username, password, credentials: { username, password }, accessToken: wsseToken(username, password, new Date()) });
  }
  if (credentials?.type === 'TWO_STEP') {
    if (credentials.token) vars.accessToken = credentials.token;
    vars.credentials = twoStepFields(credentials);
  }
  if (credentials?.type === 'JWT' && credentials.token) vars.accessToken = credentials.token;
  if (credentials?.type === 'APP' && credentials.access_token) vars.accessToken = credentials.access_token;
  // A GitHub App with user authorization acts as its installation, as Nango's proxy does.
  if (credentials?.type === 'CUSTOM') vars.accessToken = credentials.app.access_token;
  if (credentials?.type === 'BILL') vars.credentials = billFields(credentials);
  const secretRef = SECRET_REFS[credentials?.type ?? 'NONE'];
  const secret =
    credentials?.type === 'API_KEY'
      ? credentials.apiKey
      : credentials?.type === 'OAUTH2'
        ? credentials.access_token
        : credentials?.type === 'OAUTH2_CC' || credentials?.type === 'TWO_STEP' || credentials?.type === 'JWT'
          ? (credentials.token ?? null)
          : credentials?.type === 'APP'
            ? (credentials.access_token ?? null)
            : credentials?.type === 'CUSTOM'
              ? credentials.app.access_token
              : null;
  const placed = [...Object.values(provider.headers), ...Object.values(provider.query), ...Object.values(provider.bodyFields)].some((t) => secretRef.test(t));
  const fill = (map: Record<string, string>) => {
    const out: Record<string, string> = {};
    for (const [k, t] of Object.entries(map)) {
      try {
        out[k] = fillText(t, vars);
      } catch (err) {
        // A template whose value this connection lacks (another auth mode's secret, an optional field) is left out.
        if (!(err instanceof MissingConfigValue)) throw configError(provider, err);
      }
    }
    return out;
  };
  const headers = fill(provider.headers);
  const query = fill(provider.query);
  const body = fill(provider.bodyFields);
  if (!placed && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
    if (credentials?.type === 'SIGNATURE') headers['x-wsse'] = vars.accessToken!;
    else if (credentials?.type === 'BILL') Object.assign(headers, billHeaders(credentials));
    else if (credentials?.type === 'BASIC')
      headers.authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
    else if (secret !== null) headers.authorization = `Bearer ${secret}`;
  }
  const clientCertificate =
    credentials?.type === 'OAUTH2_CC' && credentials.client_certificate && credentials.client_private_key
      ? { cert: credentials.client_certificate, key: credentials.client_private_key }
      : undefined;
  if (Object.keys(body).length > 0 || clientCertificate)
    return { type: 'custom', headers, query, ...(Object.keys(body).length > 0 && { body }), ...(clientCertificate && { clientCertificate }) };
  if (Object.keys(query).length === 0) {
    const names = Object.keys(headers);
    if (names.length === 0) return { type: 'none' };
    if (names.length === 1) return { type: 'header', name: names[0]!, value: headers[names[0]!]! };
  }
  return { type: 'custom', headers, query };
}

/**
 * AWS_SIGV4: the access key, and the region and service from the connection config (else their
 * defaults); the provider client signs each request with them as it is sent. The definition's own
 * headers go along, and are signed when they are `x-amz-*` or content-type.
 */
function awsSigV4Injection(
  provider: Provider,
  credentials: Omit<Extract<StoredCredentials, { type: 'AWS_SIGV4' }>, 'type'>,
  connectionConfig: Record<string, unknown>,
): AuthInjection {
  const setting = (key: 'region' | 'service') => {
    const value = connectionConfig[key] ?? provider.definition.connection_config?.[key]?.default_value;
    if (value === undefined || value === '') throw fieldError('missing_connection_config', `connection_config.${key}`, `is required by ${provider.name}`);
    return String(value);
  };
  const headers: Record<string, string> = {};
  for (const [k, t] of Object.entries(provider.headers)) headers[k.toLowerCase()] = fillText(t, { connectionConfig });
  return {
    type: 'aws-sigv4',
    accessKeyId: credentials.access_key_id,
    secretAccessKey: credentials.secret_access_key,
    ...(credentials.session_token && { sessionToken: credentials.session_token }),
    region: setting('region'),
    service: setting('service'),
    headers,
  };
}

/** The provider of an integration, as its environment sees it (the catalogue, then the environment's own). */
export async function providerOf(db: Queryable, environmentId: number, name: string, lookups?: ConnectionDeps['lookups']): Promise<Provider> {
  const provider = lookups ? await lookups.provider(environmentId, name) : await findProvider(db, environmentId, name);
  if (!provider) throw new NotFound('unknown_provider', `Provider ${name} is neither in the catalogue nor defined in this environment`);
  return provider;
}

/** The endpoints of a connection being made (connect flows, imports): its integration's provider, loaded. */
export async function endpointsFor(
  deps: Pick<ConnectionDeps, 'db' | 'config'>,
  environmentId: number,
  integration: Integration,
  connectionConfig: Record<string, unknown>,
): Promise<Endpoints> {
  const provider = await providerOf(deps.db, environmentId, integration.provider);
  return endpoints(deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS, provider, integration, connectionConfig);
}

export interface ProviderTarget {
  provider: Provider;
  integration: Integration;
  connection: Connection;
  endpoints: Endpoints;
  baseUrl: string;
  auth: AuthInjection;
  /** The origins that may receive `auth`. */
  origins: string[];
  /** `auth` for a request to `url` at one of `origins`; none elsewhere (a CDN, a signed download, a hostile link). */
  authAt(url: string): AuthInjection;
}

/** A connection's integration and provider, and its endpoints for a config (those of its own config built once). */
interface ConnectionEndpoints {
  integration: Integration;
  provider: Provider;
  endpointsOf(config: Record<string, unknown>): Endpoints;
}

/** The connection's integration: from the cached lookups when they hold it (a sync run's every page request asks), else by id. */
async function integrationOf(deps: ConnectionDeps, connection: Connection): Promise<Integration | null> {
  const cached = await deps.lookups?.integration(connection.environmentId, connection.integrationKey);
  return cached?.id === connection.integrationId ? cached : getIntegrationById(deps.db, deps.box, connection.integrationId);
}

/**
 * The connection's endpoints for a config, its integration and provider loaded once. A caller that
 * has just read the connection's integration passes it, saving a query per call.
 */
async function endpointsOfConnection(deps: ConnectionDeps, connection: Connection, loaded?: Integration): Promise<ConnectionEndpoints> {
  const integration = loaded?.id === connection.integrationId ? loaded : await integrationOf(deps, connection);
  if (!integration) throw new NotFound('unknown_provider_config', 'Integration does not exist');
  const provider = await providerOf(deps.db, connection.environmentId, integration.provider, deps.lookups);
  return { integration, provider, endpointsOf: endpointsBuilder(deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS, provider, integration, connection) };
}

/** `endpointsOf` (the connection's own config's built once); not a closure bound to a name per call, which tsx names each time (`__name`). */
function endpointsBuilder(
  allowed: readonly string[],
  provider: Provider,
  integration: Integration,
  connection: Connection,
): ConnectionEndpoints['endpointsOf'] {
  let own: Endpoints | undefined;
  return (config) =>
    config === connection.connectionConfig ? (own ??= endpoints(allowed, provider, integration, config)) : endpoints(allowed, provider, integration, config);
}

/** The connection with credentials valid for at least the refresh margin (refreshed first when due, or when forced). */
export async function freshConnection(deps: ConnectionDeps, connection: Connection, opts: { force?: boolean } = {}): Promise<Connection> {
  return withFreshCredentials(deps, connection, (await endpointsOfConnection(deps, connection)).endpointsOf, opts);
}

/** A target resolved for one connection object, and what it was resolved from. */
interface KeptTarget {
  target: ProviderTarget;
  integration: Integration;
  provider: Provider;
  hooks: ProviderRuntimeHooks | undefined;
  allowedPrivateHosts: readonly string[];
}

/**
 * Targets by connection object. The API's lookup cache hands out the same object until the row changes
 * (features/connections/lookups.ts), so a proxied call resolves its target once per connection
 * version instead of filling every template again; a refresh, a changed integration or provider, or
 * another row gives another object, and with it a new target.
 */
const keptTargets = new WeakMap<Connection, KeptTarget>();
const NOW_TEMPLATE = /\$\{now\b/;

/** Whether the credentials as sent are the same on every request: not a WSSE token (a nonce and time each time) or a `${now}` template. */
function timeless(provider: Provider, credentials: StoredCredentials): boolean {
  if (credentials.type === 'SIGNATURE') return false;
  return ![provider.headers, provider.query, provider.bodyFields].some((templates) => Object.values(templates).some((t) => NOW_TEMPLATE.test(t)));
}

/** Everything needed to call the provider on behalf of this connection, credentials fresh. */
export async function providerTarget(deps: ConnectionDeps, connection: Connection, loaded?: Integration): Promise<ProviderTarget> {
  const { integration, provider, endpointsOf } = await endpointsOfConnection(deps, connection, loaded);
  const kept = keptTargets.get(connection);
  const hooks = deps.providerHooks(provider.name);
  const allowedPrivateHosts = deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS;
  const reusable = kept?.integration === integration && kept.provider === provider && kept.hooks === hooks && kept.allowedPrivateHosts === allowedPrivateHosts;
  // The refresh check runs on every call: a kept target is used only while its credentials need no refresh.
  const fresh = await withFreshCredentials(deps, connection, (config) =>
    reusable && config === connection.connectionConfig ? kept.target.endpoints : endpointsOf(config),
  );
  if (reusable && fresh === connection) return kept.target;
  const e = endpointsOf(fresh.connectionConfig);
  const baseUrl = e.baseUrl();
  const auth = e.auth(fresh.credentials, hooks);
  // Filled when first asked for: the proxy asks only for a Base-Url-Override.
  let origins: string[] | undefined;
  const originsOnce = () => (origins ??= e.origins());
  const target: ProviderTarget = {
    provider: e.provider,
    integration: e.integration,
    connection: fresh,
    endpoints: e,
    baseUrl,
    auth,
    get origins() {
      return originsOnce();
    },
    authAt: (url) => credentialsFor(auth, url, { baseUrl, origins: originsOnce() }),
  };
  if (fresh === connection && timeless(provider, fresh.credentials)) keptTargets.set(connection, { target, integration, provider, hooks, allowedPrivateHosts });
  return target;
}

/**
 * The target again, from the stored row, when the connection's credentials changed after `target`
 * read them: another process refreshed the token and its change notice has not reached this
 * process's cache yet. Null when the stored credentials are the ones `target` has.
 */
export async function newerTarget(deps: ConnectionDeps, target: ProviderTarget): Promise<ProviderTarget | null> {
  const stored = await getConnectionByPk(deps.db, deps.box, target.connection.id);
  if (!stored || stored.updatedAt.getTime() <= target.connection.updatedAt.getTime()) return null;
  if (constantTimeEqual(JSON.stringify(stored.credentials), JSON.stringify(target.connection.credentials))) return null;
  return providerTarget(deps, stored, target.integration);
}

/** Credentials the provider may end before their expiry (a Bill session idle for 35 minutes, or signed out). */
const SESSION_CREDENTIALS = new Set<StoredCredentials['type']>(['BILL']);

/**
 * The target with a new session, when the provider refused the connection's and its credentials are
 * a session it may end early: signed in again (under the refresh lease, so a concurrent 401 signs in
 * once). Null for other credentials.
 */
export async function reauthorizedTarget(deps: ConnectionDeps, target: ProviderTarget): Promise<ProviderTarget | null> {
  if (!SESSION_CREDENTIALS.has(target.connection.credentials.type)) return null;
  const fresh = await freshConnection(deps, target.connection, { force: true });
  return providerTarget(deps, fresh, target.integration);
}
