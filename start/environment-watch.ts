/**
 * @module start/environment-watch — keeps a worker process polling the task queue of every
 * environment: at once when Postgres announces an environment created or deleted (migration 028's
 * trigger, through the change feed), and every 30 s in case a notice was lost (the LISTEN
 * connection down). Used when SWITCHYARD_WORKER_ENVIRONMENTS is unset.
 */
import type { ChangeFeed } from '../lib/db/change-feed.js';
import type { Queryable } from '../lib/db/pool.js';
import { runPeriodically } from '../lib/periodic.js';
import { listEnvironments } from '../features/environments/store.js';
import type { RunningWorkers } from '../worker/index.js';

const SAFETY_PASS_MS = 30_000;

export function followEnvironments(deps: {
  db: Queryable;
  feed: ChangeFeed;
  workers: RunningWorkers;
  log: { warn(obj: object, msg: string): void };
}): () => void {
  const pass = async () => deps.workers.serve((await listEnvironments(deps.db)).map((e) => e.name));
  const now = () => void pass().catch((err: unknown) => deps.log.warn({ err }, 'could not follow the environments'));
  const unsubscribe = deps.feed.subscribe((change) => {
    if (change === 'reset' || change.table === 'environments') now();
  });
  const stopPasses = runPeriodically(pass, SAFETY_PASS_MS, deps.log, 'environment watch pass');
  return () => {
    unsubscribe();
    stopPasses();
  };
}
