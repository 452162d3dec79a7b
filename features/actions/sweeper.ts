/**
 * @module features/actions/sweeper — reconciles action runs left `running` with no workflow to finish them:
 * the API died between the run's row and its workflow's start (no caller has the run's id: the
 * answer comes after the start), or the workflow ended without recording a result (terminated,
 * timed out). Such runs are failed, never started late: a caller who got no answer may have
 * retried, and a late start would repeat the write at the provider.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Db } from '../../lib/db/pool.js';
import { finishActionRun, type ActionFailure } from './runs.js';
import { actionWorkflowId, workflowHandle } from '../../workflows/contracts.js';
import { runPeriodically } from '../../lib/periodic.js';
import { pruneWriteMarks, WRITE_MARK_RETENTION_MS } from '../scripts/write-marks.js';

export interface ActionRunSweeperDeps {
  db: Db;
  temporal: Client;
  log?: { warn(obj: object, msg: string): void };
}

export interface ActionRunSweeperOptions {
  intervalMs?: number;
  /** Leave younger runs to the API, which is probably starting their workflow right now. */
  minAgeMs?: number;
  batch?: number;
}

const NEVER_STARTED: ActionFailure = {
  status: 500,
  code: 'action_not_started',
  message: 'The action never started: the API stopped before starting its workflow. Nothing was sent to the provider.',
};
const ENDED_UNRECORDED: ActionFailure = {
  status: 500,
  code: 'action_workflow_ended',
  message: "The action's workflow ended (terminated or timed out) before it recorded a result.",
};

/** What Temporal says of the run's workflow: still running, ended, or never started. */
async function workflowOf(deps: ActionRunSweeperDeps, envName: string, runId: string): Promise<'running' | 'ended' | 'missing'> {
  try {
    const d = await workflowHandle(deps.temporal, 'actionWorkflow', actionWorkflowId(envName, runId)).describe();
    return d.status.name === 'RUNNING' ? 'running' : 'ended';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'missing';
    throw err;
  }
}

/** One pass: fails the running runs older than `minAgeMs` that no workflow will finish. Returns how many. */
export async function sweepStrandedActionRuns(deps: ActionRunSweeperDeps, opts: ActionRunSweeperOptions = {}): Promise<number> {
  const { rows } = await deps.db.query<{ id: string; env_name: string }>(
    `SELECT r.id, e.name AS env_name FROM action_runs r JOIN environments e ON e.id = r.environment_id
     WHERE r.status = 'running' AND r.created_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY r.created_at LIMIT $2`,
    [opts.minAgeMs ?? 60_000, opts.batch ?? 100],
  );
  let failed = 0;
  for (const r of rows) {
    let workflow: Awaited<ReturnType<typeof workflowOf>>;
    try {
      workflow = await workflowOf(deps, r.env_name, r.id);
    } catch (err) {
      deps.log?.warn({ err, actionRunId: r.id }, 'action run sweeper could not describe a workflow');
      break; // Temporal is likely down: try again next tick
    }
    if (workflow === 'running') continue;
    // Only a run still `running` changes: one the workflow recorded meanwhile keeps its result.
    if (await finishActionRun(deps.db, r.id, { error: workflow === 'missing' ? NEVER_STARTED : ENDED_UNRECORDED })) failed++;
  }
  return failed;
}

/** Runs sweepStrandedActionRuns every 30 s (unref'd), and prunes the script runs' old write marks. Returns the stop function. */
export function startActionRunSweeper(deps: ActionRunSweeperDeps, opts: ActionRunSweeperOptions = {}): () => void {
  const pass = async () => {
    await pruneWriteMarks(deps.db, new Date(Date.now() - WRITE_MARK_RETENTION_MS));
    return sweepStrandedActionRuns(deps, opts);
  };
  return runPeriodically(pass, opts.intervalMs ?? 30_000, deps.log, 'action run sweeper pass');
}
