/**
 * @module features/webhooks/incoming — authenticates third-party webhooks for providers that do not sign
 * their own (every provider whose plugin does not verify them: integrations/plugins.ts). Each
 * integration has one secret, which the sender proves in either of two ways:
 * - `X-Switchyard-Signature: sha256=<hex>`: HMAC-SHA256 of the raw body with the secret;
 * - a token as the last segment of the URL, for providers that can only be given a URL: the
 *   secret itself (`/webhook/<environment uuid>/<key>/<secret>`), or a connection's own token
 *   (`c<connection row id>.<HMAC of that id with the secret>`).
 * A signed body may name its connection (`connectionId`): only the holder of the secret can sign. A
 * URL is handed to third parties (often by the end user, into their own account's settings), so the
 * integration-wide URL routes to no connection, and a connection's URL only to that connection,
 * whatever the body says.
 * The secret is generated at first use and replaced (at once, with every connection's token) by a rotation.
 */
import { constantTimeEqual, hmacSha256Hex, randomToken, rowAad, type SecretBox } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';

export const SIGNATURE_HEADER = 'X-Switchyard-Signature';

export type IncomingProof = { signature?: string | undefined; urlToken?: string | undefined };

/** How a webhook was proven: the body's HMAC, the integration-wide URL token, or one connection's URL token. */
export type IncomingSender = { by: 'signature' } | { by: 'integration_token' } | { by: 'connection_token'; connectionPk: number };

const CONNECTION_TOKEN = /^c([1-9][0-9]{0,15})\.([0-9a-f]{64})$/;
const connectionMac = (secret: string, connectionPk: number) => hmacSha256Hex(secret, `connection-webhook:${connectionPk}`);

/** The last URL segment that proves a webhook and routes it to this connection only. */
export function connectionWebhookToken(secret: string, connectionPk: number): string {
  return `c${connectionPk}.${connectionMac(secret, connectionPk)}`;
}

const newSecret = () => randomToken(32);
const aadOf = (integrationId: number) => rowAad('integrations', 'incoming_webhook_secret_enc', integrationId);

async function readSecret(db: Queryable, box: SecretBox, integrationId: number): Promise<string | null> {
  const { rows } = await db.query<{ v: string | null }>('SELECT incoming_webhook_secret_enc AS v FROM integrations WHERE id = $1', [integrationId]);
  return rows[0]?.v ? box.decrypt(rows[0].v, aadOf(integrationId)) : null;
}

/** The integration's secret if one was generated (null: none yet; nothing is generated here). */
export async function storedIncomingWebhookSecret(db: Queryable, box: SecretBox, integrationId: number): Promise<string | null> {
  return readSecret(db, box, integrationId);
}

/** The integration's secret; the first call generates it (concurrent first calls agree on one). */
export async function incomingWebhookSecret(db: Queryable, box: SecretBox, integrationId: number): Promise<string> {
  const existing = await readSecret(db, box, integrationId);
  if (existing) return existing;
  await db.query('UPDATE integrations SET incoming_webhook_secret_enc = $2 WHERE id = $1 AND incoming_webhook_secret_enc IS NULL', [
    integrationId,
    box.encrypt(newSecret(), aadOf(integrationId)),
  ]);
  return (await readSecret(db, box, integrationId))!;
}

/** Replaces the secret; webhooks proven with the old one are refused from now on. */
export async function rotateIncomingWebhookSecret(db: Queryable, box: SecretBox, integrationId: number): Promise<string> {
  const secret = newSecret();
  await db.query('UPDATE integrations SET incoming_webhook_secret_enc = $2, updated_at = now() WHERE id = $1', [
    integrationId,
    box.encrypt(secret, aadOf(integrationId)),
  ]);
  return secret;
}

/**
 * How the body is proven by the integration's secret; null: it is not. An integration without a
 * secret yet accepts nothing (no one can know it). Every proof is checked in constant time.
 */
export async function verifyIncomingWebhook(
  db: Queryable,
  box: SecretBox,
  integrationId: number,
  raw: Buffer,
  proof: IncomingProof,
): Promise<IncomingSender | null> {
  const secret = await readSecret(db, box, integrationId);
  if (!secret) return null;
  const given = proof.signature
    ?.trim()
    .toLowerCase()
    .replace(/^sha256=/, '');
  if (given !== undefined && constantTimeEqual(given, hmacSha256Hex(secret, raw))) return { by: 'signature' };
  if (proof.urlToken === undefined) return null;
  if (constantTimeEqual(proof.urlToken, secret)) return { by: 'integration_token' };
  const connection = CONNECTION_TOKEN.exec(proof.urlToken);
  if (!connection) return null;
  const connectionPk = Number(connection[1]);
  return constantTimeEqual(connection[2]!, connectionMac(secret, connectionPk)) ? { by: 'connection_token', connectionPk } : null;
}
