/**
 * @module features/environments/api-keys — an environment's API keys besides its default secret
 * key: a display name unique in the environment, scopes, and a secret (a UUID v4 like the default
 * key) found by its SHA-256 and kept encrypted for the key's owner to read again.
 */
import { randomUUID } from 'node:crypto';
import { constantTimeEqual, newSecretKey, rowAad, sha256Hex, type SecretBox } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';
import { reserveRowId } from '../../lib/db/row-ids.js';

export interface ApiKey {
  id: number;
  uuid: string;
  environmentId: number;
  displayName: string;
  scopes: string[];
  lastUsedAt: Date | null;
  createdAt: Date;
}

interface Row {
  id: number;
  uuid: string;
  environment_id: number;
  display_name: string;
  scopes: string[];
  secret_hash: string;
  secret_enc: string;
  last_used_at: Date | null;
  created_at: Date;
}

const secretAad = (id: number) => rowAad('api_keys', 'secret_enc', id);

function fromRow(r: Row): ApiKey {
  return {
    id: r.id,
    uuid: r.uuid,
    environmentId: r.environment_id,
    displayName: r.display_name,
    scopes: r.scopes,
    lastUsedAt: r.last_used_at,
    createdAt: r.created_at,
  };
}

/** Null when the environment already has a key of this name. */
export async function createApiKey(
  db: Queryable,
  box: SecretBox,
  input: { environmentId: number; displayName: string; scopes: readonly string[] },
): Promise<(ApiKey & { secret: string }) | null> {
  const id = await reserveRowId(db, 'api_keys');
  const secret = newSecretKey();
  const { rows } = await db.query<Row>(
    `INSERT INTO api_keys (id, uuid, environment_id, display_name, scopes, secret_hash, secret_enc) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (environment_id, display_name) DO NOTHING RETURNING *`,
    [id, randomUUID(), input.environmentId, input.displayName, [...input.scopes], sha256Hex(secret), box.encrypt(secret, secretAad(id))],
  );
  return rows[0] ? { ...fromRow(rows[0]), secret } : null;
}

export async function listApiKeys(db: Queryable, environmentId: number, displayName?: string): Promise<ApiKey[]> {
  const { rows } = await db.query<Row>(`SELECT * FROM api_keys WHERE environment_id = $1 AND ($2::text IS NULL OR display_name = $2) ORDER BY id`, [
    environmentId,
    displayName ?? null,
  ]);
  return rows.map(fromRow);
}

/** By its uuid or its numeric id, with its secret. */
export async function getApiKey(
  db: Queryable,
  box: SecretBox,
  environmentId: number,
  key: { uuid: string } | { id: number },
): Promise<(ApiKey & { secret: string }) | null> {
  const { rows } = await db.query<Row>(`SELECT * FROM api_keys WHERE environment_id = $1 AND ${'uuid' in key ? 'uuid = $2' : 'id = $2'}`, [
    environmentId,
    'uuid' in key ? key.uuid : key.id,
  ]);
  const row = rows[0];
  return row ? { ...fromRow(row), secret: box.decrypt(row.secret_enc, secretAad(row.id)) } : null;
}

export async function deleteApiKey(db: Queryable, environmentId: number, key: { uuid: string } | { id: number }): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM api_keys WHERE environment_id = $1 AND ${'uuid' in key ? 'uuid = $2' : 'id = $2'}`, [
    environmentId,
    'uuid' in key ? key.uuid : key.id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** The key with this secret, compared in constant time after the hash lookup. */
export async function findApiKeyBySecret(db: Queryable, secret: string): Promise<ApiKey | null> {
  const hash = sha256Hex(secret);
  const { rows } = await db.query<Row>('SELECT * FROM api_keys WHERE secret_hash = $1', [hash]);
  const row = rows[0];
  return row && constantTimeEqual(row.secret_hash, hash) ? fromRow(row) : null;
}

/** Records a use; the caller keeps this to about once a minute per key. */
export async function touchApiKey(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [id]);
}
