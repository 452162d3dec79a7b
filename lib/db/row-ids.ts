/**
 * @module db/row-ids — the id a new row will get, taken before the insert, so a value can be
 * sealed for its row (crypto rowAad) in the same statement that stores it.
 */
import type { Queryable } from './pool.js';

/** The next value of `table`'s serial `id`; the insert must then set `id` explicitly. */
export async function reserveRowId(db: Queryable, table: 'integrations' | 'connections' | 'api_keys'): Promise<number> {
  const { rows } = await db.query<{ id: string }>(`SELECT nextval(pg_get_serial_sequence('${table}', 'id')) AS id`);
  return Number(rows[0]!.id);
}
