/**
 * @module features/providers/providers — the runtime view of a provider, derived from its definition
 * (features/providers/definition.ts) by one conversion, `providerFromDefinition`: auth mode, URL
 * templates, OAuth settings, connection-config fields, verification, how credentials go on the wire
 * (the definition's `proxy.headers`/`proxy.query` templates, else the auth mode's default), rate-limit
 * headers and pagination defaults. Definitions come from the catalogue (catalog.ts) or from an
 * environment's own providers (store.ts: `findProvider`). What a template cannot say (e.g. Checkr's
 * token as the HTTP Basic user name) is its provider plugin's `authorize` hook (integrations/plugin.ts).
 */
import { z } from 'zod';
import type { AuthInjection } from '../../lib/http/index.js';
import type { StoredCredentials } from '../connections/credentials.js';
import { catalog } from './catalog.js';
import { ALTERNATIVES, isLinkUrl, isValidRegExp, tokenUrlOf, type ProviderAuthMode, type ProviderDefinition } from './definition.js';

export type AuthMode = ProviderAuthMode;

export interface ConnectionConfigField {
  title: string;
  description: string;
  required: boolean;
  pattern?: RegExp;
  /** The only values allowed (the definition's `enum`): a region's or tenant's hosts. */
  choices?: string[];
  /** Applied when the connection gives none (the definition's `default_value`). */
  default?: string;
  /**
   * Used in the base URL: the credentials go there, so a value over plain `http://` is refused unless
   * its host is in SWITCHYARD_ALLOWED_PRIVATE_HOSTS.
   */
  httpsUnlessAllowListed?: boolean;
}

export interface ProviderVerification {
  method: NonNullable<NonNullable<ProviderDefinition['proxy']>['verification']>['method'];
  /** Tried in order; the first 2xx proves the credentials. */
  paths: string[];
  baseUrlOverride?: string;
  headers?: Record<string, string>;
}

export type ProviderPaginate = NonNullable<NonNullable<ProviderDefinition['proxy']>['paginate']>;

export interface Provider {
  name: string;
  displayName: string;
  authMode: AuthMode;
  /** Template with `${connectionConfig.x}` placeholders; overridable per integration (`base_url`). */
  baseUrl: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  scopeSeparator?: string;
  defaultScopes?: string[];
  authorizationParams?: Record<string, string>;
  tokenParams?: Record<string, string>;
  refreshParams?: Record<string, string>;
  /** Body encoding of the token request. */
  tokenRequestEncoding: 'form' | 'json';
  /** Where the client id and secret go in a token request. */
  tokenRequestAuthMethod: 'basic' | 'body';
  pkce: boolean;
  /** Token-response fields kept in connection_config (e.g. the provider's account id). */
  tokenResponseMetadata?: string[];
  /** Header and query templates sent with every request (credentials placeholders included). */
  headers: Record<string, string>;
  query: Record<string, string>;
  /**
   * Origins besides the resolved base URL's that may receive the credentials (a script's
   * `baseUrlOverride`, an absolute pagination link); requests elsewhere go without them.
   */
  credentialOrigins?: string[];
  connectionConfig: Record<string, ConnectionConfigField>;
  /** Fields of the API_KEY / BASIC form. */
  credentialFields: NonNullable<ProviderDefinition['credentials']>;
  verification?: ProviderVerification;
  /** Response headers that say when to retry after a 429, each tried. */
  retry?: { at?: string[]; after?: string[] };
  paginate?: ProviderPaginate;
  docs: string;
  definition: ProviderDefinition;
}

/** What a provider's plugin may add to the generic runtime (integrations/plugin.ts extends this). */
export interface ProviderRuntimeHooks {
  /** Places the credentials itself (e.g. a token as the HTTP Basic user name); undefined: the definition's way. */
  authorize?(credentials: StoredCredentials, provider: Provider): AuthInjection | undefined;
}
/** The plugin of a provider, if any (integrations/plugins.ts `pluginFor`, handed in through deps). */
export type ProviderHooksLookup = (provider: string) => ProviderRuntimeHooks | undefined;

const CONFIG_REF = /\$\{connectionConfig\.([A-Za-z][A-Za-z0-9_.-]*)\}/g;

/** The one conversion from a definition to the runtime view. */
export function providerFromDefinition(def: ProviderDefinition): Provider {
  const proxy = def.proxy;
  const baseUrl = proxy?.base_url ?? '';
  const urlFields = new Set([...baseUrl.matchAll(CONFIG_REF)].map((m) => m[1]!));
  const connectionConfig: Record<string, ConnectionConfigField> = {};
  // Nango's `order` places a field in the form; fields without one keep their place after those with one.
  const fields = Object.entries(def.connection_config ?? {}).sort(([, a], [, b]) => (a.order ?? Infinity) - (b.order ?? Infinity));
  for (const [key, f] of fields) {
    const title = f.title || key;
    connectionConfig[key] = {
      title,
      description: f.description || title,
      // An automated field is filled by Switchyard (after authorization), never asked of the end user.
      required: !f.optional && !f.automated,
      ...(f.pattern && isValidRegExp(f.pattern) ? { pattern: new RegExp(f.pattern) } : {}),
      ...(f.enum ? { choices: f.enum } : {}),
      ...(f.default_value !== undefined ? { default: f.default_value } : {}),
      ...(urlFields.has(key) ? { httpsUnlessAllowListed: true } : {}),
    };
  }
  const v = proxy?.verification;
  return {
    name: def.name,
    displayName: def.display_name ?? def.name,
    authMode: def.auth_mode,
    baseUrl,
    ...(def.authorization_url && { authorizationUrl: def.authorization_url }),
    ...(tokenUrlOf(def) && { tokenUrl: tokenUrlOf(def) }),
    ...(def.refresh_url && { refreshUrl: def.refresh_url }),
    ...(def.scope_separator && { scopeSeparator: def.scope_separator }),
    ...(def.default_scopes && { defaultScopes: def.default_scopes }),
    ...(def.authorization_params && { authorizationParams: textParams(def.authorization_params) }),
    ...(def.token_params && { tokenParams: textParams(def.token_params) }),
    ...(def.refresh_params && { refreshParams: textParams(def.refresh_params) }),
    tokenRequestEncoding: def.body_format === 'json' ? 'json' : 'form',
    tokenRequestAuthMethod: def.token_request_auth_method === 'basic' || def.authorization_method === 'header' ? 'basic' : 'body',
    pkce: def.auth_mode === 'OAUTH2' && !def.disable_pkce,
    ...(def.token_response_metadata && { tokenResponseMetadata: def.token_response_metadata }),
    headers: proxy?.headers ?? {},
    query: proxy?.query ?? {},
    connectionConfig,
    credentialFields: def.credentials ?? {},
    ...(v && {
      verification: {
        method: v.method,
        paths: v.endpoints,
        ...(v.base_url_override && { baseUrlOverride: v.base_url_override }),
        ...(v.headers && { headers: v.headers }),
      },
    }),
    ...(proxy?.retry && { retry: retryHeaders(proxy.retry) }),
    ...(proxy?.paginate && { paginate: proxy.paginate }),
    docs: isLinkUrl(def.docs) ? def.docs : '',
    definition: def,
  };
}

/** The text parameters (Nango's nested ones belong to auth modes that build their own requests). */
function textParams(params: NonNullable<ProviderDefinition['token_params']>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function retryHeaders(retry: NonNullable<NonNullable<ProviderDefinition['proxy']>['retry']>): { at?: string[]; after?: string[] } {
  const list = (h: string | string[] | undefined) => (h === undefined ? undefined : typeof h === 'string' ? [h] : h);
  const at = list(retry.at);
  const after = list(retry.after);
  return { ...(at && { at }), ...(after && { after }) };
}

let catalogProviders: Map<string, Provider> | undefined;

/** Every catalogue provider, by name (user-defined ones: store.ts). */
export function catalogProviderMap(): ReadonlyMap<string, Provider> {
  if (!catalogProviders) catalogProviders = new Map([...catalog()].map(([name, def]) => [name, providerFromDefinition(def)]));
  return catalogProviders;
}

/** A catalogue provider by name; an environment's own providers are found with store.ts `findProvider`. */
export function getCatalogProvider(name: string): Provider | undefined {
  return catalogProviderMap().get(name);
}

/** Per-integration overrides of the provider's URLs, so self-hosted tools and test fakes can be used. */
export const integrationConfigSchema = z
  .object({
    base_url: z.url().optional(),
    authorization_url: z.url().optional(),
    token_url: z.url().optional(),
  })
  .catchall(z.string().max(8192));
export type IntegrationConfig = z.infer<typeof integrationConfigSchema>;

export class MissingConfigValue extends Error {
  constructor(readonly key: string) {
    super(`missing ${key}`);
  }
}

/** Values a template may use: `connectionConfig.x`, `apiKey`, `username`, `password`, `accessToken`, `clientId`, `credentials.x`. */
export type TemplateVars = { connectionConfig?: Record<string, unknown>; credentials?: Record<string, string> } & Partial<
  Record<'apiKey' | 'username' | 'password' | 'accessToken' | 'clientId', string>
>;

/** A template's value: `connectionConfig.x` as a key of the config (Nango's `accounts-server`, `installation.uuid`), else as a path into it. */
function valueAt(vars: TemplateVars, key: string): unknown {
  const configKey = /^connectionConfig\.(.+)$/.exec(key)?.[1];
  if (configKey !== undefined && vars.connectionConfig && Object.hasOwn(vars.connectionConfig, configKey)) return vars.connectionConfig[configKey];
  return key.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), vars);
}

function fillOne(template: string, vars: TemplateVars): string {
  return template.replace(/\$\{([\w.-]+)\}/g, (_, key: string) => {
    const value = valueAt(vars, key);
    if (value === undefined || value === null || value === '') throw new MissingConfigValue(key);
    return String(value);
  });
}

/**
 * Replaces `${a.b}` placeholders; a missing or empty value throws MissingConfigValue naming it. Of
 * Nango's alternatives (`https://api.${connectionConfig.region}.acme.com || https://api.acme.com`),
 * the first whose values are all there is used; when none is, the first one's missing value is named.
 */
export function interpolate(template: string, vars: TemplateVars): string {
  const [first, ...others] = template.split(ALTERNATIVES);
  try {
    return fillOne(first!, vars);
  } catch (err) {
    if (!(err instanceof MissingConfigValue)) throw err;
    for (const alt of others) {
      try {
        return fillOne(alt, vars);
      } catch (e) {
        if (!(e instanceof MissingConfigValue)) throw e;
      }
    }
    throw err;
  }
}

/**
 * A templated URL, resolved. A connection-config value that is itself a full URL (a self-hosted
 * tool's `http://host:port/base`) replaces the template's own scheme; trailing slashes are dropped.
 */
export function resolveUrl(template: string, vars: TemplateVars): string {
  const url = interpolate(template, vars).replace(/^https?:\/\/(?=https?:\/\/)/i, '');
  const withScheme = /^https?:\/\//i.test(url) ? url : `https://${url}`;
  return withScheme.replace(/\/+$/, '');
}

export function resolveBaseUrl(provider: Provider, integrationConfig: IntegrationConfig, connectionConfig: Record<string, unknown>): string {
  return resolveUrl(integrationConfig.base_url ?? provider.baseUrl, { connectionConfig });
}

export function resolveAuthorizationUrl(
  provider: Provider,
  integrationConfig: IntegrationConfig,
  clientId: string,
  connectionConfig: Record<string, unknown> = {},
): string | undefined {
  const template = integrationConfig.authorization_url ?? provider.authorizationUrl;
  return template ? interpolate(template, { clientId, connectionConfig }) : undefined;
}

export function resolveTokenUrl(
  provider: Provider,
  integrationConfig: IntegrationConfig,
  connectionConfig: Record<string, unknown> = {},
  purpose: 'token' | 'refresh' = 'token',
): string | undefined {
  const template = integrationConfig.token_url ?? (purpose === 'refresh' ? (provider.refreshUrl ?? provider.tokenUrl) : provider.tokenUrl);
  return template ? interpolate(template, { connectionConfig }) : undefined;
}

const SECRET_REFS: Record<StoredCredentials['type'], RegExp> = {
  API_KEY: /\$\{(?:credentials\.)?apiKey\}/,
  BASIC: /\$\{(?:credentials\.)?(?:username|password)\}/,
  OAUTH2: /\$\{accessToken\}/,
  OAUTH2_CC: /\$\{accessToken\}/,
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
  // Nango's `${credentials.apiKey}`, `${credentials.username}`, `${credentials.password}` too.
  if (credentials?.type === 'API_KEY') Object.assign(vars, { apiKey: credentials.apiKey, credentials: { apiKey: credentials.apiKey } });
  if (credentials?.type === 'BASIC') {
    const { username, password } = credentials;
    Object.assign(vars, { username, password, credentials: { username, password } });
  }
  if (credentials?.type === 'OAUTH2') vars.accessToken = credentials.access_token;
  if (credentials?.type === 'OAUTH2_CC' && credentials.token) vars.accessToken = credentials.token;
  const secretRef = SECRET_REFS[credentials?.type ?? 'NONE'];
  const secret =
    credentials?.type === 'API_KEY'
      ? credentials.apiKey
      : credentials?.type === 'OAUTH2'
        ? credentials.access_token
        : credentials?.type === 'OAUTH2_CC'
          ? (credentials.token ?? null)
          : null;
  const placed = [...Object.values(provider.headers), ...Object.values(provider.query)].some((t) => secretRef.test(t));
  const fill = (map: Record<string, string>) => {
    const out: Record<string, string> = {};
    for (const [k, t] of Object.entries(map)) {
      try {
        out[k] = interpolate(t, vars);
      } catch (err) {
        // A template whose value this connection lacks (another auth mode's secret, an optional field) is left out.
        if (!(err instanceof MissingConfigValue)) throw err;
      }
    }
    return out;
  };
  const headers = fill(provider.headers);
  const query = fill(provider.query);
  if (!placed && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
    if (credentials?.type === 'BASIC') headers.authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
    else if (secret !== null) headers.authorization = `Bearer ${secret}`;
  }
  if (Object.keys(query).length === 0) {
    const names = Object.keys(headers);
    if (names.length === 0) return { type: 'none' };
    if (names.length === 1) return { type: 'header', name: names[0]!, value: headers[names[0]!]! };
  }
  return { type: 'custom', headers, query };
}
