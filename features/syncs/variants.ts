/**
 * @module features/syncs/variants — a sync's variants (Nango's sync variants): further instances of one
 * sync on one connection, each with its own schedule, state, checkpoint and records, created and
 * deleted through the API. An instance is named as Nango's wire format names it: the sync's name for
 * the base variant, `name::variant` for another. That name keys the instance's state
 * (`sync_states.sync_name`, `sync_runs.sync_name`) and its schedule (`syncScheduleId`), so no table
 * changes; script names and variants have no `:`, so the name is unambiguous. A variant's records
 * are kept under `Model::variant`, as Nango's records service keeps them.
 */
import { z } from 'zod';
import { withTransaction, type Db, type Queryable } from '../../lib/db/pool.js';
import { emptyCache } from '../records/store.js';

export const BASE_VARIANT = 'base';

export const variantNameSchema = z
  .string()
  .regex(/^[a-zA-Z0-9_-]+$/, 'a variant has letters, digits, _ and - only')
  .max(255);

export interface SyncInstance {
  name: string;
  variant: string;
}

/** The instance's name: the sync's name for the base variant, else `name::variant`. */
export function instanceName(name: string, variant: string = BASE_VARIANT): string {
  return variant === BASE_VARIANT ? name : `${name}::${variant}`;
}

/** The sync and variant an instance name (or a `name::variant` of Nango's wire format) stands for. */
export function parseInstance(instance: string): SyncInstance {
  const at = instance.indexOf('::');
  return at < 0 ? { name: instance, variant: BASE_VARIANT } : { name: instance.slice(0, at), variant: instance.slice(at + 2) || BASE_VARIANT };
}

/** Where a variant's records of a model are kept: the model itself for the base variant, else `Model::variant`. */
export function storedModel(model: string, variant: string): string {
  return variant === BASE_VARIANT ? model : `${model}::${variant}`;
}

/** The variants (other than base) that exist for the connection, by sync name. */
export async function variantsOf(db: Queryable, connectionPk: number): Promise<Map<string, string[]>> {
  const { rows } = await db.query<{ sync_name: string }>(
    `SELECT sync_name FROM sync_states WHERE connection_pk = $1 AND sync_name LIKE '%::%' ORDER BY sync_name`,
    [connectionPk],
  );
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const { name, variant } = parseInstance(r.sync_name);
    out.set(name, [...(out.get(name) ?? []), variant]);
  }
  return out;
}

/** Every instance with state on the connection (base and variants), by instance name. */
export async function instancesOf(db: Queryable, connectionPk: number): Promise<string[]> {
  const { rows } = await db.query<{ sync_name: string }>('SELECT sync_name FROM sync_states WHERE connection_pk = $1', [connectionPk]);
  return rows.map((r) => r.sync_name);
}

/** Creates the variant's state (RUNNING); false when it exists already. */
export async function createVariant(db: Queryable, connectionPk: number, name: string, variant: string): Promise<boolean> {
  const { rowCount } = await db.query(`INSERT INTO sync_states (connection_pk, sync_name, status) VALUES ($1, $2, 'RUNNING') ON CONFLICT DO NOTHING`, [
    connectionPk,
    instanceName(name, variant),
  ]);
  return (rowCount ?? 0) > 0;
}

/** Deletes the variant's state, runs and records; false when it did not exist. */
export async function deleteVariant(db: Db, connectionPk: number, name: string, variant: string, models: string[]): Promise<boolean> {
  const instance = instanceName(name, variant);
  return withTransaction(db, async (tx) => {
    const { rowCount } = await tx.query('DELETE FROM sync_states WHERE connection_pk = $1 AND sync_name = $2', [connectionPk, instance]);
    await tx.query('DELETE FROM sync_runs WHERE connection_pk = $1 AND sync_name = $2', [connectionPk, instance]);
    await emptyCache(
      tx,
      connectionPk,
      models.map((m) => storedModel(m, variant)),
    );
    return (rowCount ?? 0) > 0;
  });
}
