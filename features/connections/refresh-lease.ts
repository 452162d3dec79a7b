/**
 * @module features/connections/refresh-lease — who refreshes a connection's OAuth token now: a row
 * with an expiry (migration 022) instead of a row lock, so that no transaction and no pool client is
 * held while the provider answers. A lease past its expiry may be taken over.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Queryable } from '../../lib/db/pool.js';
import { NotFound } from '../../lib/errors.js';

const FOREIGN_KEY_VIOLATION = '23503';
const FIRST_PAUSE_MS = 25;
const LONGEST_PAUSE_MS = 500;

/** Takes the lease unless another holder has a live one. */
export async function claimRefreshLease(db: Queryable, connectionPk: number, holder: string, ttlMs: number): Promise<boolean> {
  try {
    const { rowCount } = await db.query(
      `INSERT INTO connection_refresh_leases (connection_id, holder, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT (connection_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
       WHERE connection_refresh_leases.expires_at <= now()`,
      [connectionPk, holder, ttlMs / 1000],
    );
    return rowCount === 1;
  } catch (err) {
    if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw new NotFound('not_found', 'Failed to find connection');
    throw err;
  }
}

/** Waits, polling, until nobody holds a live lease on the connection (bounded by the lease's expiry). */
export async function waitForRefreshLease(db: Queryable, connectionPk: number): Promise<void> {
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    const { rowCount } = await db.query('SELECT 1 FROM connection_refresh_leases WHERE connection_id = $1 AND expires_at > now()', [connectionPk]);
    if (!rowCount) return;
    await sleep(pause);
  }
}

/** Inside a transaction: locks the lease row, and tells whether `holder` still has it. */
export async function holdsRefreshLease(tx: Queryable, connectionPk: number, holder: string): Promise<boolean> {
  const { rowCount } = await tx.query('SELECT 1 FROM connection_refresh_leases WHERE connection_id = $1 AND holder = $2 FOR UPDATE', [connectionPk, holder]);
  return rowCount === 1;
}

export async function releaseRefreshLease(db: Queryable, connectionPk: number, holder: string): Promise<void> {
  await db.query('DELETE FROM connection_refresh_leases WHERE connection_id = $1 AND holder = $2', [connectionPk, holder]);
}
