/**
 * @module db/pool — the Postgres pool and a transaction helper.
 */
import pg from 'pg';

export type Db = pg.Pool;
export type DbClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'>;

// Return bigint (int8) columns as numbers: our counters and cursors stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function createPool(connectionString: string, max = 10): Db {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
  // An idle client's error (e.g. the server restarting) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

export async function withTransaction<T>(db: Db, fn: (client: DbClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** A round trip to the database (the health check). */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
