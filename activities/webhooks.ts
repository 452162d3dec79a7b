import { ApplicationFailure } from '@temporalio/common';
import {
  beginAttempt,
  beginAttempts,
  finishAttempt,
  finishAttempts,
  markDeliveryDead,
  type AttemptOutcome,
  type Delivery,
  type FinishedAttempt,
} from '../features/webhooks/deliveries.js';
import { coalescing } from '../lib/coalesce.js';
import { claimDue, clearWake, endpointUrl, nextDueInMs } from '../features/webhooks/outbox.js';
import { createWebhookPoster, type PostOutcome, type WebhookPoster } from '../features/webhooks/post.js';
import { signingKeys } from '../features/webhooks/settings.js';
import { endpointRate, reserveSendSlot } from '../features/webhooks/throttle.js';
import { messageId, signatureHeaders, type SigningKeys } from '../features/webhooks/sign.js';
import { alertHooks } from '../features/alerts/index.js';
import { redactUrl } from '../lib/http/redact.js';
import { annotate, metric } from '../lib/otel/index.js';
import { endWebhookSpan, webhookSpan } from '../lib/otel/spans.js';
import type { WebhookEndpointInput } from '../workflows/contracts.js';
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
      const ctx = activityContext();
      annotate({ integration: delivery.integration, connection: delivery.connectionId, runId: delivery.id, script: 'webhook-delivery' });
      const { result, durationMs } = await postSigned(poster, delivery, n, keys);
      if (result.kind === 'delivered') await alertHooks.delivered(deps, delivery);
      const nextDelayMs = retryDelayMs(result, backoff?.initialIntervalMs ?? 2000, backoff?.attempt ?? ctx?.info.attempt ?? 1);
      await recordAttempt(deps.db, delivery.id, n, result, durationMs, nextDelayMs);
      if (result.kind === 'delivered') return { outcome: 'delivered', status: result.status, attempts: n };
      if (result.kind === 'final') throw ApplicationFailure.nonRetryable(refusedReason(result.error), 'WebhookRejected', { status: result.status });
      throw ApplicationFailure.create({
        message: result.error,
        type: 'WebhookRetryable',
        nonRetryable: false,
        details: [{ status: result.status, nextDelayMs }],
        nextRetryDelay: result.retryAfterMs !== null ? Math.min(result.retryAfterMs, MAX_RETRY_INTERVAL_MS) : undefined,
      });
    },

    /**
     * Sends an endpoint's due deliveries (webhookEndpointWorkflow): claims batches of them from the
     * outbox until none is due or DRAIN_BUDGET_MS has passed, sends each batch with bounded
     * concurrency under the endpoint's throttle, and records every attempt and outcome as
     * attemptWebhookDelivery does (a retry gets its next time on the row, with the same backoff
     * and Retry-After; a refusal or an exhausted retry window makes the delivery dead, with its
     * alert). Returns when the endpoint's next delivery is due.
     */
    async drainWebhookEndpoint(input: WebhookEndpointInput): Promise<DrainResult> {
      const ctx = activityContext();
      const stopHeartbeat = heartbeating(HEARTBEAT_INTERVAL_MS);
      try {
        return await drainEndpoint(deps, poster, input, (ctx?.info.attempt ?? 1) > 1);
      } finally {
        stopHeartbeat();
      }
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
      await giveUp(deps, deliveryId, reason);
    },
  };
}

/** Gives a delivery up: logged at error level, counted, and the `webhook_dead` alert of its URL raised. */
async function giveUp(deps: ActivityDeps, deliveryId: string, reason: string): Promise<void> {
  const dead = await markDeliveryDead(deps.db, deliveryId, reason);
  if (!dead) return;
  deps.log.error(
    { deliveryId, environmentId: dead.environmentId, type: dead.type, url: redactUrl(dead.url), attempts: dead.attempts, reason },
    'webhook delivery dead',
  );
  metric.delivery({ type: dead.type }, 'dead');
  await alertHooks.deliveryDead(deps, dead);
}

const refusedReason = (error: string) => `refused: ${error}`;

const windowText = (retryHours: number) => `gave up after ${retryHours >= 1 ? `${retryHours} h` : `${Math.round(retryHours * 3600)} s`} of retries`;

/** One signed POST of a begun attempt, heartbeating while it is in flight, traced and counted. */
async function postSigned(poster: WebhookPoster, delivery: Delivery, n: number, keys: SigningKeys): Promise<{ result: PostOutcome; durationMs: number }> {
  const headers = { ...delivery.headers, ...signatureHeaders(delivery.body, keys, Math.floor(Date.now() / 1000), messageId(delivery)) };
  const stopHeartbeat = heartbeating(HEARTBEAT_INTERVAL_MS);
  const span = webhookSpan(delivery, n);
  const started = performance.now();
  const result = await poster.post(delivery.url, delivery.body, headers).finally(stopHeartbeat);
  const durationMs = Math.round(performance.now() - started);
  endWebhookSpan(span, result);
  metric.delivery({ type: delivery.type }, result.kind === 'final' ? 'refused' : result.kind);
  return { result, durationMs };
}

/** A retryable answer's delay before the next attempt: the receiver's Retry-After, else exponential from `attempt`; at most 1 h. */
function retryDelayMs(result: PostOutcome, initialIntervalMs: number, attempt: number): number | null {
  if (result.kind !== 'retry') return null;
  return Math.min(result.retryAfterMs ?? initialIntervalMs * 2 ** (attempt - 1), MAX_RETRY_INTERVAL_MS);
}

function outcomeOf(result: PostOutcome, durationMs: number, nextDelayMs: number | null): AttemptOutcome {
  return {
    status: result.status,
    error: result.kind === 'delivered' ? null : result.error,
    durationMs,
    responseExcerpt: result.excerpt,
    delivered: result.kind === 'delivered',
    nextAttemptAt: nextDelayMs === null ? null : new Date(Date.now() + nextDelayMs),
  };
}

function recordAttempt(db: ActivityDeps['db'], deliveryId: string, n: number, result: PostOutcome, durationMs: number, nextDelayMs: number | null) {
  return finishAttempt(db, deliveryId, n, outcomeOf(result, durationMs, nextDelayMs));
}

export interface DrainResult {
  delivered: number;
  retried: number;
  dead: number;
  /** Ms until the endpoint's next pending delivery is due (0: now), null when none is pending. */
  nextDueMs: number | null;
}

/** Most deliveries one claim takes. */
export const DRAIN_BATCH = 100;
/** Requests in flight at once to one endpoint. */
export const DRAIN_CONCURRENCY = 16;
/** A drain stops claiming after this long, so that its workflow's history moves on. */
export const DRAIN_BUDGET_MS = 20_000;
/** How long a claim holds its deliveries against another drain (a stray older attempt's). */
const CLAIM_LEASE_MS = 2 * 60_000;

async function drainEndpoint(deps: ActivityDeps, poster: WebhookPoster, input: WebhookEndpointInput, takeOver: boolean): Promise<DrainResult> {
  const initialIntervalMs = input.initialIntervalMs ?? 2000;
  const retryHours = input.retryHours ?? 24;
  const out: DrainResult = { delivered: 0, retried: 0, dead: 0, nextDueMs: null };
  const url = await endpointUrl(deps.db, input.environmentId, input.endpointKey);
  if (url === null) return out;
  const rate = await endpointRate(deps.db, input.environmentId, deps.config.SWITCHYARD_WEBHOOK_MAX_PER_SECOND);
  // Under a throttle, a batch is what the endpoint takes in about 5 s.
  const limit = rate ? Math.max(1, Math.min(DRAIN_BATCH, Math.ceil(rate * 5))) : DRAIN_BATCH;
  // Without a throttle every claimed delivery is sent at once, so the claim begins their attempts
  // (one statement and one commit for the batch). Under one, each attempt begins after its slot. The
  // lanes' attempt begins and finishes go to the database together (lib/coalesce.ts): each lane
  // still sends only once its attempt is committed, and moves on only once its outcome is.
  const beginAtClaim = rate === null;
  const begin = coalescing(async (ids: string[]) => {
    const begun = await beginAttempts(deps.db, ids);
    return ids.map((id) => begun.get(id) ?? null);
  });
  const finish = coalescing(async (attempts: FinishedAttempt[]) => {
    await finishAttempts(deps.db, attempts);
    return attempts.map(() => undefined);
  });
  const started = Date.now();
  // The wake request stays set while claims find work, so emitters send no signal meanwhile. It is
  // cleared when a claim comes back empty, then the outbox is read again (features/webhooks/outbox.ts).
  let cleared = false;
  for (let first = true; Date.now() - started < DRAIN_BUDGET_MS; first = false) {
    const claimed = await claimDue(deps.db, input.environmentId, url, { limit, leaseMs: CLAIM_LEASE_MS, takeOver: takeOver && first, begin: beginAtClaim });
    if (claimed.length === 0) {
      if (cleared) break;
      await clearWake(deps.db, input.environmentId, url);
      cleared = true;
      continue;
    }
    cleared = false;
    activityContext()?.heartbeat();
    const keys = await signingKeys(deps.db, deps.box, input.environmentId);
    let anyDelivered: Delivery | null = null;
    await forEachConcurrently(claimed, Math.min(DRAIN_CONCURRENCY, limit), async (delivery) => {
      if (rate) {
        const waitMs = await reserveSendSlot(deps.db, delivery.id, deps.config.SWITCHYARD_WEBHOOK_MAX_PER_SECOND);
        if (waitMs > 0) await sleepHeartbeating(waitMs);
      }
      const begun = beginAtClaim ? { delivery, n: delivery.attempts } : await begin(delivery.id);
      if (!begun) return;
      const { result, durationMs } = await postSigned(poster, begun.delivery, begun.n, keys);
      let nextDelayMs = retryDelayMs(result, initialIntervalMs, begun.n);
      const windowClosed = nextDelayMs !== null && Date.now() + nextDelayMs >= delivery.createdAt.getTime() + retryHours * 3600_000;
      if (windowClosed) nextDelayMs = null;
      await finish({ deliveryId: delivery.id, n: begun.n, ...outcomeOf(result, durationMs, nextDelayMs) });
      if (result.kind === 'delivered') {
        out.delivered++;
        anyDelivered = delivery;
      } else if (result.kind === 'final') {
        out.dead++;
        await giveUp(deps, delivery.id, refusedReason(result.error));
      } else if (windowClosed) {
        out.dead++;
        await giveUp(deps, delivery.id, windowText(retryHours));
      } else out.retried++;
    });
    // The URL's next delivered webhook resolves its `webhook_dead` alert: once per batch.
    if (anyDelivered) await alertHooks.delivered(deps, anyDelivered);
  }
  // Stopped by the budget while claims still found work: the request is cleared here, and what is
  // due now shows in the read below (0: the workflow drains again at once).
  if (!cleared) await clearWake(deps.db, input.environmentId, url);
  out.nextDueMs = await nextDueInMs(deps.db, input.environmentId, url);
  return out;
}

async function sleepHeartbeating(ms: number): Promise<void> {
  const stop = heartbeating(HEARTBEAT_INTERVAL_MS);
  await new Promise((resolve) => setTimeout(resolve, ms)).finally(stop);
}

/** Runs `fn` on every item, at most `concurrency` at once. */
async function forEachConcurrently<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
