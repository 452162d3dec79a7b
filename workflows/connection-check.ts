import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ConnectionCheckInput, ConnectionCheckResult } from './contracts.js';

const { checkConnection } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3, initialInterval: '2 seconds' },
});

/** Calls the provider's verification request and records the connection's status and errors. */
export async function connectionCheckWorkflow(input: ConnectionCheckInput): Promise<ConnectionCheckResult> {
  return checkConnection(input.connectionPk);
}
