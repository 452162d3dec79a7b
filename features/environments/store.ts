/**
 * @module features/environments/store — environments and their secret keys (stored as SHA-256 hashes).
 */
import { randomUUID } from 'node:crypto';
import { constantTimeEqual, sha256Hex } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';

export interface Environment {
  id: number;
  uuid: string;
  name: string;
}

const COLUMNS = 'id, uuid, name';

export async function findEnvironmentBySecretKey(db: Queryable, secretKey: string): Promise<Environment | null> {
  const hash = sha256Hex(secretKey);
  const { rows } = await db.query<Environment & { secret_key_hash: string }>(
    `SELECT ${COLUMNS}, secret_key_hash FROM environments WHERE secret_key_hash = $1`,
    [hash],
  );
  const row = rows[0];
  if (!row || !constantTimeEqual(row.secret_key_hash, hash)) return null;
  return { id: row.id, uuid: row.uuid, name: row.name };
}

export async function findEnvironmentByName(db: Queryable, name: string): Promise<Environment | null> {
  const { rows } = await db.query<Environment>(`SELECT ${COLUMNS} FROM environments WHERE name = $1`, [name]);
  return rows[0] ?? null;
}

export async function findEnvironmentByUuid(db: Queryable, uuid: string): Promise<Environment | null> {
  const { rows } = await db.query<Environment>(`SELECT ${COLUMNS} FROM environments WHERE uuid = $1`, [uuid]);
  return rows[0] ?? null;
}

export async function listEnvironments(db: Queryable): Promise<Environment[]> {
  const { rows } = await db.query<Environment>(`SELECT ${COLUMNS} FROM environments ORDER BY id`);
  return rows;
}

/** Creates the environment with this key, or points an existing one at this key. */
export async function upsertEnvironmentKey(db: Queryable, name: string, secretKey: string): Promise<Environment> {
  const { rows } = await db.query<Environment>(
    `INSERT INTO environments (uuid, name, secret_key_hash) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET secret_key_hash = EXCLUDED.secret_key_hash, updated_at = now()
     RETURNING ${COLUMNS}`,
    [randomUUID(), name, sha256Hex(secretKey)],
  );
  return rows[0]!;
}

export async function createEnvironmentIfMissing(db: Queryable, name: string, secretKey: string): Promise<{ env: Environment; created: boolean }> {
  const { rows } = await db.query<Environment>(
    `INSERT INTO environments (uuid, name, secret_key_hash) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
    [randomUUID(), name, sha256Hex(secretKey)],
  );
  if (rows[0]) return { env: rows[0], created: true };
  return { env: (await findEnvironmentByName(db, name))!, created: false };
}

/** The environment's name (task queues, search attributes, webhook payloads and metric labels carry it). */
export async function environmentNameById(db: Queryable, id: number): Promise<string | undefined> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM environments WHERE id = $1', [id]);
  return rows[0]?.name;
}

export async function findEnvironmentById(db: Queryable, id: number): Promise<Environment | null> {
  const { rows } = await db.query<Environment>(`SELECT ${COLUMNS} FROM environments WHERE id = $1`, [id]);
  return rows[0] ?? null;
}
