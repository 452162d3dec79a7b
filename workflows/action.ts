import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ActionWorkflowInput, ActionWorkflowResult } from './contracts.js';

const { runAction, failActionRun } = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

const { emitActionCompleted } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 20 } });

/** Runs one action. Its result is stored by the activity, so it survives any crash. */
export async function actionWorkflow(input: ActionWorkflowInput): Promise<ActionWorkflowResult> {
  let ok: boolean;
  try {
    ok = (await runAction(input.runId)).ok;
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const message = cause instanceof Error ? cause.message : 'the action failed';
    const rateLimited = cause instanceof ApplicationFailure && cause.type === 'RateLimited';
    await failActionRun(input.runId, {
      status: rateLimited ? 429 : 500,
      code: rateLimited ? 'script_api_rate_limit_error' : 'action_script_failure',
      message: `The action failed after its retries: ${message}`,
    });
    ok = false;
  }
  if (input.isAsync) await emitActionCompleted(input.runId);
  return { ok };
}
