/**
 * @module features/environments/store — environments and their secret keys (stored as SHA-256 hashes).
 */
import { randomUUID } from 'node:crypto';
import { constantTimeEqual, newSecretKey, sha256Hex } from '../../lib/crypto.js';
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
    `INSERT INTO environments (uuid, name, secret_key_hash, is_production) VALUES ($1, $2, $3, $2 = 'prod')
     ON CONFLICT (name) DO UPDATE SET secret_key_hash = EXCLUDED.secret_key_hash, updated_at = now()
     RETURNING ${COLUMNS}`,
    [randomUUID(), name, sha256Hex(secretKey)],
  );
  return rows[0]!;
}

export async function createEnvironmentIfMissing(db: Queryable, name: string, secretKey: string): Promise<{ env: Environment; created: boolean }> {
  const { rows } = await db.query<Environment>(
    `INSERT INTO environments (uuid, name, secret_key_hash, is_production) VALUES ($1, $2, $3, $2 = 'prod')
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

/** The environments every deployment has; they cannot be deleted. */
export const DEFAULT_ENVIRONMENTS = ['dev', 'prod'] as const;
/** `prod` is always a production environment (as in Nango). */
export const PROD_ENVIRONMENT = 'prod';

export interface EnvironmentListing extends Environment {
  isProduction: boolean;
}

export async function listEnvironmentsWithFlags(db: Queryable, name?: string): Promise<EnvironmentListing[]> {
  const { rows } = await db.query<Environment & { is_production: boolean }>(
    `SELECT ${COLUMNS}, is_production FROM environments WHERE ($1::text IS NULL OR name = $1) ORDER BY id`,
    [name ?? null],
  );
  return rows.map((r) => ({ id: r.id, uuid: r.uuid, name: r.name, isProduction: r.is_production }));
}

/** A new environment with a new default secret key (shown to nobody: its API keys are made apart). Null when the name is taken. */
export async function createEnvironment(db: Queryable, input: { name: string; isProduction: boolean }): Promise<Environment | null> {
  const { rows } = await db.query<Environment>(
    `INSERT INTO environments (uuid, name, secret_key_hash, is_production) VALUES ($1, $2, $3, $4)
     ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
    [randomUUID(), input.name, sha256Hex(newSecretKey()), input.isProduction],
  );
  return rows[0] ?? null;
}

/** Deletes the row; every row of the environment goes with it (ON DELETE CASCADE). */
export async function deleteEnvironmentRow(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM environments WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}
