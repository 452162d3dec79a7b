/**
 * @module features/actions/notices — waiting for an action run's result without waiting for its
 * workflow: finishActionRun announces the run's id once its result is committed, and a synchronous
 * trigger can answer from the row at once (the workflow's last task and the result's long poll run
 * after the answer instead of before it). While the LISTEN connection is down nothing is announced,
 * so a caller also waits for the workflow, whichever comes first.
 */
import type { ChangeFeed } from '../../lib/db/change-feed.js';
import { ACTION_RUN_FINISHED_CHANNEL } from './runs.js';

export interface RunWait {
  /** Resolves when the run's result is committed (never, if its notice is lost). */
  finished: Promise<void>;
  cancel(): void;
}

export type ActionRunNotices = (runId: string) => RunWait;

/** Waits for runs on `feed`'s connection; a wait must begin before the run can finish (before its workflow starts). */
export function actionRunNotices(feed: ChangeFeed): ActionRunNotices {
  const waiting = new Map<string, () => void>();
  feed.listen(ACTION_RUN_FINISHED_CHANNEL, (runId) => {
    waiting.get(runId)?.();
    waiting.delete(runId);
  });
  return (runId) => {
    const finished = new Promise<void>((resolve) => waiting.set(runId, resolve));
    return { finished, cancel: () => waiting.delete(runId) };
  };
}
