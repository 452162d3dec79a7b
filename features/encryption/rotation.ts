/**
 * @module features/encryption/rotation — re-encrypts every secret at rest with the current key, while the
 * platform keeps running. Rotation without downtime, in three deploys:
 *   1. add the new key where it can be read: SWITCHYARD_PREVIOUS_ENCRYPTION_KEYS=<new> (current stays old);
 *   2. make it current: SWITCHYARD_ENCRYPTION_KEY=<new>, SWITCHYARD_PREVIOUS_ENCRYPTION_KEYS=<old>;
 *      then run `npm run reencrypt` (this module) until it reports 0 stale values;
 *   3. drop the old key from SWITCHYARD_PREVIOUS_ENCRYPTION_KEYS.
 * Every process can read both keys at every step, so no request fails during the change.
 */
import { rowAad, type SecretBox } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';

/** Every encrypted column: table, primary key, column. */
export const ENCRYPTED_COLUMNS = [
  { table: 'integrations', key: 'id', column: 'credentials_enc' },
  { table: 'integrations', key: 'id', column: 'incoming_webhook_secret_enc' },
  { table: 'connections', key: 'id', column: 'credentials_enc' },
  { table: 'oauth_sessions', key: 'id', column: 'code_verifier_enc' },
  { table: 'connect_sessions', key: 'id', column: 'client_secret_overrides_enc' },
  { table: 'environment_settings', key: 'environment_id', column: 'otlp_headers_enc' },
  { table: 'environment_settings', key: 'environment_id', column: 'webhook_signing_key_enc' },
  { table: 'environment_settings', key: 'environment_id', column: 'previous_signing_key_enc' },
  { table: 'environment_variables', key: 'environment_id', column: 'variables_enc' },
  { table: 'api_keys', key: 'id', column: 'secret_enc' },
] as const;

export interface ReencryptReport {
  reencrypted: number;
  alreadyCurrent: number;
  byColumn: Record<string, number>;
}

/**
 * Rewrites each value not sealed with the current key. A row changed concurrently (its value no
 * longer what was read) is left alone: the writer sealed it with the current key already.
 */
export async function reencryptAll(db: Queryable, box: SecretBox, batchSize = 500): Promise<ReencryptReport> {
  const report: ReencryptReport = { reencrypted: 0, alreadyCurrent: 0, byColumn: {} };
  for (const { table, key, column } of ENCRYPTED_COLUMNS) {
    let after: string | number | null = null;
    let done = 0;
    for (;;) {
      const { rows }: { rows: { k: string | number; v: string }[] } = await db.query(
        `SELECT ${key} AS k, ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL ${after === null ? '' : `AND ${key} > $2`} ORDER BY ${key} LIMIT $1`,
        after === null ? [batchSize] : [batchSize, after],
      );
      if (rows.length === 0) break;
      for (const row of rows) {
        if (!box.isStale(row.v)) {
          report.alreadyCurrent++;
          continue;
        }
        const aad = rowAad(table, column, row.k);
        const fresh = box.encrypt(box.decrypt(row.v, aad), aad);
        const { rowCount } = await db.query(`UPDATE ${table} SET ${column} = $1 WHERE ${key} = $2 AND ${column} = $3`, [fresh, row.k, row.v]);
        done += rowCount ?? 0;
      }
      after = rows[rows.length - 1]!.k;
    }
    report.byColumn[`${table}.${column}`] = done;
    report.reencrypted += done;
  }
  return report;
}

export async function countStale(db: Queryable, box: SecretBox): Promise<number> {
  let stale = 0;
  for (const { table, column } of ENCRYPTED_COLUMNS) {
    const { rows } = await db.query<{ v: string }>(`SELECT ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL`);
    stale += rows.filter((r) => box.isStale(r.v)).length;
  }
  return stale;
}
