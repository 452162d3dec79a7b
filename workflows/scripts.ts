import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { OnEventWorkflowInput, OnEventWorkflowResult, SyncWebhookWorkflowInput, SyncWebhookWorkflowResult } from './contracts.js';

// Scripts run in one activity that heartbeats; 429 / 5xx / network errors are retried, a script
// error is final.
const scripts = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: ['OnEventScriptError', 'SyncWebhookScriptError'],
  },
});

const { recordConnectionEventFailure } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 20 } });

function messageOf(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : 'the script failed';
}

/** The post-connection-creation scripts of a new connection; a failure goes to the connection's errors. */
export async function onEventWorkflow(input: OnEventWorkflowInput): Promise<OnEventWorkflowResult> {
  try {
    const { ran } = await scripts.runConnectionEvent(input);
    return { ok: true, scripts: ran };
  } catch (err) {
    const error = messageOf(err);
    await recordConnectionEventFailure(input, error);
    return { ok: false, error };
  }
}

/** A sync's onWebhook for one third-party webhook and one connection; its saves notify as a WEBHOOK sync. */
export async function syncWebhookWorkflow(input: SyncWebhookWorkflowInput): Promise<SyncWebhookWorkflowResult> {
  return scripts.runSyncWebhook(input);
}
