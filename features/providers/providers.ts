/**
 * @module features/providers/providers — the runtime view of a provider, derived from its definition
 * (features/providers/definition.ts) by one conversion, `providerFromDefinition`: auth mode, URL
 * templates, OAuth settings, connection-config fields, verification, how credentials go on the wire
 * (the definition's `proxy.headers`/`proxy.query` templates, else the auth mode's default), rate-limit
 * headers and pagination defaults. Definitions come from the catalogue (catalog.ts) or from an
 * environment's own providers (store.ts: `findProvider`). Templates are filled by the resolver only
 * (features/connections/target.ts). What a template cannot say (e.g. Checkr's token as the HTTP Basic
 * user name) is its provider plugin's `authorize` hook (integrations/plugin.ts).
 */
import { z } from 'zod';
import type { AuthInjection, OAuth1SignatureMethod } from '../../lib/http/index.js';
import type { StoredCredentials } from '../connections/credentials.js';
import { catalog } from './catalog.js';
import { installationTokenUrlOf, isLinkUrl, isValidRegExp, tokenUrlOf, type ProviderAuthMode, type ProviderDefinition } from './definition.js';

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
  /** Filled after authorization (redirect query, token response, post-connection call), so not asked of the end user beforehand. */
  automatic?: boolean;
  /** Hosts a URL may have when this value is in its host (`*.okta.com`); an integration's `custom_domains` adds to them. */
  domains?: string[];
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
  /** APP and CUSTOM: where the app's JWT gets an installation token. */
  installationTokenUrl?: string;
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
  /** The connection presents a TLS client certificate (mutual TLS) to the provider's origins. */
  requireClientCertificate: boolean;
  pkce: boolean;
  /** Token-response fields kept in connection_config (e.g. the provider's account id). */
  tokenResponseMetadata?: string[];
  /** Query parameters of the OAuth redirect kept in connection_config. */
  redirectUriMetadata?: string[];
  /** The call made with a new token before the connection is saved, filling connection_config. */
  postConnection?: NonNullable<ProviderDefinition['post_connection']>;
  /** OAUTH2: the requests trading the code exchange's token for another, and renewing it without a refresh token. */
  accessTokenRequests?: Partial<Record<'exchange' | 'refresh', NonNullable<ProviderDefinition['access_token_exchange']>>>;
  /** TWO_STEP: the token request's headers, method, and where its response has the token and expiry. */
  twoStep?: {
    headers: Record<string, string>;
    method: 'GET' | 'POST' | 'PUT';
    response: NonNullable<ProviderDefinition['token_response']>;
    /** The token's lifetime when the response gives none. */
    expiresInMs?: number;
    /** The signed assertion made before each token request (`${credentials.assertion}`). */
    assertion?: NonNullable<ProviderDefinition['assertion']>;
  };
  /** OAUTH1 and TBA: how requests are signed; OAUTH1: the request-token step too. */
  oauth1?: {
    signatureMethod: OAuth1SignatureMethod;
    requestUrl?: string;
    requestParams: Record<string, string>;
    requestMethod: 'GET' | 'POST';
    tokenMethod: 'GET' | 'POST';
  };
  /** Header and query templates sent with every request (credentials placeholders included). */
  headers: Record<string, string>;
  query: Record<string, string>;
  /** Fields merged into JSON request bodies (`proxy.body`), credentials placeholders included. */
  bodyFields: Record<string, string>;
  /** Renamed parameters of the authorization URL (`authorization_url_replacements`). */
  authorizationParamNames: Record<string, string>;
  /** Renamed parameters of the token and refresh requests, the client id's from `authorization_url_replacements` unless `token_request_replacements` names it; empty: left out. */
  tokenParamNames: Record<string, string>;
  /** Where the token endpoint's answer has its fields (`token_response_root`); undefined: at the top. */
  tokenResponseRoot?: string;
  /**
   * URL templates of origins besides the base URL's (and the verification URL's) that may receive the
   * credentials (a script's `baseUrlOverride`, an absolute pagination link); requests elsewhere go
   * without them. The definition's `proxy.credential_origins`.
   */
  credentialOrigins: string[];
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

/** The one conversion from a definition to the runtime view. */
export function providerFromDefinition(def: ProviderDefinition): Provider {
  const proxy = def.proxy;
  const baseUrl = proxy?.base_url ?? '';
  const connectionConfig: Record<string, ConnectionConfigField> = {};
  const automatic = new Set([...(def.redirect_uri_metadata ?? []), ...(def.token_response_metadata ?? []), ...Object.keys(def.post_connection?.set ?? {})]);
  // Nango's `order` places a field in the form; fields without one keep their place after those with one.
  const fields = Object.entries(def.connection_config ?? {}).sort(([, a], [, b]) => (a.order ?? Infinity) - (b.order ?? Infinity));
  for (const [key, f] of fields) {
    const title = f.title || key;
    // Nango's `automated` fields are filled by Switchyard too.
    const auto = automatic.has(key) || Boolean(f.automated);
    connectionConfig[key] = {
      title,
      description: f.description || title,
      required: !f.optional && !auto,
      ...(auto ? { automatic: true } : {}),
      ...(f.pattern && isValidRegExp(f.pattern) ? { pattern: new RegExp(f.pattern) } : {}),
      ...(f.enum ? { choices: f.enum } : {}),
      ...(f.default_value !== undefined ? { default: f.default_value } : {}),
      ...(f.domains ? { domains: f.domains } : {}),
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
    ...(installationTokenUrlOf(def) && { installationTokenUrl: installationTokenUrlOf(def) }),
    ...(def.refresh_url && { refreshUrl: def.refresh_url }),
    ...(def.scope_separator && { scopeSeparator: def.scope_separator }),
    ...(def.default_scopes && { defaultScopes: def.default_scopes }),
    ...(def.authorization_params && { authorizationParams: textParams(def.authorization_params) }),
    ...(def.token_params && { tokenParams: textParams(def.token_params) }),
    ...(def.refresh_params && { refreshParams: textParams(def.refresh_params) }),
    // Nango's TWO_STEP token requests are JSON unless the definition says otherwise.
    tokenRequestEncoding: def.body_format === 'json' || (def.auth_mode === 'TWO_STEP' && def.body_format === undefined) ? 'json' : 'form',
    requireClientCertificate: def.require_client_certificate ?? false,
    tokenRequestAuthMethod: def.token_request_auth_method === 'basic' || def.authorization_method === 'header' ? 'basic' : 'body',
    // MCP's authorization always uses PKCE (the MCP specification's authorization section).
    pkce: (def.auth_mode === 'OAUTH2' && !def.disable_pkce) || def.auth_mode === 'MCP_OAUTH2' || def.auth_mode === 'MCP_OAUTH2_GENERIC',
    ...(def.token_response_metadata && { tokenResponseMetadata: def.token_response_metadata }),
    ...(def.redirect_uri_metadata && { redirectUriMetadata: def.redirect_uri_metadata }),
    ...(def.post_connection && { postConnection: def.post_connection }),
    ...((def.access_token_exchange || def.access_token_refresh) && {
      accessTokenRequests: {
        ...(def.access_token_exchange && { exchange: def.access_token_exchange }),
        ...(def.access_token_refresh && { refresh: def.access_token_refresh }),
      },
    }),
    ...(def.auth_mode === 'TWO_STEP' &&
      def.token_response && {
        twoStep: {
          headers: def.token_headers ?? {},
          method: def.token_request_method ?? 'POST',
          response: def.token_response,
          ...(def.token_expires_in_ms ? { expiresInMs: def.token_expires_in_ms } : {}),
          ...(def.assertion && { assertion: def.assertion }),
        },
      }),
    ...((def.auth_mode === 'OAUTH1' || def.auth_mode === 'TBA') && {
      oauth1: {
        // NetSuite's token-based authentication signs with HMAC-SHA256.
        signatureMethod: def.signature_method ?? (def.auth_mode === 'TBA' ? 'HMAC-SHA256' : 'HMAC-SHA1'),
        ...(def.request_url && { requestUrl: def.request_url }),
        requestParams: textParams(def.request_params ?? {}),
        requestMethod: def.request_http_method ?? 'POST',
        tokenMethod: def.token_http_method ?? 'POST',
      },
    }),
    headers: proxy?.headers ?? {},
    query: proxy?.query ?? {},
    bodyFields: Object.fromEntries(Object.entries(proxy?.body ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string')),
    authorizationParamNames: def.authorization_url_replacements ?? {},
    tokenParamNames: {
      ...(def.authorization_url_replacements?.client_id && { client_id: def.authorization_url_replacements.client_id }),
      ...def.token_request_replacements,
    },
    ...(def.token_response_root && { tokenResponseRoot: def.token_response_root }),
    credentialOrigins: proxy?.credential_origins ?? [],
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

/**
 * Per-integration settings the developer makes with the secret key: overrides of the provider's URLs
 * (self-hosted tools, test fakes), and `custom_domains`, the hosts besides a field's documented
 * `domains` that its value may name (comma-separated, `auth.acme.com` or `*.acme.com`; `*`: any).
 */
export const integrationConfigSchema = z
  .object({
    base_url: z.url().optional(),
    authorization_url: z.url().optional(),
    token_url: z.url().optional(),
    refresh_url: z.url().optional(),
    /** Replaces a GitHub App's installation-token URL when auth_mode is CUSTOM (GitHub Enterprise Server, a test fake); APP's is `token_url`. */
    installation_token_url: z.url().optional(),
    /** Replaces the base of the definition's post-connection call (a test fake, a self-hosted tool). */
    post_connection_base_url: z.url().optional(),
    /** Replace the URLs of the definition's `access_token_exchange` and `access_token_refresh` (a test fake). */
    access_token_exchange_url: z.url().optional(),
    access_token_refresh_url: z.url().optional(),
    /** The User-Agent of every request to the provider (Basecamp and Harvest ask for the app's name and a contact). */
    user_agent: z.string().min(1).max(512).optional(),
    custom_domains: z
      .string()
      .max(2048)
      .regex(
        /^\s*(?:\*|(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)(?:\s*,\s*(?:\*|(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*))*\s*$/,
        'must be host names or *.-patterns, comma-separated',
      )
      .optional(),
  })
  .catchall(z.string().max(8192));
export type IntegrationConfig = z.infer<typeof integrationConfigSchema>;
