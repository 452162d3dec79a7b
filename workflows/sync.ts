import { ActivityFailure, ApplicationFailure, patched, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { SyncWorkflowInput, SyncWorkflowResult } from './contracts.js';

const stepOptions = { startToCloseTimeout: '1 minute', retry: { maximumAttempts: 20, maximumInterval: '30 seconds' } } as const;
const steps = proxyActivities<Activities>(stepOptions);
// The short steps (claim, finish, fail) run as local activities: in the workflow task that asks for
// them, recorded as markers, so a run costs the server one activity task and two workflow tasks
// instead of three and four. Each is idempotent: a local activity runs again if its workflow task fails.
const localSteps = proxyLocalActivities<Activities>(stepOptions);

// The script runs in one activity that heartbeats; a worker that dies is noticed within the
// heartbeat timeout and the retry resumes from the last saved page.
const { executeSync } = proxyActivities<Activities>({
  startToCloseTimeout: '12 hours',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 25, nonRetryableErrorTypes: ['SyncScriptError'] },
});

/** One run of a sync for one connection: claim, run the script page by page, detect deletions, notify. */
export async function syncWorkflow(input: SyncWorkflowInput): Promise<SyncWorkflowResult> {
  const { workflowId, runId: temporalRunId } = workflowInfo();
  const runId = `${workflowId}/${temporalRunId}`;
  // Patched: runs recorded with the short steps as activities replay as they ran.
  const step = patched('sync-local-steps') ? localSteps : steps;
  const begin = await step.beginSyncRun({ ...input, runId });
  if (begin.skipped) return { status: 'SKIPPED', reason: begin.reason };
  try {
    await executeSync(runId);
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : 'the sync failed';
    await step.failSync(runId, message);
    // A failed run shows as Failed in Temporal UI (ExecutionStatus="Failed"), so ops can list a
    // connection's failing syncs. Patched: runs that completed with ERROR before still replay.
    if (patched('sync-failure-fails-workflow')) throw ApplicationFailure.nonRetryable(`Sync failed: ${message}`, 'SyncFailed');
    return { status: 'ERROR', reason: message };
  }
  await step.finishSync(runId);
  return { status: 'SUCCESS' };
}
