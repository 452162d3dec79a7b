/**
 * @module bench/delete-check — the deletion detection that ends every full sync (`deleteUnseen`,
 * features/records/store.ts), before and after its fix, on identical data in the same run.
 *
 * A scratch database, migrated and never analyzed (autovacuum off on the two tables), as on a fresh
 * install or for a new connection: N live records and the run's seen ids for 99% of them, then one
 * call of deleteUnseen. "after" is the platform's function; "before" is the same function from the
 * baseline tree (bench/lib/baseline.ts), cut off by statement_timeout where it would run for hours.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ensureDatabase } from '../lib/embedded/postgres.js';
import { migrate } from '../lib/db/migrate.js';
import { createPool, withTransaction, type Db } from '../lib/db/pool.js';
import { deleteUnseen } from '../features/records/store.js';
import { baselineTree } from './lib/baseline.js';
import { numberFlag, type BenchContext } from './lib/context.js';
import { round, type BenchResult, type Row } from './lib/stats.js';

type DeleteUnseen = typeof deleteUnseen;

async function fill(db: Db, n: number): Promise<void> {
  await db.query('TRUNCATE records, sync_seen, sync_run_seen');
  await db.query(
    `INSERT INTO records (connection_pk, model, external_id, data, hash) SELECT 1, 'M', g::text, jsonb_build_object('id', g::text), md5(g::text) FROM generate_series(1, $1) g`,
    [n],
  );
  await db.query(
    `INSERT INTO sync_seen (run_id, connection_pk, model, external_id) SELECT 'run', 1, 'M', g::text FROM generate_series(1, $1) g WHERE g % 100 <> 0`,
    [n],
  );
  // Today's table: the same ids, one row per 1000 (a saved page).
  await db.query(
    `INSERT INTO sync_run_seen (run_id, model, external_ids) SELECT 'run', 'M', array_agg(g::text) FROM generate_series(1, $1) g WHERE g % 100 <> 0 GROUP BY g / 1000`,
    [n],
  );
}

async function timed(db: Db, fn: DeleteUnseen, n: number): Promise<{ ms: number; deleted: number | null; timedOut: boolean }> {
  await fill(db, n);
  const t0 = performance.now();
  try {
    // In a transaction, as completeSyncRun calls it (today's version sets its planner options there).
    const deleted = await withTransaction(db, (tx) => fn(tx, 1, 'M', 'run'));
    return { ms: performance.now() - t0, deleted, timedOut: false };
  } catch (err) {
    if (!/statement timeout/.test((err as Error).message)) throw err;
    return { ms: performance.now() - t0, deleted: null, timedOut: true };
  }
}

export async function deletionCheck(ctx: BenchContext): Promise<BenchResult> {
  const big = numberFlag(ctx, 'records', 100_000);
  const small = numberFlag(ctx, 'delete-check-small', 5000);
  const timeoutMs = numberFlag(ctx, 'delete-check-timeout-ms', 15_000);
  const tree = await baselineTree(path.join(ctx.services.workDir, `delete-check-${randomBytes(3).toString('hex')}`), [
    'write-lane-store',
    'md5-oneshot',
    'records-save',
    'delete-unseen',
  ]);
  const url = await ensureDatabase(ctx.services.databaseServerUrl, `bench_delete_check_${randomBytes(3).toString('hex')}`);
  const db = createPool(`${url}?options=${encodeURIComponent(`-c statement_timeout=${timeoutMs}`)}`, 1);
  try {
    await migrate(db);
    await db.query('ALTER TABLE records DROP CONSTRAINT IF EXISTS records_connection_pk_fkey');
    // The baseline's table of seen ids, one row per record (migration 019 replaced it with sync_run_seen).
    await db.query(
      'CREATE TABLE IF NOT EXISTS sync_seen (run_id text NOT NULL, connection_pk int NOT NULL, model text NOT NULL, external_id text NOT NULL, PRIMARY KEY (run_id, model, external_id))',
    );
    await db.query(
      'ALTER TABLE records SET (autovacuum_enabled = false); ALTER TABLE sync_seen SET (autovacuum_enabled = false); ALTER TABLE sync_run_seen SET (autovacuum_enabled = false)',
    );
    const before: DeleteUnseen | null =
      'root' in tree ? ((await import(path.join(tree.root, 'features/records/store.ts'))) as { deleteUnseen: DeleteUnseen }).deleteUnseen : null;
    const after = deleteUnseen;
    const rows: Row[] = [];
    const details: Record<string, unknown> = { timeoutMs };
    let smallBeforeMs = 0;
    const fmt = (r: { ms: number; timedOut: boolean }) => (r.timedOut ? `> ${round(r.ms / 1000, 0)} s (cancelled)` : r.ms);
    for (const n of [small, big]) {
      const a = await timed(db, after, n);
      ctx.say(`delete-check: ${n} records: after ${a.ms.toFixed(0)} ms (${a.deleted} deleted)`);
      if (!before) {
        rows.push({ metric: `deleteUnseen, ${n} records`, switchyard: a.ms, floor: 'n/a', unit: 'ms' });
        continue;
      }
      const b = await timed(db, before, n);
      ctx.say(`delete-check: ${n} records: before ${b.timedOut ? `cancelled after ${b.ms.toFixed(0)} ms` : `${b.ms.toFixed(0)} ms (${b.deleted} deleted)`}`);
      rows.push({
        metric: `deleteUnseen, ${n} records (floor = before)`,
        switchyard: a.ms,
        floor: fmt(b),
        unit: 'ms',
        ratio: b.timedOut ? undefined : a.ms / b.ms,
      });
      details[`n${n}`] = { afterMs: round(a.ms, 0), beforeMs: round(b.ms, 0), beforeCancelled: b.timedOut, deleted: a.deleted };
      if (n === small && !b.timedOut) smallBeforeMs = b.ms;
      if (n === big && b.timedOut && smallBeforeMs) {
        // O(n²): the small size's time scaled by the square of the size ratio.
        details.beforeExtrapolatedMinutes = round((smallBeforeMs * (big / small) ** 2) / 60_000, 0);
        rows.push({ metric: `  before, extrapolated (n² from ${small})`, switchyard: '', floor: `≈ ${details.beforeExtrapolatedMinutes} min`, unit: '' });
      }
    }
    return {
      name: 'sync-delete-check',
      rows,
      details,
      notes: [
        'fresh tables, never analyzed: the planner has only its default estimates, as for a first big sync',
        ...(before
          ? [`before: the NOT EXISTS planned as a nested-loop anti-join (O(n²)); cancelled at statement_timeout ${timeoutMs / 1000} s`]
          : [`before: ${'unavailable' in tree ? tree.unavailable : ''}`]),
      ],
    };
  } finally {
    await db.end().catch(() => undefined);
  }
}
