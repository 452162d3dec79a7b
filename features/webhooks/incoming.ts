/**
 * @module features/webhooks/incoming — authenticates third-party webhooks for providers that do not sign
 * their own (every provider whose plugin does not verify them: integrations/plugins.ts). Each
 * integration has one secret, which the sender proves in either of two ways:
 * - `X-Switchyard-Signature: sha256=<hex>`: HMAC-SHA256 of the raw body with the secret;
 * - the secret as the last segment of the URL: `/webhook/<environment uuid>/<key>/<secret>`, for
 *   providers that can only be given a URL.
 * The secret is generated at first use and replaced (at once) by a rotation.
 */
import { constantTimeEqual, hmacSha256Hex, randomToken, rowAad, type SecretBox } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';

export const SIGNATURE_HEADER = 'X-Switchyard-Signature';

export type IncomingProof = { signature?: string | undefined; urlToken?: string | undefined };

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
 * Whether the body is proven by the integration's secret. An integration without a secret yet
 * accepts nothing (no one can know it). Both proofs are checked in constant time.
 */
export async function verifyIncomingWebhook(db: Queryable, box: SecretBox, integrationId: number, raw: Buffer, proof: IncomingProof): Promise<boolean> {
  const secret = await readSecret(db, box, integrationId);
  if (!secret) return false;
  const tokenOk = proof.urlToken !== undefined && constantTimeEqual(proof.urlToken, secret);
  const given = proof.signature
    ?.trim()
    .toLowerCase()
    .replace(/^sha256=/, '');
  const signatureOk = given !== undefined && constantTimeEqual(given, hmacSha256Hex(secret, raw));
  return tokenOk || signatureOk;
}
