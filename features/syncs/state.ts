/**
 * @module features/syncs/state — sync states and runs in Postgres.
 */
import { withTransaction, type Db, type Queryable } from '../../lib/db/pool.js';
import { deleteUnseen, forgetRun, type DeleteScope } from '../records/store.js';

export type ModelResult = { added: number; updated: number; deleted: number };

export interface SyncState {
  connectionPk: number;
  syncName: string;
  status: 'RUNNING' | 'PAUSED' | 'STOPPED';
  frequencyOverride: string | null;
  checkpoint: unknown;
  runningRunId: string | null;
  lastRunId: string | null;
  lastStatus: 'SUCCESS' | 'ERROR' | 'RUNNING' | null;
  lastResult: Record<string, ModelResult> | null;
  lastError: { type: string; description: string } | null;
  lastStartedAt: Date | null;
  lastFinishedAt: Date | null;
}

interface Row {
  connection_pk: number;
  sync_name: string;
  status: SyncState['status'];
  frequency_override: string | null;
  checkpoint: unknown;
  running_run_id: string | null;
  last_run_id: string | null;
  last_status: SyncState['lastStatus'];
  last_result: SyncState['lastResult'];
  last_error: SyncState['lastError'];
  last_started_at: Date | null;
  last_finished_at: Date | null;
}

function fromRow(r: Row): SyncState {
  return {
    connectionPk: r.connection_pk,
    syncName: r.sync_name,
    status: r.status,
    frequencyOverride: r.frequency_override,
    checkpoint: r.checkpoint,
    runningRunId: r.running_run_id,
    lastRunId: r.last_run_id,
    lastStatus: r.last_status,
    lastResult: r.last_result,
    lastError: r.last_error,
    lastStartedAt: r.last_started_at,
    lastFinishedAt: r.last_finished_at,
  };
}

export async function ensureSyncState(db: Queryable, connectionPk: number, syncName: string, status: SyncState['status'] = 'RUNNING'): Promise<SyncState> {
  await db.query('INSERT INTO sync_states (connection_pk, sync_name, status) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [connectionPk, syncName, status]);
  return (await getSyncState(db, connectionPk, syncName))!;
}

export async function getSyncState(db: Queryable, connectionPk: number, syncName: string): Promise<SyncState | null> {
  const { rows } = await db.query<Row>('SELECT * FROM sync_states WHERE connection_pk = $1 AND sync_name = $2', [connectionPk, syncName]);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function setSyncStatus(db: Queryable, connectionPk: number, syncName: string, status: SyncState['status']): Promise<void> {
  await db.query('UPDATE sync_states SET status = $3 WHERE connection_pk = $1 AND sync_name = $2', [connectionPk, syncName, status]);
}

export async function setFrequencyOverride(db: Queryable, connectionPk: number, syncName: string, frequency: string | null): Promise<void> {
  await db.query('UPDATE sync_states SET frequency_override = $3 WHERE connection_pk = $1 AND sync_name = $2', [connectionPk, syncName, frequency]);
}

/**
 * Claims the sync for a run: succeeds when no other run holds it, or the holder is `stale`
 * (its workflow is no longer running). Never two runs of one sync on one connection.
 */
export async function claimSync(db: Queryable, connectionPk: number, syncName: string, runId: string, staleHolder: string | null): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE sync_states SET running_run_id = $3, last_status = 'RUNNING', last_started_at = now()
     WHERE connection_pk = $1 AND sync_name = $2 AND (running_run_id IS NULL OR running_run_id = $3 OR running_run_id = $4)`,
    [connectionPk, syncName, runId, staleHolder],
  );
  return (rowCount ?? 0) > 0;
}

export async function releaseSync(
  db: Queryable,
  connectionPk: number,
  syncName: string,
  runId: string,
  outcome: { status: 'SUCCESS' | 'ERROR'; result?: Record<string, ModelResult>; error?: SyncState['lastError']; checkpoint?: unknown },
): Promise<void> {
  await db.query(
    `UPDATE sync_states SET running_run_id = NULL, last_run_id = $3, last_status = $4,
       last_result = COALESCE($5::jsonb, last_result), last_error = $6::jsonb, last_finished_at = now(),
       checkpoint = CASE WHEN $7::boolean THEN $8::jsonb ELSE checkpoint END
     WHERE connection_pk = $1 AND sync_name = $2 AND running_run_id = $3`,
    [
      connectionPk,
      syncName,
      runId,
      outcome.status,
      outcome.result ? JSON.stringify(outcome.result) : null,
      outcome.error ? JSON.stringify(outcome.error) : null,
      outcome.checkpoint !== undefined,
      JSON.stringify(outcome.checkpoint ?? null),
    ],
  );
}

export async function resetSync(db: Queryable, connectionPk: number, syncName: string): Promise<void> {
  await db.query('UPDATE sync_states SET checkpoint = NULL WHERE connection_pk = $1 AND sync_name = $2', [connectionPk, syncName]);
}

/** Saves the checkpoint a sync script hands to `ctx.checkpoint.save`. */
export async function saveCheckpoint(db: Queryable, connectionPk: number, syncName: string, checkpoint: unknown): Promise<void> {
  await db.query('UPDATE sync_states SET checkpoint = $3 WHERE connection_pk = $1 AND sync_name = $2', [connectionPk, syncName, JSON.stringify(checkpoint)]);
}

export interface SyncRun {
  id: string;
  connectionPk: number;
  syncName: string;
  mode: 'full' | 'incremental';
  status: string;
  results: Record<string, ModelResult>;
  resume: Record<string, unknown>;
  checkpointFrom: unknown;
  startedAt: Date;
}

export async function createSyncRun(
  db: Queryable,
  r: { id: string; connectionPk: number; syncName: string; mode: SyncRun['mode']; checkpointFrom: unknown },
): Promise<void> {
  await db.query(`INSERT INTO sync_runs (id, connection_pk, sync_name, mode, checkpoint_from) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`, [
    r.id,
    r.connectionPk,
    r.syncName,
    r.mode,
    JSON.stringify(r.checkpointFrom ?? null),
  ]);
}

export async function getSyncRun(db: Queryable, id: string): Promise<SyncRun | null> {
  const { rows } = await db.query<{
    id: string;
    connection_pk: number;
    sync_name: string;
    mode: SyncRun['mode'];
    status: string;
    results: SyncRun['results'];
    resume: SyncRun['resume'];
    checkpoint_from: unknown;
    started_at: Date;
  }>('SELECT * FROM sync_runs WHERE id = $1', [id]);
  const r = rows[0];
  return r
    ? {
        id: r.id,
        connectionPk: r.connection_pk,
        syncName: r.sync_name,
        mode: r.mode,
        status: r.status,
        results: r.results,
        resume: r.resume,
        checkpointFrom: r.checkpoint_from,
        startedAt: r.started_at,
      }
    : null;
}

/** The run's row was deleted (its sync variant was): what it would write now belongs to nothing. */
export class SyncRunGone extends Error {
  constructor(readonly runId: string) {
    super(`sync run ${runId} no longer exists (its sync variant was deleted)`);
  }
}

/**
 * Locks the run's row for the rest of the transaction (deleteVariant deletes it first, so the two
 * never deadlock on records); SyncRunGone when it is gone.
 */
export async function lockSyncRun(db: Queryable, runId: string): Promise<void> {
  const { rowCount } = await db.query('SELECT 1 FROM sync_runs WHERE id = $1 FOR SHARE', [runId]);
  if (!rowCount) throw new SyncRunGone(runId);
}

/** Adds to the run's per-model counters. */
export async function addRunResult(db: Queryable, runId: string, model: string, delta: Partial<ModelResult>): Promise<void> {
  await db.query(
    `UPDATE sync_runs SET results = jsonb_set(results, ARRAY[$2::text], jsonb_build_object(
       'added', COALESCE((results->$2->>'added')::int, 0) + $3,
       'updated', COALESCE((results->$2->>'updated')::int, 0) + $4,
       'deleted', COALESCE((results->$2->>'deleted')::int, 0) + $5)) WHERE id = $1`,
    [runId, model, delta.added ?? 0, delta.updated ?? 0, delta.deleted ?? 0],
  );
}

export async function saveResumePosition(db: Queryable, runId: string, key: string, position: unknown): Promise<void> {
  await db.query(`UPDATE sync_runs SET resume = jsonb_set(resume, ARRAY[$2::text], $3::jsonb) WHERE id = $1`, [runId, key, JSON.stringify(position)]);
}

export async function addInvalid(db: Queryable, runId: string, model: string, problems: unknown[]): Promise<void> {
  await db.query(`UPDATE sync_runs SET invalid = invalid || $2::jsonb WHERE id = $1`, [
    runId,
    JSON.stringify(problems.slice(0, 50).map((p) => ({ model, ...(p as object) }))),
  ]);
}

export async function finishSyncRun(db: Queryable, runId: string, status: 'SUCCESS' | 'ERROR', error?: unknown): Promise<void> {
  await db.query(`UPDATE sync_runs SET status = $2, error = $3, finished_at = now() WHERE id = $1`, [runId, status, error ? JSON.stringify(error) : null]);
}

/**
 * Notes a script's deletion detection for a model on its run: `track` (trackDeletesStart: the
 * script takes charge of the model's deletions) or `sweep` (trackDeletesEnd,
 * deleteRecordsFromPreviousExecutions: records not saved in the run go when it finishes).
 */
export async function noteRunDeletes(db: Queryable, runId: string, model: string, what: 'track' | 'sweep'): Promise<void> {
  await db.query(
    `UPDATE sync_runs SET delete_tracked = CASE WHEN $2 = ANY(delete_tracked) THEN delete_tracked ELSE delete_tracked || $2 END,
       delete_swept = CASE WHEN $3::boolean AND NOT $2 = ANY(delete_swept) THEN delete_swept || $2 ELSE delete_swept END
     WHERE id = $1`,
    [runId, model, what === 'sweep'],
  );
}

/** The scopes of the run's deletion detection, by model as stored (features/records/delete-scope.ts), once its script has ended. */
export async function noteDeleteScopes(db: Queryable, runId: string, scopes: Record<string, DeleteScope>): Promise<void> {
  await db.query('UPDATE sync_runs SET delete_scopes = $2 WHERE id = $1', [runId, scopes]);
}

/** One log line of the run's script (capped per run by the sandbox bridge). */
export async function appendSyncRunLog(db: Queryable, runId: string, entry: { level: string; message: string; fields?: unknown }): Promise<void> {
  await db.query(`UPDATE sync_runs SET logs = logs || jsonb_build_array($2::jsonb) WHERE id = $1`, [
    runId,
    JSON.stringify({ at: new Date().toISOString(), ...entry }),
  ]);
}

/** When the last successful run of the sync started (Nango's `lastSyncDate`). */
export async function lastSuccessfulRunStart(db: Queryable, connectionPk: number, syncName: string): Promise<Date | null> {
  const { rows } = await db.query<{ started_at: Date }>(
    `SELECT started_at FROM sync_runs WHERE connection_pk = $1 AND sync_name = $2 AND status = 'SUCCESS' ORDER BY started_at DESC LIMIT 1`,
    [connectionPk, syncName],
  );
  return rows[0]?.started_at ?? null;
}

/**
 * Marks a run done, once: first tombstones per model the records it did not see, counts them, and
 * forgets its seen ids — all in the transaction that marks it done. The models swept are those the
 * script named (deleteRecordsFromPreviousExecutions / trackDeletesEnd) when it named any (with
 * trackDeletesStart too), else every model of a full run; `storedModel` says where the instance keeps a
 * model's records (a variant's, features/syncs/variants.ts). A worker that dies midway leaves
 * nothing behind, and a retry of a run already done changes nothing (false).
 */
export async function completeSyncRun(db: Db, runId: string, models: string[], storedModel: (model: string) => string = (m) => m): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    const { rows } = await tx.query<{
      status: string;
      mode: SyncRun['mode'];
      connection_pk: number;
      delete_tracked: string[];
      delete_swept: string[];
      delete_scopes: Record<string, DeleteScope>;
    }>('SELECT status, mode, connection_pk, delete_tracked, delete_swept, delete_scopes FROM sync_runs WHERE id = $1 FOR UPDATE', [runId]);
    const run = rows[0];
    if (!run || run.status !== 'RUNNING') return false;
    const explicit = run.delete_tracked.length > 0;
    const swept = explicit ? models.filter((m) => run.delete_swept.includes(m)) : run.mode === 'full' ? models : [];
    for (const model of swept) {
      const deleted = await deleteUnseen(tx, run.connection_pk, storedModel(model), runId, run.delete_scopes[storedModel(model)]);
      if (deleted) await addRunResult(tx, runId, model, { deleted });
    }
    await forgetRun(tx, runId);
    await finishSyncRun(tx, runId, 'SUCCESS');
    return true;
  });
}
