import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ConnectionCheckInput, ConnectionCheckResult } from './contracts.js';

const checkOptions = { startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3, initialInterval: '2 seconds' } } as const;
const { checkConnection } = proxyActivities<Activities>(checkOptions);
// A local activity: the check is the whole run, so it takes one workflow task and no activity task
// on the server (a thousand new connections are a thousand checks). Running it again is harmless.
const local = proxyLocalActivities<Activities>(checkOptions);

/** Calls the provider's verification request and records the connection's status and errors. */
export async function connectionCheckWorkflow(input: ConnectionCheckInput): Promise<ConnectionCheckResult> {
  // Patched: checks recorded with the activity replay as they ran.
  return patched('check-local-activity') ? local.checkConnection(input.connectionPk) : checkConnection(input.connectionPk);
}
