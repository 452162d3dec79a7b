/**
 * @module features/webhooks/emit — turning an event into deliveries: the event and one delivery per target
 * URL are committed together, then a `webhookDeliveryWorkflow` is started per delivery. A start
 * that fails (Temporal briefly down, the process dying in between) is caught up by the sweeper, so
 * a committed delivery is never dropped.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../../lib/config.js';
import type { SecretBox } from '../../lib/crypto.js';
import { eventIdByIdempotencyKey, recordEvent, setIdempotencyKey, type NewEvent } from './events.js';
import { webhookUrlOverrideOf } from '../connections/store.js';
import { environmentNameById } from '../environments/store.js';
import { withTransaction, type Db, type Queryable } from '../../lib/db/pool.js';
import { redactUrl } from '../../lib/http/index.js';
import type { Logger } from '../../lib/log.js';
import { searchAttributesFor, startWorkflow, taskQueueFor, webhookDeliveryWorkflowId, type WebhookDeliveryInput } from '../../workflows/contracts.js';
import {
  deliveriesOfEvent,
  failedDeliveriesSince,
  getDelivery,
  insertDelivery,
  markWorkflowStarted,
  unstartedDeliveries,
  type Delivery,
} from './deliveries.js';
import { getSettings, type EnvironmentSettings } from './settings.js';
import { stableStringify } from './sign.js';
import { runPeriodically } from '../../lib/periodic.js';

export interface EmitDeps {
  db: Db;
  temporal: Client;
  config: Config;
  box: SecretBox;
  log?: Logger;
}

export interface EmitOptions {
  /** The provider's original request headers, for `forward` webhooks (filtered before sending). */
  forwardHeaders?: Record<string, string | string[] | undefined>;
  /**
   * Emits at most once per key and environment: a second call returns the first call's event and
   * (re)starts its deliveries. For emitters that may run twice, e.g. a retried activity
   * (`sync:${runId}:${model}`, `action:${runId}`).
   */
  idempotencyKey?: string;
}

export interface EmitResult {
  eventId: number;
  deliveries: string[];
}

export const DEFAULT_INITIAL_BACKOFF_MS = 2000;

/**
 * The first retry delay. `SWITCHYARD_WEBHOOK_INITIAL_BACKOFF_MS` exists for tests; it is read
 * here rather than in lib/config.ts and travels to the workflow in its input.
 */
export function initialBackoffMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.SWITCHYARD_WEBHOOK_INITIAL_BACKOFF_MS);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_INITIAL_BACKOFF_MS;
}

// Nango's list (reference §8.1): what is never forwarded from the provider's request.
const DROPPED_FORWARD_HEADERS = new Set([
  'host',
  'authorization',
  'connection',
  'keep-alive',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'cookie',
  'set-cookie',
  'referer',
  'user-agent',
  'www-authenticate',
  'server',
]);

export function forwardableHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const n = name.toLowerCase();
    if (value === undefined || DROPPED_FORWARD_HEADERS.has(n) || n.startsWith('sec-') || n.startsWith('proxy-')) continue;
    if (n.startsWith('x-switchyard-') || n.startsWith('x-nango-')) continue; // never let a provider spoof our signatures
    out[n] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function isEmptySyncRun(payload: Record<string, unknown>): boolean {
  if (payload.success !== true) return false;
  const r = payload.responseResults as { added?: number; updated?: number; deleted?: number } | undefined;
  if (!r) return false;
  return (r.added ?? 0) + (r.updated ?? 0) + (r.deleted ?? 0) === 0;
}

/** Whether this environment wants this event sent at all. */
export function wantsEvent(settings: EnvironmentSettings, event: NewEvent): boolean {
  switch (event.type) {
    case 'forward':
      return true;
    case 'auth':
      // As in Nango, re-authorisations (`override`) are sent whatever the toggle says.
      return settings.events.auth || event.payload.operation === 'override';
    case 'async_action':
      return settings.events.async_action;
    case 'sync':
      return settings.events.sync && (settings.events.on_sync_completion_always || !isEmptySyncRun(event.payload));
    case 'alert':
      return false; // features/alerts sends these to the alert webhook URL
  }
}

/** The URLs an event goes to: the connection's override replaces both environment URLs. */
async function targetUrls(db: Queryable, settings: EnvironmentSettings, event: NewEvent): Promise<string[]> {
  if (event.integration && event.connectionId) {
    const override = await webhookUrlOverrideOf(db, event.environmentId, event.integration, event.connectionId);
    if (override) return [override];
  }
  return [...new Set([settings.webhookUrl, settings.secondaryWebhookUrl].filter((u): u is string => Boolean(u)))];
}

/** Starts the delivery's workflow; an already started (or finished) one counts as started. */
export async function startDeliveryWorkflow(deps: Omit<EmitDeps, 'box'>, delivery: Delivery, environmentName?: string): Promise<void> {
  const envName = environmentName ?? (await environmentNameById(deps.db, delivery.environmentId));
  if (!envName) return;
  const input: WebhookDeliveryInput = {
    deliveryId: delivery.id,
    initialIntervalMs: initialBackoffMs(),
    retryHours: deps.config.SWITCHYARD_WEBHOOK_RETRY_HOURS,
  };
  try {
    await startWorkflow(deps.temporal, 'webhookDeliveryWorkflow', {
      workflowId: webhookDeliveryWorkflowId(delivery.id),
      taskQueue: taskQueueFor(deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, envName),
      args: [input],
      // A delivery has one workflow, ever: a finished one is never started again.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributesFor({
        environment: envName,
        integration: delivery.integration ?? undefined,
        connection: delivery.connectionId ?? undefined,
        script: 'webhook-delivery',
      }),
      staticSummary: `${delivery.replayOf ? 'Replay of ' : ''}${delivery.type} webhook to ${redactUrl(delivery.url)}`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await markWorkflowStarted(deps.db, delivery.id);
}

async function startAll(deps: Omit<EmitDeps, 'box'>, deliveries: Delivery[], envName?: string): Promise<void> {
  for (const d of deliveries) {
    try {
      await startDeliveryWorkflow(deps, d, envName);
    } catch (err) {
      deps.log?.warn({ err, deliveryId: d.id }, 'webhook delivery workflow not started; the sweeper will retry');
    }
  }
}

/**
 * Records the event (the outbox row) and, when the environment wants it and a URL exists, one
 * delivery per URL, then starts their workflows. Never fails because Temporal is unreachable: the
 * rows are committed first and the sweeper starts what could not be started here.
 */
export async function emitEvent(deps: EmitDeps, event: NewEvent, opts: EmitOptions = {}): Promise<EmitResult> {
  const { eventId, deliveries, envName } = await withTransaction(deps.db, async (tx) => {
    if (opts.idempotencyKey) {
      const existing = await eventIdByIdempotencyKey(tx, event.environmentId, opts.idempotencyKey);
      if (existing !== null) return { eventId: existing, deliveries: await deliveriesOfEvent(tx, existing), envName: undefined };
    }
    const eventId = await recordEvent(tx, event);
    if (opts.idempotencyKey) await setIdempotencyKey(tx, eventId, opts.idempotencyKey);
    const settings = await getSettings(tx, deps.box, event.environmentId);
    if (!wantsEvent(settings, event)) return { eventId, deliveries: [] as Delivery[], envName: undefined };
    const urls = await targetUrls(tx, settings, event);
    if (urls.length === 0) return { eventId, deliveries: [] as Delivery[], envName: undefined };
    const envName = await environmentNameById(tx, event.environmentId);
    const body = stableStringify(event.payload);
    const headers = event.type === 'forward' && opts.forwardHeaders ? forwardableHeaders(opts.forwardHeaders) : {};
    const deliveries: Delivery[] = [];
    for (const url of urls) {
      deliveries.push(
        await insertDelivery(tx, {
          id: randomUUID(),
          environmentId: event.environmentId,
          eventId,
          url,
          type: event.type,
          integration: event.integration,
          connectionId: event.connectionId,
          body,
          headers,
        }),
      );
    }
    return { eventId, deliveries, envName };
  });
  await startAll(
    deps,
    deliveries.filter((d) => d.status === 'pending'),
    envName,
  );
  return { eventId, deliveries: deliveries.map((d) => d.id) };
}

/** A new delivery row with the same bytes to the same URL; it points at the original message, so a replay of a replay keeps the message id. */
function insertCopy(db: Omit<EmitDeps, 'box'>['db'], original: Delivery): Promise<Delivery> {
  return insertDelivery(db, {
    id: randomUUID(),
    environmentId: original.environmentId,
    eventId: original.eventId,
    url: original.url,
    type: original.type,
    integration: original.integration,
    connectionId: original.connectionId,
    body: original.body,
    headers: original.headers,
    replayOf: original.replayOf ?? original.id,
  });
}

/** A new delivery of the same bytes to the same URL (signed afresh with the current key at each attempt). */
export async function replayDelivery(deps: Omit<EmitDeps, 'box'>, environmentId: number, deliveryId: string): Promise<Delivery | null> {
  const original = await getDelivery(deps.db, deliveryId, environmentId);
  if (!original) return null;
  const copy = await insertCopy(deps.db, original);
  await startAll(deps, [copy]);
  return (await getDelivery(deps.db, copy.id)) ?? copy;
}

/** Most messages one recover call replays; the caller calls again (same `since`) for the rest. */
export const RECOVER_BATCH = 1000;

/**
 * Replays every message that failed since `since` (its delivery and any replays all dead), once each.
 * Returns how many were requeued.
 */
export async function recoverFailedDeliveries(deps: Omit<EmitDeps, 'box'>, environmentId: number, since: Date): Promise<number> {
  const failed = await failedDeliveriesSince(deps.db, environmentId, since, RECOVER_BATCH);
  const copies: Delivery[] = [];
  for (const d of failed) copies.push(await insertCopy(deps.db, d));
  await startAll(deps, copies);
  return copies.length;
}

export interface SweeperOptions {
  intervalMs?: number;
  /** Leave younger deliveries to their emitter, which is probably starting them right now. */
  minAgeMs?: number;
  batch?: number;
}

/** One pass: starts the workflow of every pending delivery whose start was never confirmed. Returns how many were started. */
export async function sweepPendingDeliveries(deps: Omit<EmitDeps, 'box'>, opts: SweeperOptions = {}): Promise<number> {
  const pending = await unstartedDeliveries(deps.db, opts.minAgeMs ?? 10_000, opts.batch ?? 500);
  let started = 0;
  for (const d of pending) {
    try {
      await startDeliveryWorkflow(deps, d);
      started++;
    } catch (err) {
      deps.log?.warn({ err, deliveryId: d.id }, 'webhook sweeper could not start a delivery workflow');
      break; // Temporal is likely down: try again next tick
    }
  }
  return started;
}

/** Runs sweepPendingDeliveries every 30 s (unref'd, so it never keeps the process alive). Returns the stop function. */
export function startDeliverySweeper(deps: Omit<EmitDeps, 'box'>, opts: SweeperOptions = {}): () => void {
  return runPeriodically(() => sweepPendingDeliveries(deps, opts), opts.intervalMs ?? 30_000, deps.log, 'webhook sweeper pass');
}
