/**
 * @module features/connections/mcp-metadata — what an MCP_OAUTH2_GENERIC connection keeps of its
 * discovery, under Nango's connection_config keys (so a connection imported from Nango refreshes
 * here): `mcp_server_url`, `oauth_metadata` (the authorization server's RFC 8414 metadata, as JSON
 * text), `oauth_client_info` (the registered client, as JSON text, without a secret: that goes in the
 * encrypted credentials' `config_override`) and `oauth_resource_url` (RFC 8707's `resource`).
 * Read here without I/O, for the resolver (target.ts) and the token requests.
 */
import { z } from 'zod';
import { overriddenClient } from './client-override.js';
import type { IntegrationCredentials } from './credentials.js';

export const MCP_CONFIG_KEYS = ['oauth_metadata', 'oauth_client_info', 'oauth_resource_url'] as const;

/** A discovered endpoint: an absolute http(s) URL, never a template (a `${` would be read as a placeholder). */
const endpointUrl = z
  .string()
  .max(2048)
  .refine((u) => !u.includes('${') && /^https?:\/\//i.test(u) && URL.canParse(u), 'must be an absolute http(s) URL');

export const authorizationServerMetadata = z
  .object({
    issuer: z.string().max(2048).optional(),
    authorization_endpoint: endpointUrl,
    token_endpoint: endpointUrl,
    registration_endpoint: endpointUrl.optional(),
    scopes_supported: z.array(z.string().max(512)).max(256).optional(),
    code_challenge_methods_supported: z.array(z.string().max(32)).max(16).optional(),
  })
  .catchall(z.unknown());
export type AuthorizationServerMetadata = z.infer<typeof authorizationServerMetadata>;

export const clientInfo = z.object({ client_id: z.string().min(1).max(2048), client_secret: z.string().max(2048).optional() }).catchall(z.unknown());

function parsedJson<T extends z.ZodType>(schema: T, value: unknown): z.output<T> | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The discovered authorization server of a connection's config; undefined before discovery or when it is not valid. */
export function discoveredMetadata(connectionConfig: Record<string, unknown>): AuthorizationServerMetadata | undefined {
  return parsedJson(authorizationServerMetadata, connectionConfig.oauth_metadata);
}

/** The client registered for this connection (its id; a secret is in the credentials). */
export function registeredClientId(connectionConfig: Record<string, unknown>): string | undefined {
  return parsedJson(clientInfo, connectionConfig.oauth_client_info)?.client_id;
}

/** RFC 8707's `resource`, sent with the authorization, token and refresh requests. */
export function resourceParam(connectionConfig: Record<string, unknown>): Record<string, string> {
  const resource = connectionConfig.oauth_resource_url;
  return typeof resource === 'string' && resource !== '' ? { resource } : {};
}

/**
 * The OAuth client of a connection's code exchange and refreshes: an MCP_OAUTH2_GENERIC connection's
 * own registered client (its secret, when the server issued one, from the credentials' `config_override`),
 * else the integration's (OAUTH2, and MCP_OAUTH2's registered or entered client) with what the connection's
 * `config_override` overrides of it.
 */
export function oauthClientOf(
  integration: { credentials: IntegrationCredentials | null },
  authMode: string,
  connectionConfig: Record<string, unknown>,
  override?: { client_id?: string; client_secret?: string },
): IntegrationCredentials | null {
  // A client a connect session overrode (client-override.ts), else the integration's.
  if (authMode !== 'MCP_OAUTH2_GENERIC') return overriddenClient(integration.credentials, override);
  const clientId = override?.client_id ?? registeredClientId(connectionConfig);
  if (!clientId) return integration.credentials;
  return { type: 'OAUTH2', client_id: clientId, client_secret: override?.client_secret ?? '' };
}
