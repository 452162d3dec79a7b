/**
 * @module features/connections/mcp — the OAuth client of an MCP server's authorization, before the
 * authorization-code flow (api/routes/connect.ts) runs as for OAuth 2, with PKCE always.
 *
 * MCP_OAUTH2 (Nango's): a `dynamic` definition's client is registered at its `registration_url` by
 * RFC 7591 dynamic client registration, once per integration, and kept encrypted as the integration's
 * client; a `static` one is the developer's, entered like OAuth 2's.
 *
 * MCP_OAUTH2_GENERIC: the end user gives the server's URL (`mcp_server_url`); its protected-resource
 * metadata (RFC 9728) names the authorization server, whose metadata (RFC 8414) gives the endpoints;
 * a client is registered there for this connection (RFC 7591). All of it is kept with the connection
 * (mcp-metadata.ts), so its refreshes need no discovery.
 */
import { z } from 'zod';
import { isHostAllowListed, type ProviderHttpClient, type RequestContext } from '../../lib/http/index.js';
import type { Queryable } from '../../lib/db/pool.js';
import { rowAad, type SecretBox } from '../../lib/crypto.js';
import { BadRequest } from '../../lib/errors.js';
import { setCredentialsIfNone } from '../integrations/store.js';
import type { IntegrationCredentials } from './credentials.js';
import { authorizationServerMetadata, clientInfo, oauthClientOf, registeredClientId, type AuthorizationServerMetadata } from './mcp-metadata.js';
import { OAuthError } from './oauth.js';
import { endpoints as endpointsOfConfig, type Endpoints } from './target.js';

interface McpDeps {
  http: ProviderHttpClient;
  db: Queryable;
  box: SecretBox;
  allowedPrivateHosts: readonly string[];
}

const protectedResourceMetadata = z
  .object({
    resource: z.string().max(2048).optional(),
    authorization_servers: z.array(z.string().max(2048)).max(16).optional(),
    scopes_supported: z.array(z.string().max(512)).max(256).optional(),
  })
  .catchall(z.unknown());

/** A URL the server gave that credentials will go to: https, or http to a host in SWITCHYARD_ALLOWED_PRIVATE_HOSTS. */
function checkedUrl(deps: McpDeps, url: string, what: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OAuthError('mcp_discovery_failed', `${what} is not a valid URL`);
  }
  const allowed = parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isHostAllowListed(parsed.hostname, deps.allowedPrivateHosts));
  if (!allowed || parsed.username || parsed.password || url.includes('${'))
    throw new OAuthError('mcp_discovery_failed', `${what} must be an https URL (http only for hosts in SWITCHYARD_ALLOWED_PRIVATE_HOSTS)`);
  return parsed;
}

/** RFC 8615 well-known URLs: the suffix inserted between the host and the path (RFC 8414 §3.1, RFC 9728 §3.1). */
function wellKnown(of: URL, suffix: string): string {
  const path = of.pathname.replace(/\/+$/, '');
  return `${of.origin}/.well-known/${suffix}${path}`;
}

async function getJson<T extends z.ZodType>(deps: McpDeps, url: string, schema: T, context: RequestContext): Promise<z.output<T> | null> {
  const res = await deps.http.request({ method: 'GET', baseUrl: url, path: '', headers: { accept: 'application/json' }, auth: { type: 'none' }, context });
  if (res.status !== 200) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(res.body?.toString('utf8') ?? ''));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The first of `urls` that answers a document of `schema`. */
async function firstDocument<T extends z.ZodType>(deps: McpDeps, urls: string[], schema: T, context: RequestContext): Promise<z.output<T> | null> {
  for (const url of [...new Set(urls)]) {
    const doc = await getJson(deps, url, schema, context);
    if (doc) return doc;
  }
  return null;
}

export interface Discovery {
  metadata: AuthorizationServerMetadata;
  /** RFC 8707's resource: the server's own URL as its metadata names it. */
  resource: string;
  /** The scopes to ask: the resource's, else the authorization server's. */
  scopes: string[];
}

/**
 * RFC 9728 then RFC 8414, as the MCP specification's authorization section orders them: the
 * protected-resource metadata at the path-aware well-known URL, else the root one (none: the server's
 * origin is its own authorization server); then the authorization server's metadata, OAuth's
 * well-known document before OpenID Connect's.
 */
export async function discover(deps: McpDeps, mcpServerUrl: string, context: RequestContext): Promise<Discovery> {
  const server = checkedUrl(deps, mcpServerUrl, 'connection_config.mcp_server_url');
  const prm = await firstDocument(
    deps,
    [wellKnown(server, 'oauth-protected-resource'), `${server.origin}/.well-known/oauth-protected-resource`],
    protectedResourceMetadata,
    context,
  );
  if (prm?.resource && checkedUrl(deps, prm.resource, "the protected resource's resource").origin !== server.origin)
    throw new OAuthError('mcp_discovery_failed', 'the protected-resource metadata names another server as its resource');
  const issuer = checkedUrl(deps, prm?.authorization_servers?.[0] ?? server.origin, 'the authorization server');
  const hasPath = issuer.pathname.replace(/\/+$/, '') !== '';
  const metadata = await firstDocument(
    deps,
    [
      wellKnown(issuer, 'oauth-authorization-server'),
      wellKnown(issuer, 'openid-configuration'),
      ...(hasPath ? [`${issuer.href.replace(/\/+$/, '')}/.well-known/openid-configuration`] : []),
    ],
    authorizationServerMetadata,
    context,
  );
  if (!metadata) throw new OAuthError('mcp_discovery_failed', `no authorization server metadata at ${issuer.origin} (RFC 8414)`);
  for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const) if (metadata[key]) checkedUrl(deps, metadata[key], key);
  if (metadata.code_challenge_methods_supported && !metadata.code_challenge_methods_supported.includes('S256'))
    throw new OAuthError('mcp_discovery_failed', 'the authorization server does not support PKCE with S256, which MCP requires');
  const scopes = prm?.scopes_supported?.length ? prm.scopes_supported : (metadata.scopes_supported ?? []);
  return { metadata, resource: prm?.resource ?? mcpServerUrl, scopes };
}

/** RFC 7591: a public client (`token_endpoint_auth_method: none`) for the authorization-code grant, redirecting to Switchyard. */
export async function registerClient(
  deps: Pick<McpDeps, 'http'>,
  opts: { url: string; redirectUri: string; clientName: string; extra?: Record<string, unknown>; context: RequestContext },
): Promise<z.output<typeof clientInfo>> {
  const res = await deps.http.request({
    method: 'POST',
    baseUrl: opts.url,
    path: '',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      redirect_uris: [opts.redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: opts.clientName,
      ...opts.extra,
    }),
    auth: { type: 'none' },
    context: opts.context,
  });
  let parsed: z.ZodSafeParseResult<z.output<typeof clientInfo>> | undefined;
  try {
    parsed = clientInfo.safeParse(JSON.parse(res.body?.toString('utf8') ?? ''));
  } catch {
    parsed = undefined;
  }
  if (res.status >= 300 || !parsed?.success)
    throw new OAuthError('client_registration_failed', `the registration endpoint answered ${res.status} without a client_id`);
  return parsed.data;
}

/** MCP_OAUTH2: the integration's client, registered on its first connection when the definition says `dynamic`. */
export async function mcpIntegrationClient(
  deps: McpDeps,
  endpoints: Endpoints,
  opts: { redirectUri: string; environmentName: string; context: RequestContext },
): Promise<IntegrationCredentials> {
  const { integration, provider } = endpoints;
  if (integration.credentials) return integration.credentials;
  const def = provider.definition;
  if (def.client_registration !== 'dynamic' || !def.registration_url)
    throw new OAuthError('missing_credentials', `Integration ${integration.uniqueKey} has no OAuth client id and secret (its Authorization tab)`);
  // Nango's: only these registration_params go in the request.
  const extra = Object.fromEntries(Object.entries(def.registration_params ?? {}).filter(([k]) => k === 'response_types' || k === 'grant_types'));
  const client = await registerClient(deps, {
    url: checkedUrl(deps, def.registration_url, 'registration_url').href,
    redirectUri: opts.redirectUri,
    clientName: `Switchyard - ${opts.environmentName} - ${provider.displayName}`,
    extra,
    context: opts.context,
  });
  const stored = await setCredentialsIfNone(deps.db, deps.box, integration.id, {
    type: 'OAUTH2',
    client_id: client.client_id,
    client_secret: client.client_secret ?? '',
  });
  if (!stored) throw new OAuthError('client_registration_failed', `Integration ${integration.uniqueKey} no longer exists`);
  return stored;
}

/**
 * MCP_OAUTH2_GENERIC: discovery and a client registered for this connection. Gives the connection
 * config to keep (Nango's keys; the client without its secret) and the client to authorize with.
 */
export async function mcpGenericClient(
  deps: McpDeps,
  endpoints: Endpoints,
  opts: { redirectUri: string; context: RequestContext },
): Promise<{ connectionConfig: Record<string, unknown>; client: IntegrationCredentials }> {
  const { integration, connectionConfig } = endpoints;
  const mcpServerUrl = connectionConfig.mcp_server_url;
  if (typeof mcpServerUrl !== 'string' || mcpServerUrl === '')
    throw new OAuthError('missing_connection_config', 'connection_config.mcp_server_url is required: the MCP server to connect');
  const found = await discover(deps, mcpServerUrl, opts.context);
  const scopes = found.scopes.join(',');
  let client: IntegrationCredentials;
  if (found.metadata.registration_endpoint) {
    const registered = await registerClient(deps, {
      url: found.metadata.registration_endpoint,
      redirectUri: opts.redirectUri,
      clientName: `Switchyard - ${integration.uniqueKey}`,
      extra: found.scopes.length ? { scope: found.scopes.join(' ') } : {},
      context: opts.context,
    });
    client = { type: 'OAUTH2', client_id: registered.client_id, client_secret: registered.client_secret ?? '', scopes };
  } else if (integration.credentials) {
    client = { type: 'OAUTH2', client_id: integration.credentials.client_id, client_secret: integration.credentials.client_secret, scopes };
  } else {
    throw new OAuthError('client_registration_failed', 'the authorization server offers no dynamic client registration and the integration has no client id');
  }
  return {
    client,
    connectionConfig: {
      ...connectionConfig,
      mcp_server_url: mcpServerUrl,
      oauth_metadata: JSON.stringify(found.metadata),
      oauth_client_info: JSON.stringify({ client_id: client.client_id }),
      oauth_resource_url: found.resource,
    },
  };
}

/** Where an OAuth session keeps, encrypted, a secret the MCP server issued with a connection's client until the callback. */
const SESSION_SECRET_KEY = 'oauth_client_secret_enc';
const sessionSecretAad = (state: string) => rowAad('oauth_sessions', SESSION_SECRET_KEY, state);

/**
 * The client an authorization-code flow starts with, and the connection config and endpoints it goes
 * on with: OAuth 2's integration client; MCP_OAUTH2's (registered now when it is the first); an
 * MCP_OAUTH2_GENERIC connection's own, from discovery.
 */
export async function authorizationClient(
  deps: McpDeps,
  endpoints: Endpoints,
  opts: { redirectUri: string; state: string; environmentName: string; context: RequestContext },
): Promise<{ client: IntegrationCredentials; connectionConfig: Record<string, unknown>; endpoints: Endpoints }> {
  const { integration, provider } = endpoints;
  if (provider.authMode === 'MCP_OAUTH2')
    return { client: await mcpIntegrationClient(deps, endpoints, opts), connectionConfig: endpoints.connectionConfig, endpoints };
  if (provider.authMode === 'MCP_OAUTH2_GENERIC') {
    const { client, connectionConfig } = await mcpGenericClient(deps, endpoints, opts);
    // A secret of the integration's own client stays with the integration.
    const secret = client.client_secret !== '' && client.client_secret !== integration.credentials?.client_secret;
    const kept = secret
      ? { ...connectionConfig, [SESSION_SECRET_KEY]: deps.box.encrypt(client.client_secret, sessionSecretAad(opts.state)) }
      : connectionConfig;
    return { client, connectionConfig: kept, endpoints: endpointsOfConfig(deps.allowedPrivateHosts, provider, integration, connectionConfig) };
  }
  if (!integration.credentials)
    throw new BadRequest('missing_credentials', `Integration ${integration.uniqueKey} has no OAuth client id and secret (its Authorization tab)`);
  return { client: integration.credentials, connectionConfig: endpoints.connectionConfig, endpoints };
}

/**
 * At the callback: the flow's client, the connection config to keep (the session's secret taken out)
 * and, for a connection's own client with a secret, the credentials' `config_override` that keeps it encrypted.
 */
export function callbackClient(
  box: SecretBox,
  endpoints: Endpoints,
  session: { id: string; connectionConfig: Record<string, unknown> },
): { client: IntegrationCredentials | null; connectionConfig: Record<string, unknown>; override?: { client_id: string; client_secret: string } } {
  const { [SESSION_SECRET_KEY]: sealed, ...connectionConfig } = session.connectionConfig;
  const clientId = registeredClientId(connectionConfig);
  const override =
    typeof sealed === 'string' && clientId ? { client_id: clientId, client_secret: box.decrypt(sealed, sessionSecretAad(session.id)) } : undefined;
  return {
    client: oauthClientOf(endpoints.integration, endpoints.provider.authMode, connectionConfig, override),
    connectionConfig,
    ...(override && { override }),
  };
}
