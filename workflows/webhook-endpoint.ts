import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { webhookEndpointWakeSignal, type WebhookEndpointInput, type WebhookEndpointResult } from './contracts.js';

const { drainWebhookEndpoint } = proxyActivities<Activities>({
  // A drain stops claiming after 20 s; its last batch may take up to a request timeout (20 s) more.
  startToCloseTimeout: '5 minutes',
  // It heartbeats between and during requests: a killed worker's drain is retried within 10 s, and
  // the retry takes over the deliveries it had claimed (features/webhooks/outbox.ts).
  heartbeatTimeout: '10 seconds',
  // Only the database can fail a drain (the sends' failures are recorded on the deliveries).
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Loops before continuing as new, whatever the history's size. */
const MAX_LOOPS = 500;
/** With nothing pending for this long, the workflow ends; the next emit starts it again. */
const IDLE_MS = 10 * 60 * 1000;

/**
 * Sends the webhooks of one endpoint (environment + target URL) in batches. Each loop runs one
 * drain activity, which claims the endpoint's due deliveries from the outbox (the delivery rows),
 * sends them with bounded concurrency under the endpoint's throttle, records every attempt and
 * outcome (retries get their next time, refusals and exhausted windows go dead) and says when the
 * next delivery is due; the workflow then waits for that time or for a wake-up signal from an emitter.
 */
export async function webhookEndpointWorkflow(input: WebhookEndpointInput): Promise<WebhookEndpointResult> {
  let woken = false;
  setHandler(webhookEndpointWakeSignal, () => {
    woken = true;
  });
  for (let loop = 0; loop < MAX_LOOPS && !workflowInfo().continueAsNewSuggested; loop++) {
    // Cleared before the drain: a signal that comes during it makes one more.
    woken = false;
    const { nextDueMs } = await drainWebhookEndpoint(input);
    if (woken || nextDueMs === 0) continue;
    if (nextDueMs === null) {
      if (!(await condition(() => woken, IDLE_MS))) return { idle: true };
    } else {
      await condition(() => woken, nextDueMs);
    }
  }
  return continueAsNew<typeof webhookEndpointWorkflow>(input);
}
