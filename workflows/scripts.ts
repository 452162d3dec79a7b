import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

export interface OnEventWorkflowInput {
  connectionPk: number;
  event: 'post-connection-creation';
}

export interface SyncWebhookWorkflowInput {
  connectionPk: number;
  syncName: string;
  /** The third party's event type that matched the sync's webhookSubscriptions. */
  type: string;
  payload: unknown;
}

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
export async function onEventWorkflow(input: OnEventWorkflowInput): Promise<{ ok: boolean; scripts?: string[]; error?: string }> {
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
export async function syncWebhookWorkflow(
  input: SyncWebhookWorkflowInput,
): Promise<{ results: Record<string, { added: number; updated: number; deleted: number }> }> {
  return scripts.runSyncWebhook(input);
}
