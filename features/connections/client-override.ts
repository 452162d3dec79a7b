/**
 * @module features/connections/client-override — Nango's connect-session overrides of an
 * integration's OAuth client (`integrations_config_defaults.<key>.connection_config`
 * `oauth_client_id_override`, `oauth_client_secret_override`, `oauth_scopes_override`). The id and
 * scopes ride in the session's defaults; the secret is taken out of them when the session is created
 * and sealed apart (connect-sessions.ts). The connection made from the session keeps its client in
 * its credentials' `config_override`, encrypted with its tokens, which its refreshes use
 * (mcp-metadata.ts oauthClientOf); the scopes override stays in its connection config, as Nango does.
 */
import type { SecretBox } from '../../lib/crypto.js';
import { clientSecretOverrides, type ConnectSession, type IntegrationDefaults } from './connect-sessions.js';
import type { IntegrationCredentials } from './credentials.js';

export const CLIENT_ID_OVERRIDE = 'oauth_client_id_override';
export const CLIENT_SECRET_OVERRIDE = 'oauth_client_secret_override';
export const SCOPES_OVERRIDE = 'oauth_scopes_override';

export interface ClientOverride {
  client_id?: string;
  client_secret?: string;
}

/** The session defaults without the client secrets, and those secrets by integration key. */
export function withoutClientSecrets(defaults: Record<string, IntegrationDefaults> | undefined): {
  defaults: Record<string, IntegrationDefaults> | null;
  secrets: Record<string, string> | null;
} {
  if (!defaults) return { defaults: null, secrets: null };
  const secrets: Record<string, string> = {};
  const kept: Record<string, IntegrationDefaults> = {};
  for (const [key, value] of Object.entries(defaults)) {
    const { [CLIENT_SECRET_OVERRIDE]: secret, ...config } = value.connection_config ?? {};
    if (typeof secret === 'string') secrets[key] = secret;
    kept[key] = value.connection_config ? { ...value, connection_config: config } : value;
  }
  return { defaults: kept, secrets: Object.keys(secrets).length ? secrets : null };
}

/** The OAuth client a session overrides for an integration; undefined when it overrides none. */
export function sessionClientOverride(box: SecretBox, session: ConnectSession, key: string): ClientOverride | undefined {
  const id = session.integrationsConfigDefaults?.[key]?.connection_config?.[CLIENT_ID_OVERRIDE];
  const secret = clientSecretOverrides(box, session)[key];
  if (typeof id !== 'string' && secret === undefined) return undefined;
  return { ...(typeof id === 'string' && { client_id: id }), ...(secret !== undefined && { client_secret: secret }) };
}

/** The scopes a session overrides for an integration (comma-separated, as the integration's own). */
export function sessionScopesOverride(session: ConnectSession, key: string): string | undefined {
  const scopes = session.integrationsConfigDefaults?.[key]?.connection_config?.[SCOPES_OVERRIDE];
  return typeof scopes === 'string' ? scopes : undefined;
}

/** The integration's client with what a connection or session overrides of it. */
export function overriddenClient(client: IntegrationCredentials | null, override: ClientOverride | undefined): IntegrationCredentials | null {
  if (!override?.client_id && override?.client_secret === undefined) return client;
  if (client?.type === 'APP') return client;
  return {
    ...(client ?? { type: 'OAUTH2' as const }),
    client_id: override.client_id ?? client?.client_id ?? '',
    client_secret: override.client_secret ?? client?.client_secret ?? '',
  } as IntegrationCredentials;
}

/** A connection config without the client overrides (kept in the credentials instead). */
export function withoutClientOverrides(config: Record<string, unknown>): Record<string, unknown> {
  const { [CLIENT_ID_OVERRIDE]: _id, [CLIENT_SECRET_OVERRIDE]: _secret, ...rest } = config;
  return rest;
}
