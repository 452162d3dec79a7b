import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { DiagnosticsInput, DiagnosticsResult } from './contracts.js';

const { probeDatabase } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 3 } });

/** A round trip through every part: API → Temporal → worker → activity → Postgres → back. */
export async function diagnosticsWorkflow(input: DiagnosticsInput = { echo: null }): Promise<DiagnosticsResult> {
  const info = workflowInfo();
  const probe = await probeDatabase();
  return { workflowId: info.workflowId, taskQueue: info.taskQueue, databaseTime: probe.now, worker: probe.worker, echo: input.echo };
}
