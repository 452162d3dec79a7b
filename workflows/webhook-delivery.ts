import { RetryState } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, patched, proxyActivities, sleep, TimeoutFailure } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { AttemptResult } from '../activities/webhooks.js';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from './contracts.js';

const { markDeliveryDead, reserveWebhookSlot } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // Only the database can fail here; keep trying until it is back.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const MAX_RETRY_INTERVAL_MS = 60 * 60 * 1000;

const windowText = (retryHours: number) => `gave up after ${retryHours >= 1 ? `${retryHours} h` : `${Math.round(retryHours * 3600)} s`} of retries`;

async function dead(deliveryId: string, reason: string): Promise<WebhookDeliveryResult> {
  await markDeliveryDead(deliveryId, reason);
  return { status: 'dead', reason };
}

/**
 * Delivers one webhook. Each attempt first reserves a send slot of the endpoint (per-endpoint
 * throttling, features/webhooks/throttle.ts); a slot in the future is waited for on a durable timer
 * (the attempt activity then returns without sending, and is called again once the slot has come); a retryable failure
 * (network error, 5xx, 408, 429, a worker that died mid-request) is tried again after exponential
 * backoff (or the receiver's Retry-After) for `retryHours`. A final refusal or an exhausted window
 * marks the delivery dead. Workflows started before throttling existed carry on as they began.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const initialIntervalMs = input.initialIntervalMs ?? 2000;
  const retryHours = input.retryHours ?? 24;
  if (!patched('webhook-endpoint-throttle')) return unthrottledDelivery(input.deliveryId, initialIntervalMs, retryHours);
  const { attemptWebhookDelivery } = proxyActivities<Activities>({
    // The request's own timeout is 20 s; the rest is database time.
    startToCloseTimeout: '40 seconds',
    // The activity heartbeats during the request: a killed worker's attempt is retried within 10 s.
    heartbeatTimeout: '10 seconds',
    // Attempts are counted here, so that each one waits for its send slot.
    retry: { maximumAttempts: 1 },
  });
  const deadline = Date.now() + retryHours * 60 * 60 * 1000;
  // Newer workflows reserve the slot inside the attempt: one activity per attempt when the slot is now.
  const slotInAttempt = patched('webhook-slot-in-attempt');
  for (let attempt = 1; ; attempt++) {
    try {
      let result: AttemptResult;
      if (slotInAttempt) {
        result = await attemptWebhookDelivery(input.deliveryId, { initialIntervalMs, attempt, reserveSlot: true });
        // The slot is reserved but later: wait for it on a durable timer, then send without reserving again.
        if (result.outcome === 'wait') {
          await sleep(result.waitMs);
          result = await attemptWebhookDelivery(input.deliveryId, { initialIntervalMs, attempt });
        }
      } else {
        const waitMs = await reserveWebhookSlot(input.deliveryId);
        if (waitMs > 0) await sleep(waitMs);
        result = await attemptWebhookDelivery(input.deliveryId, { initialIntervalMs, attempt });
      }
      return { status: result.outcome === 'delivered' ? 'delivered' : 'skipped' };
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : err;
      if (cause instanceof ApplicationFailure && cause.type === 'WebhookRejected') return dead(input.deliveryId, cause.message);
      const planned = cause instanceof ApplicationFailure ? (cause.details?.[0] as { nextDelayMs?: number | null } | undefined)?.nextDelayMs : null;
      const delayMs = planned ?? Math.min(initialIntervalMs * 2 ** (attempt - 1), MAX_RETRY_INTERVAL_MS);
      if (Date.now() + delayMs >= deadline) return dead(input.deliveryId, windowText(retryHours));
      await sleep(delayMs);
    }
  }
}

/** The delivery of workflows started before per-endpoint throttling: Temporal's retry policy makes the attempts. */
async function unthrottledDelivery(deliveryId: string, initialIntervalMs: number, retryHours: number): Promise<WebhookDeliveryResult> {
  const { attemptWebhookDelivery } = proxyActivities<Activities>({
    startToCloseTimeout: '40 seconds',
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
    const result = await attemptWebhookDelivery(deliveryId, { initialIntervalMs });
    return { status: result.outcome === 'delivered' ? 'delivered' : 'skipped' };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    // The window closes either during an attempt (a TimeoutFailure) or because the next retry would
    // start after it (the last attempt's own failure, with retry state TIMEOUT).
    const windowClosed = cause instanceof TimeoutFailure || (err instanceof ActivityFailure && err.retryState === RetryState.TIMEOUT);
    let reason: string;
    if (cause instanceof ApplicationFailure && cause.type === 'WebhookRejected') reason = cause.message;
    else if (windowClosed) reason = windowText(retryHours);
    else reason = `gave up: ${cause instanceof Error ? cause.message : String(cause)}`;
    return dead(deliveryId, reason);
  }
}
