/**
 * @module features/providers/providers — the provider catalogue: for each provider its auth mode, base
 * URL rule, OAuth URLs and scopes, connection-config fields, verification request, how its
 * credentials are sent. (Webhooks a provider signs and routes itself are its plugin's: integrations/plugins.ts.) Facts: shared/providers/FACTS.md.
 */
import { z } from 'zod';

export const authModes = ['OAUTH2', 'API_KEY', 'BASIC'] as const;
export type AuthMode = (typeof authModes)[number];

/** How a connection's credentials go on the wire. */
export type CredentialPlacement = { kind: 'bearer' } | { kind: 'basic-token' } | { kind: 'header'; name: string };

export interface ConnectionConfigField {
  title: string;
  description: string;
  required: boolean;
  pattern?: RegExp;
  /** A URL or host: `http://` is refused unless the host is in SWITCHYARD_ALLOWED_PRIVATE_HOSTS (credentials go there). */
  httpsUnlessAllowListed?: boolean;
}

export interface Provider {
  name: string;
  displayName: string;
  authMode: AuthMode;
  /** Template with `${connectionConfig.x}` placeholders; overridable per integration (`base_url`). */
  baseUrl: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  scopeSeparator?: string;
  defaultScopes?: string[];
  authorizationParams?: Record<string, string>;
  /** Body encoding of the token request. */
  tokenRequestEncoding?: 'form' | 'json';
  pkce?: boolean;
  /** Token-response fields kept in connection_config (e.g. the provider's account id). */
  tokenResponseMetadata?: string[];
  /** Where the access token sits in a non-standard token response (Slack's `access_token` is top level too). */
  refreshable: boolean;
  credentials: CredentialPlacement;
  /**
   * Origins besides the resolved base URL's that may receive the credentials (a script's
   * `baseUrlOverride`, an absolute pagination link); requests elsewhere go without them.
   */
  credentialOrigins?: string[];
  connectionConfig: Record<string, ConnectionConfigField>;
  verification?: { method: 'GET' | 'POST'; path: string };
  docs: string;
}

const metabaseDomain: ConnectionConfigField = {
  title: 'Metabase domain',
  description: 'Your Metabase host (e.g. acme.metabaseapp.com, served over https) or a full base URL',
  required: true,
  pattern: /^(?:https?:\/\/)?[A-Za-z0-9.-]+(?::\d+)?(?:\/[\w./-]*)?$/,
  httpsUnlessAllowListed: true,
};

const checkr = (staging: boolean): Provider => ({
  name: staging ? 'checkr-partner-staging' : 'checkr-partner',
  displayName: staging ? 'Checkr (staging)' : 'Checkr',
  authMode: 'OAUTH2',
  baseUrl: staging ? 'https://api.checkr-staging.com' : 'https://api.checkr.com',
  authorizationUrl: staging ? 'https://partners.checkrhq-staging.net/authorize/${clientId}' : 'https://partners.checkr.com/authorize/${clientId}',
  tokenUrl: staging ? 'https://api.checkr-staging.com/oauth/tokens' : 'https://api.checkr.com/oauth/tokens',
  tokenRequestEncoding: 'form',
  pkce: false,
  tokenResponseMetadata: ['checkr_account_id'],
  refreshable: false,
  credentials: { kind: 'basic-token' },
  connectionConfig: {},
  verification: { method: 'GET', path: '/v1/account' },
  docs: 'Checkr partner app: a long-lived token sent as the HTTP Basic username. Webhooks are signed with the client secret.',
});

export const providers: Record<string, Provider> = {
  metabase: {
    name: 'metabase',
    displayName: 'Metabase',
    authMode: 'API_KEY',
    baseUrl: '${connectionConfig.domain}',
    refreshable: false,
    credentials: { kind: 'header', name: 'x-api-key' },
    connectionConfig: { domain: metabaseDomain },
    verification: { method: 'GET', path: '/api/user/current' },
    docs: 'An API key of the Administrators group, sent as x-api-key to your own Metabase domain.',
  },
  'checkr-partner': checkr(false),
  'checkr-partner-staging': checkr(true),
  slack: {
    name: 'slack',
    displayName: 'Slack',
    authMode: 'OAUTH2',
    baseUrl: 'https://slack.com/api',
    authorizationUrl: 'https://slack.com/oauth/v2/authorize',
    tokenUrl: 'https://slack.com/api/oauth.v2.access',
    scopeSeparator: ',',
    defaultScopes: ['users:read', 'users:read.email', 'chat:write'],
    tokenRequestEncoding: 'form',
    pkce: false,
    tokenResponseMetadata: ['bot_user_id', 'team.id'],
    refreshable: false,
    credentials: { kind: 'bearer' },
    connectionConfig: {},
    verification: { method: 'GET', path: '/auth.test' },
    docs: 'Slack OAuth v2 with bot scopes.',
  },
  'google-drive': {
    name: 'google-drive',
    displayName: 'Google Drive',
    authMode: 'OAUTH2',
    baseUrl: 'https://www.googleapis.com',
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    scopeSeparator: ' ',
    defaultScopes: ['https://www.googleapis.com/auth/drive.readonly'],
    authorizationParams: { access_type: 'offline', prompt: 'consent' },
    tokenRequestEncoding: 'form',
    pkce: true,
    refreshable: true,
    credentials: { kind: 'bearer' },
    connectionConfig: {},
    verification: { method: 'GET', path: '/drive/v3/about?fields=user' },
    docs: 'Google OAuth 2 with offline access: refresh tokens keep the connection alive.',
  },
};

export const providerNames = Object.keys(providers) as [string, ...string[]];

export function getProvider(name: string): Provider | undefined {
  return Object.hasOwn(providers, name) ? providers[name] : undefined;
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

function interpolate(template: string, vars: Record<string, unknown>): string {
  return template.replace(/\$\{([\w.]+)\}/g, (_, key: string) => {
    const value = key.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), vars);
    if (value === undefined || value === null || value === '') throw new MissingConfigValue(key);
    return String(value);
  });
}

export class MissingConfigValue extends Error {
  constructor(readonly key: string) {
    super(`missing ${key}`);
  }
}

/** Metabase's domain is a host (https implied) or a full base URL. */
function normaliseBase(url: string): string {
  const withScheme = /^https?:\/\//i.test(url) ? url : `https://${url}`;
  return withScheme.replace(/\/+$/, '');
}

export function resolveBaseUrl(provider: Provider, integrationConfig: IntegrationConfig, connectionConfig: Record<string, unknown>): string {
  if (provider.name === 'metabase' && integrationConfig.base_url === undefined) {
    return normaliseBase(interpolate(provider.baseUrl, { connectionConfig }));
  }
  return normaliseBase(interpolate(integrationConfig.base_url ?? provider.baseUrl, { connectionConfig }));
}

export function resolveAuthorizationUrl(provider: Provider, integrationConfig: IntegrationConfig, clientId: string): string | undefined {
  const template = integrationConfig.authorization_url ?? provider.authorizationUrl;
  return template ? interpolate(template, { clientId }) : undefined;
}

export function resolveTokenUrl(provider: Provider, integrationConfig: IntegrationConfig): string | undefined {
  return integrationConfig.token_url ?? provider.tokenUrl;
}
