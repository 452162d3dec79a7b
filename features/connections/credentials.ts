/**
 * @module features/connections/credentials — the credential shapes of connections and integrations,
 * as zod schemas (the single source of their types).
 */
import { z } from 'zod';

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

/** The fields an end user entered for a TWO_STEP connection (its credentials without the token). */
export function twoStepFields(c: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(c)) if (!TWO_STEP_OWN.has(k) && typeof v === 'string') out[k] = v;
  return out;
}
const TWO_STEP_OWN = new Set(['type', 'token', 'refresh_token', 'expires_at', 'raw']);

/** OAuth 1.0a: the access token and its secret (Nango's names); the consumer key and secret are the integration's. */
export const oauth1Credentials = z
  .object({
    type: z.literal('OAUTH1'),
    oauth_token: z.string().min(1).max(2048),
    oauth_token_secret: z.string().max(2048),
    raw: z.record(z.string(), z.unknown()).optional(),
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
  oauth1Credentials,
  tbaCredentials,
  signatureCredentials,
]);
export type ConnectionCredentials = z.infer<typeof connectionCredentials>;

/** Stored form: dates as ISO strings. */
export type StoredCredentials =
  | (Omit<z.infer<typeof oauth2Credentials>, 'expires_at'> & { expires_at?: string })
  | (Omit<z.infer<typeof oauth2CcCredentials>, 'expires_at'> & { expires_at?: string })
  | z.infer<typeof apiKeyCredentials>
  | z.infer<typeof basicCredentials>
  | z.infer<typeof noneCredentials>
  | z.infer<typeof oauth1Credentials>
  | z.infer<typeof tbaCredentials>
  | z.infer<typeof signatureCredentials>
  | StoredTwoStepCredentials;

/** TWO_STEP as stored: the token and the entered fields side by side (Nango's flat shape). */
export interface StoredTwoStepCredentials {
  type: 'TWO_STEP';
  token?: string;
  refresh_token?: string;
  expires_at?: string;
  raw?: Record<string, unknown>;
  [field: string]: unknown;
}

export const integrationCredentials = z
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
export type IntegrationCredentials = z.infer<typeof integrationCredentials>;
