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

/** A provider that needs no credentials (auth_mode NONE). */
export const noneCredentials = z.object({ type: z.literal('NONE') }).strict();

export const connectionCredentials = z.discriminatedUnion('type', [
  oauth2Credentials,
  oauth2CcCredentials,
  apiKeyCredentials,
  basicCredentials,
  noneCredentials,
]);
export type ConnectionCredentials = z.infer<typeof connectionCredentials>;

/** Stored form: dates as ISO strings. */
export type StoredCredentials =
  | (Omit<z.infer<typeof oauth2Credentials>, 'expires_at'> & { expires_at?: string })
  | (Omit<z.infer<typeof oauth2CcCredentials>, 'expires_at'> & { expires_at?: string })
  | z.infer<typeof apiKeyCredentials>
  | z.infer<typeof basicCredentials>
  | z.infer<typeof noneCredentials>;

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
