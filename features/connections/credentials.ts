/**
 * @module features/connections/credentials — the credential shapes of connections and integrations,
 * as zod schemas (the single source of their types).
 */
import { z } from 'zod';

/**
 * A PEM block of this kind (`RSA PRIVATE KEY`, `EC PRIVATE KEY` too for keys), re-wrapped at 64
 * columns: a value pasted into a one-line form field arrives without its line breaks.
 */
function pem(kind: 'CERTIFICATE' | 'PRIVATE KEY') {
  const label = kind === 'CERTIFICATE' ? 'CERTIFICATE' : '(?:RSA |EC )?PRIVATE KEY';
  const block = new RegExp(`^\\s*-----BEGIN (${label})-----([A-Za-z0-9+/=\\s]+)-----END \\1-----\\s*$`);
  return z
    .string()
    .max(16384)
    .regex(block, `must be a PEM ${kind.toLowerCase()}`)
    .transform((text) => {
      const [, name, body] = block.exec(text)!;
      const base64 = body!.replace(/\s+/g, '');
      return `-----BEGIN ${name}-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END ${name}-----\n`;
    });
}

export const oauth2Credentials = z
  .object({
    type: z.literal('OAUTH2'),
    access_token: z.string().min(1),
    refresh_token: z.string().min(1).optional(),
    expires_at: z.coerce.date().optional(),
    raw: z.record(z.string(), z.unknown()).optional(),
    config_override: z.object({ client_id: z.string().optional(), client_secret: z.string().optional() }).strict().optional(),
  })
  .strict();

/** OAuth 2 client credentials: the token fetched with the connection's client id and secret (else the integration's), renewed before expiry. */
export const oauth2CcCredentials = z
  .object({
    type: z.literal('OAUTH2_CC'),
    token: z.string().min(1).optional(),
    expires_at: z.coerce.date().optional(),
    client_id: z.string().min(1).max(255).optional(),
    client_secret: z.string().min(1).max(2048).optional(),
    /** Mutual TLS (a definition's `require_client_certificate`): PEM certificate and private key. */
    client_certificate: pem('CERTIFICATE').optional(),
    client_private_key: pem('PRIVATE KEY').optional(),
    raw: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const apiKeyCredentials = z.object({ type: z.literal('API_KEY'), apiKey: z.string().min(1).max(1024) }).strict();

export const basicCredentials = z.object({ type: z.literal('BASIC'), username: z.string(), password: z.string() }).strict();

/**
 * TWO_STEP: the fields the end user entered (the definition's `credentials`, flat as Nango has them)
 * and the token the definition's token request gave for them, requested again before it expires.
 */
export const twoStepCredentials = z
  .object({
    type: z.literal('TWO_STEP'),
    token: z.string().min(1).optional(),
    refresh_token: z.string().min(1).optional(),
    expires_at: z.coerce.date().optional(),
    raw: z.record(z.string(), z.unknown()).optional(),
  })
  .catchall(z.string().max(4096));

/** The fields an end user entered for a TWO_STEP or JWT connection (its credentials without the token). */
export function twoStepFields(c: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(c)) if (!TWO_STEP_OWN.has(k) && typeof v === 'string') out[k] = v;
  return out;
}
const TWO_STEP_OWN = new Set(['type', 'token', 'refresh_token', 'expires_at', 'raw']);

/** JWT: the fields the end user entered (the definition's `credentials`, flat as Nango has them) and the token signed from them. */
export const jwtCredentials = z
  .object({ type: z.literal('JWT'), token: z.string().min(1).optional(), expires_at: z.coerce.date().optional() })
  .catchall(z.string().max(8192));

/** APP (a GitHub App installation): the installation access token, fetched with the app's own signed JWT and renewed before it expires. */
export const appCredentials = z
  .object({
    type: z.literal('APP'),
    access_token: z.string().min(1).optional(),
    expires_at: z.coerce.date().optional(),
    raw: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * CUSTOM (a GitHub App with user authorization, Nango's `github-app-oauth`): Nango's combined shape,
 * the installation token (`app`, what requests carry, renewed before it expires) and the user's
 * OAuth token (`user`; null when GitHub sent no code, as for an installation update).
 */
export const customCredentials = z
  .object({
    type: z.literal('CUSTOM'),
    app: appCredentials.extend({ access_token: z.string().min(1) }),
    user: oauth2Credentials.omit({ config_override: true }).nullable(),
    raw: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * BILL (Bill.com's session login, Nango's names): the sign-in fields, and the `session_id` the login
 * answered, signed in again before it is due or when Bill refuses it.
 */
export const billCredentials = z
  .object({
    type: z.literal('BILL'),
    username: z.string().min(1).max(1024),
    password: z.string().min(1).max(1024),
    organization_id: z.string().min(1).max(255),
    dev_key: z.string().min(1).max(1024),
    session_id: z.string().min(1).max(4096).optional(),
    user_id: z.string().max(255).optional(),
    expires_at: z.coerce.date().optional(),
    raw: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** OAuth 1.0a: the access token and its secret (Nango's names); the consumer key and secret are the integration's. */
export const oauth1Credentials = z
  .object({
    type: z.literal('OAUTH1'),
    oauth_token: z.string().min(1).max(2048),
    oauth_token_secret: z.string().max(2048),
    raw: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** AWS_SIGV4: an access key (and a session token for temporary credentials) every request is signed with. */
export const awsSigV4Credentials = z
  .object({
    type: z.literal('AWS_SIGV4'),
    access_key_id: z.string().min(16).max(128),
    secret_access_key: z.string().min(1).max(256),
    session_token: z.string().min(1).max(4096).optional(),
  })
  .strict();

/**
 * NetSuite token-based authentication (Nango's TBA): the token id and secret the end user created,
 * signed with the integration's consumer key and secret unless the connection overrides them.
 */
export const tbaCredentials = z
  .object({
    type: z.literal('TBA'),
    token_id: z.string().min(1).max(1024),
    token_secret: z.string().min(1).max(1024),
    config_override: z
      .object({ client_id: z.string().min(1).max(1024).optional(), client_secret: z.string().min(1).max(1024).optional() })
      .strict()
      .optional(),
  })
  .strict();

/** SIGNATURE (WSSE): the API user name and secret; each request's signed value is made from them (wsse.ts). */
export const signatureCredentials = z
  .object({ type: z.literal('SIGNATURE'), username: z.string().min(1).max(1024), password: z.string().min(1).max(1024) })
  .strict();

/** A provider that needs no credentials (auth_mode NONE). */
export const noneCredentials = z.object({ type: z.literal('NONE') }).strict();

export const connectionCredentials = z.discriminatedUnion('type', [
  oauth2Credentials,
  oauth2CcCredentials,
  apiKeyCredentials,
  basicCredentials,
  noneCredentials,
  twoStepCredentials,
  jwtCredentials,
  appCredentials,
  awsSigV4Credentials,
  oauth1Credentials,
  tbaCredentials,
  signatureCredentials,
  customCredentials,
  billCredentials,
]);
export type ConnectionCredentials = z.infer<typeof connectionCredentials>;

/** Stored form: dates as ISO strings. */
export type StoredCredentials =
  | (Omit<z.infer<typeof oauth2Credentials>, 'expires_at'> & { expires_at?: string })
  | (Omit<z.infer<typeof oauth2CcCredentials>, 'expires_at'> & { expires_at?: string })
  | z.infer<typeof apiKeyCredentials>
  | z.infer<typeof basicCredentials>
  | z.infer<typeof noneCredentials>
  | StoredTwoStepCredentials
  | StoredJwtCredentials
  | (Omit<z.infer<typeof appCredentials>, 'expires_at'> & { expires_at?: string })
  | z.infer<typeof awsSigV4Credentials>
  | z.infer<typeof oauth1Credentials>
  | z.infer<typeof tbaCredentials>
  | z.infer<typeof signatureCredentials>
  | StoredCustomCredentials
  | (Omit<z.infer<typeof billCredentials>, 'expires_at'> & { expires_at?: string });

type Dated<T extends { expires_at?: unknown }> = Omit<T, 'expires_at'> & { expires_at?: string };

/** CUSTOM as stored: both tokens' dates as ISO strings. */
export interface StoredCustomCredentials {
  type: 'CUSTOM';
  app: Dated<z.infer<typeof customCredentials>['app']>;
  user: Dated<NonNullable<z.infer<typeof customCredentials>['user']>> | null;
  raw?: Record<string, unknown>;
}

/** TWO_STEP as stored: the token and the entered fields side by side (Nango's flat shape). */
export interface StoredTwoStepCredentials {
  type: 'TWO_STEP';
  token?: string;
  refresh_token?: string;
  expires_at?: string;
  raw?: Record<string, unknown>;
  [field: string]: unknown;
}

/** JWT as stored: the token and the entered fields side by side. */
export interface StoredJwtCredentials {
  type: 'JWT';
  token?: string;
  expires_at?: string;
  [field: string]: unknown;
}

const clientCredentials = z
  .object({
    type: z.enum(['OAUTH2', 'OAUTH1', 'TBA']),
    client_id: z.string().min(1).max(255),
    client_secret: z.string().min(1).max(2048),
    scopes: z
      .string()
      .regex(/^$|^[0-9a-zA-Z:/_.*-]+(,[0-9a-zA-Z:/_.*-]+)*$/, 'comma-separated scopes')
      .optional(),
    webhook_secret: z.string().max(2048).optional(),
  })
  .strict();

/** A GitHub App (auth_mode APP), as Nango takes it: its id, public link and private key; kept as the client id and secret. */
const appIntegrationCredentials = z
  .object({
    type: z.literal('APP'),
    app_id: z.string().regex(/^\d{1,20}$/, 'the numeric app id'),
    app_link: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(512),
    private_key: z.string().min(64).max(8192),
    webhook_secret: z.string().max(2048).optional(),
  })
  .strict()
  .transform(({ app_id, app_link, private_key, webhook_secret }) => ({
    type: 'APP' as const,
    client_id: app_id,
    client_secret: private_key,
    app_link: app_link.replace(/\/+$/, ''),
    ...(webhook_secret !== undefined && { webhook_secret }),
  }));

/**
 * A GitHub App with user authorization (auth_mode CUSTOM), as Nango takes it: the app's OAuth client
 * id and secret (the user's token) besides its id, public link and private key (installation tokens).
 */
const customIntegrationCredentials = z
  .object({
    type: z.literal('CUSTOM'),
    client_id: z.string().min(1).max(255),
    client_secret: z.string().min(1).max(2048),
    app_id: z.string().regex(/^\d{1,20}$/, 'the numeric app id'),
    app_link: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(512),
    private_key: z.string().min(64).max(8192),
    webhook_secret: z.string().max(2048).optional(),
  })
  .strict()
  .transform(({ app_link, ...rest }) => ({ ...rest, app_link: app_link.replace(/\/+$/, '') }));

export const integrationCredentials = z.union([clientCredentials, appIntegrationCredentials, customIntegrationCredentials]);
export type IntegrationCredentials =
  | z.infer<typeof clientCredentials>
  | (Omit<z.output<typeof appIntegrationCredentials>, 'scopes'> & { scopes?: undefined })
  | (z.output<typeof customIntegrationCredentials> & { scopes?: undefined });

/** A GitHub App's id and private key (auth modes APP and CUSTOM); null when the integration has none. */
export function githubAppKey(credentials: IntegrationCredentials | null): { appId: string; privateKey: string } | null {
  if (credentials?.type === 'APP') return { appId: credentials.client_id, privateKey: credentials.client_secret };
  if (credentials?.type === 'CUSTOM') return { appId: credentials.app_id, privateKey: credentials.private_key };
  return null;
}
