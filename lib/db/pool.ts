/**
 * @module db/pool — the Postgres pool and a transaction helper.
 */
import pg from 'pg';

export type Db = pg.Pool;
export type DbClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'>;

// Return bigint (int8) columns as numbers: our counters and cursors stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/** What pg-pool throws when no connection became free (or none could be opened) within the wait. */
const POOL_WAIT_MESSAGES = new Set(['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout']);

/**
 * A pool whose callers wait at most `waitMs` for a connection: a pool held by slow work answers
 * "busy" (isPoolBusy) instead of queueing every other request forever.
 */
export function createPool(connectionString: string, max = 10, waitMs = 15_000): Db {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: waitMs });
  // An idle client's error (e.g. the server restarting) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

export async function withTransaction<T>(db: Db, fn: (client: DbClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  // A checked-out client has no pool listener: if the server goes away between two statements, its
  // 'error' event would crash the process. Keep the error, fail the transaction, and destroy the client.
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.removeListener('error', onError);
    client.release(lost);
  }
}

/** The error of a query that got no pool connection within the pool's wait. */
export function isPoolBusy(err: unknown): boolean {
  return err instanceof Error && POOL_WAIT_MESSAGES.has(err.message);
}

/** The database server's clock (the diagnostics probe: proves a round trip). */
export async function databaseNow(db: Queryable): Promise<Date> {
  const { rows } = await db.query<{ now: Date }>('SELECT now() AS now');
  return rows[0]!.now;
}

/** A round trip to the database (the health check). */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
