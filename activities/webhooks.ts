import { ApplicationFailure } from '@temporalio/common';
import { beginAttempt, finishAttempt, markDeliveryDead } from '../features/webhooks/deliveries.js';
import { createWebhookPoster } from '../features/webhooks/post.js';
import { signingKeys } from '../features/webhooks/settings.js';
import { reserveSendSlot } from '../features/webhooks/throttle.js';
import { messageId, signatureHeaders } from '../features/webhooks/sign.js';
import { alertHooks } from '../features/alerts/index.js';
import { redactUrl } from '../lib/http/redact.js';
import { annotate, metric } from '../lib/otel/index.js';
import { endWebhookSpan, webhookSpan } from '../lib/otel/spans.js';
import type { ActivityDeps } from './deps.js';
import { activityContext, heartbeating } from './heartbeat.js';

export const MAX_RETRY_INTERVAL_MS = 60 * 60 * 1000;

export interface AttemptBackoff {
  initialIntervalMs: number;
  /** The attempt's number when the workflow counts attempts itself (throttled deliveries); else Temporal's. */
  attempt?: number;
  /**
   * Reserve the endpoint's send slot first (features/webhooks/throttle.ts). When the slot is later
   * than now, nothing is sent: the result says how long to wait, and the workflow calls again without it.
   */
  reserveSlot?: boolean;
}

export type AttemptResult =
  | {
      /** `skipped`: the delivery was no longer pending (delivered or dead already). */
      outcome: 'delivered' | 'skipped';
      status: number | null;
      attempts: number;
    }
  | { outcome: 'wait'; waitMs: number };

/** Heartbeats while the request is in flight, so a worker killed mid-request is noticed within the heartbeat timeout. */
export const HEARTBEAT_INTERVAL_MS = 2000;

export function webhookActivities(deps: ActivityDeps) {
  const poster = createWebhookPoster(deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS);
  return {
    /**
     * One signed POST of a delivery, recorded as an attempt. Throws a retryable failure for network
     * errors, 5xx, 408 and 429 (its nextRetryDelay honours Retry-After), a non-retryable one
     * (`WebhookRejected`) for other answers.
     */
    async attemptWebhookDelivery(deliveryId: string, backoff?: AttemptBackoff): Promise<AttemptResult> {
      if (backoff?.reserveSlot) {
        const waitMs = await reserveSendSlot(deps.db, deliveryId, deps.config.SWITCHYARD_WEBHOOK_MAX_PER_SECOND);
        if (waitMs > 0) return { outcome: 'wait', waitMs };
      }
      const begun = await beginAttempt(deps.db, deliveryId);
      if (!begun) return { outcome: 'skipped', status: null, attempts: 0 };
      const { delivery, n } = begun;
      const keys = await signingKeys(deps.db, deps.box, delivery.environmentId);
      const headers = { ...delivery.headers, ...signatureHeaders(delivery.body, keys, Math.floor(Date.now() / 1000), messageId(delivery)) };
      const ctx = activityContext();
      const stopHeartbeat = heartbeating(HEARTBEAT_INTERVAL_MS);
      annotate({ integration: delivery.integration, connection: delivery.connectionId, runId: delivery.id, script: 'webhook-delivery' });
      const span = webhookSpan(delivery, n);
      const started = performance.now();
      const result = await poster.post(delivery.url, delivery.body, headers).finally(stopHeartbeat);
      const durationMs = Math.round(performance.now() - started);
      endWebhookSpan(span, result);
      metric.delivery({ type: delivery.type }, result.kind === 'final' ? 'refused' : result.kind);
      if (result.kind === 'delivered') await alertHooks.delivered(deps, delivery);
      let nextDelayMs: number | null = null;
      if (result.kind === 'retry') {
        const exponential = (backoff?.initialIntervalMs ?? 2000) * 2 ** ((backoff?.attempt ?? ctx?.info.attempt ?? 1) - 1);
        nextDelayMs = Math.min(result.retryAfterMs ?? exponential, MAX_RETRY_INTERVAL_MS);
      }
      await finishAttempt(deps.db, deliveryId, n, {
        status: result.status,
        error: result.kind === 'delivered' ? null : result.error,
        durationMs,
        responseExcerpt: result.excerpt,
        delivered: result.kind === 'delivered',
        nextAttemptAt: nextDelayMs === null ? null : new Date(Date.now() + nextDelayMs),
      });
      if (result.kind === 'delivered') return { outcome: 'delivered', status: result.status, attempts: n };
      if (result.kind === 'final') throw ApplicationFailure.nonRetryable(`refused: ${result.error}`, 'WebhookRejected', { status: result.status });
      throw ApplicationFailure.create({
        message: result.error,
        type: 'WebhookRetryable',
        nonRetryable: false,
        details: [{ status: result.status, nextDelayMs }],
        nextRetryDelay: result.retryAfterMs !== null ? Math.min(result.retryAfterMs, MAX_RETRY_INTERVAL_MS) : undefined,
      });
    },

    /** Reserves the next send slot of the delivery's endpoint; how long to wait for it, in ms (features/webhooks/throttle.ts). */
    async reserveWebhookSlot(deliveryId: string): Promise<number> {
      return reserveSendSlot(deps.db, deliveryId, deps.config.SWITCHYARD_WEBHOOK_MAX_PER_SECOND);
    },

    /**
     * Gives the delivery up: the dead delivery is logged at error level, shows in
     * GET /webhook-deliveries?status=dead, and raises the `webhook_dead` alert of its URL.
     */
    async markDeliveryDead(deliveryId: string, reason: string): Promise<void> {
      const dead = await markDeliveryDead(deps.db, deliveryId, reason);
      if (!dead) return;
      deps.log.error(
        { deliveryId, environmentId: dead.environmentId, type: dead.type, url: redactUrl(dead.url), attempts: dead.attempts, reason },
        'webhook delivery dead',
      );
      metric.delivery({ type: dead.type }, 'dead');
      await alertHooks.deliveryDead(deps, dead);
    },
  };
}
