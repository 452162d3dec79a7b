import { RetryState } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, proxyActivities, TimeoutFailure } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from './contracts.js';

const { markDeliveryDead } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // Only the database can fail here; keep trying until it is back.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Delivers one webhook: attempts are retried by Temporal with exponential backoff (or the
 * receiver's Retry-After) for `retryHours`, so a worker that dies mid-delivery is replaced by
 * another that carries on. A final refusal or an exhausted window marks the delivery dead.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const initialIntervalMs = input.initialIntervalMs ?? 2000;
  const retryHours = input.retryHours ?? 24;
  const { attemptWebhookDelivery } = proxyActivities<Activities>({
    // The request's own timeout is 20 s; the rest is database time.
    startToCloseTimeout: '40 seconds',
    // The activity heartbeats during the request: a killed worker's attempt is retried within 10 s.
    heartbeatTimeout: '10 seconds',
    scheduleToCloseTimeout: retryHours * 60 * 60 * 1000,
    retry: {
      initialInterval: initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: '1 hour',
      nonRetryableErrorTypes: ['WebhookRejected'],
    },
  });
  try {
    const result = await attemptWebhookDelivery(input.deliveryId, { initialIntervalMs });
    return { status: result.outcome === 'delivered' ? 'delivered' : 'skipped' };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    // The window closes either during an attempt (a TimeoutFailure) or because the next retry would
    // start after it (the last attempt's own failure, with retry state TIMEOUT).
    const windowClosed = cause instanceof TimeoutFailure || (err instanceof ActivityFailure && err.retryState === RetryState.TIMEOUT);
    let reason: string;
    if (cause instanceof ApplicationFailure && cause.type === 'WebhookRejected') reason = cause.message;
    else if (windowClosed) reason = `gave up after ${retryHours >= 1 ? `${retryHours} h` : `${Math.round(retryHours * 3600)} s`} of retries`;
    else reason = `gave up: ${cause instanceof Error ? cause.message : String(cause)}`;
    await markDeliveryDead(input.deliveryId, reason);
    return { status: 'dead', reason };
  }
}
