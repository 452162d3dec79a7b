/**
 * @module features/webhooks/emit — turning an event into deliveries: the event and one delivery per target
 * URL are committed together (the outbox), then the `webhookEndpointWorkflow` of each URL is woken
 * with one signal-with-start (skipped when one is already on its way, features/webhooks/outbox.ts);
 * it sends its endpoint's deliveries in batches. A wake-up that fails (Temporal briefly down, the
 * process dying in between) is caught up by the sweeper, so a committed delivery is never dropped.
 * Alert webhooks, and deliveries committed before the endpoint workflows existed, have a
 * `webhookDeliveryWorkflow` each, started here the same way.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../../lib/config.js';
import type { SecretBox } from '../../lib/crypto.js';
import { eventIdByIdempotencyKey, type NewEvent } from './events.js';
import { webhookUrlOverrideOf } from '../connections/store.js';
import { environmentNameById } from '../environments/store.js';
import type { Db, Queryable } from '../../lib/db/pool.js';
import { redactUrl } from '../../lib/http/index.js';
import type { Logger } from '../../lib/log.js';
import {
  searchAttributesFor,
  signalWithStartWorkflow,
  startWorkflow,
  taskQueueFor,
  webhookDeliveryWorkflowId,
  webhookEndpointWakeSignal,
  webhookEndpointWorkflowId,
  type WebhookDeliveryInput,
  type WebhookEndpointInput,
} from '../../workflows/contracts.js';
import {
  deliveriesOfEvent,
  failedDeliveriesSince,
  getDelivery,
  insertDelivery,
  insertEventsWithDeliveries,
  markEndpointWoken,
  markWorkflowStarted,
  unstartedDeliveries,
  type Delivery,
  type NewEventWithDeliveries,
} from './deliveries.js';
import { coalescingPer } from '../../lib/coalesce.js';
import { endpointKey, ensureEndpoint, overdueEndpoints, requestWake } from './outbox.js';
import { settingsOf, type EnvironmentSettings } from './settings.js';
import { stableStringify } from './sign.js';
import { runPeriodically } from '../../lib/periodic.js';
import { pruneWebhookEvents, RECEIVED_EVENT_RETENTION_MS } from './received-events.js';

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

/**
 * Wakes the endpoint's workflow (starting it when it is not running) and records that its
 * deliveries were handed over. Throws when Temporal is unreachable: the sweeper retries.
 */
export async function wakeEndpoint(
  deps: Omit<EmitDeps, 'box'>,
  environmentId: number,
  url: string,
  deliveryIds: string[],
  opts: { environmentName?: string; /** The endpoint's row exists (the emitter's transaction made it). */ registered?: boolean } = {},
): Promise<void> {
  const envName = opts.environmentName ?? (await environmentNameById(deps.db, environmentId));
  if (!envName) return;
  const key = opts.registered ? endpointKey(url) : await ensureEndpoint(deps.db, environmentId, url);
  const input: WebhookEndpointInput = {
    environmentId,
    endpointKey: key,
    initialIntervalMs: initialBackoffMs(),
    retryHours: deps.config.SWITCHYARD_WEBHOOK_RETRY_HOURS,
  };
  await signalWithStartWorkflow(deps.temporal, 'webhookEndpointWorkflow', {
    workflowId: webhookEndpointWorkflowId(envName, key),
    taskQueue: taskQueueFor(deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, envName),
    args: [input],
    signal: webhookEndpointWakeSignal,
    typedSearchAttributes: searchAttributesFor({ environment: envName, script: 'webhook-endpoint' }),
    staticSummary: `Webhooks to ${redactUrl(url)}`,
  });
  await markEndpointWoken(deps.db, deliveryIds);
}

/**
 * Hands each delivery to whoever sends it: its endpoint's workflow (one wake-up per URL) or a
 * workflow of its own. `coalesce` (emits): no signal when another emitter's is on its way
 * (features/webhooks/outbox.ts requestWake); replays and recoveries always signal.
 */
async function sendAll(deps: Omit<EmitDeps, 'box'>, deliveries: Delivery[], opts: { coalesce?: boolean } = {}): Promise<void> {
  const byEndpoint = new Map<string, Delivery[]>();
  for (const d of deliveries) {
    if (!d.viaEndpoint) {
      try {
        await startDeliveryWorkflow(deps, d);
      } catch (err) {
        deps.log?.warn({ err, deliveryId: d.id }, 'webhook delivery workflow not started; the sweeper will retry');
      }
      continue;
    }
    const key = `${d.environmentId}\0${d.url}`;
    const list = byEndpoint.get(key);
    if (list) list.push(d);
    else byEndpoint.set(key, [d]);
  }
  for (const list of byEndpoint.values()) {
    const { environmentId, url } = list[0]!;
    const ids = list.map((d) => d.id);
    try {
      if (opts.coalesce && !(await wakeShared(deps.db, { environmentId, url }))) continue; // another emitter's signal is on its way
      await wakeEndpoint(deps, environmentId, url, ids, { registered: opts.coalesce });
    } catch (err) {
      deps.log?.warn({ err, deliveryIds: ids }, 'webhook endpoint workflow not woken; the sweeper will retry');
    }
  }
}

/**
 * Which workflow sends new deliveries: true, their endpoint's webhookEndpointWorkflow, in batches;
 * false, one webhookDeliveryWorkflow each (the benchmark's "before": bench/baseline/webhook-endpoint-outbox.*).
 */
const VIA_ENDPOINT = true;

type Recorded = Awaited<ReturnType<typeof insertEventsWithDeliveries>>[number];
type Outcome = PromiseSettledResult<Recorded>;

/** One statement for `items`; when it fails, each half on its own, so an emit's error (its environment deleted meanwhile) is only its own. */
async function insertSplitting(db: Db, items: NewEventWithDeliveries[]): Promise<Outcome[]> {
  try {
    return (await insertEventsWithDeliveries(db, items)).map((value) => ({ status: 'fulfilled', value }));
  } catch (reason) {
    if (items.length === 1) return [{ status: 'rejected', reason }];
    const half = Math.ceil(items.length / 2);
    return (await Promise.all([insertSplitting(db, items.slice(0, half)), insertSplitting(db, items.slice(half))])).flat();
  }
}

/*
 * Concurrent emits share their statements (lib/coalesce.ts): an emit's statement goes out at once when
 * none of its kind is in flight on the pool, else with every other emit's in the next one, so one
 * statement and one commit serve many emits during a burst. Each still reads after its call began
 * and returns only once its own rows are committed.
 */
const recordShared = coalescingPer(insertSplitting);
async function recordEmit(db: Db, item: NewEventWithDeliveries): Promise<Recorded> {
  const result = await recordShared(db, item);
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}
const settingsShared = coalescingPer(settingsOf);
/** requestWake once per endpoint of the batch: its first emitter gets the answer, the others need not signal (the first one's signal, or the one on its way, covers their committed deliveries). */
const wakeShared = coalescingPer(async (db: Db, items: { environmentId: number; url: string }[]) => {
  const asked = new Set<string>();
  const out: boolean[] = [];
  for (const { environmentId, url } of items) {
    const key = `${environmentId}\0${url}`;
    out.push(!asked.has(key) && (await requestWake(db, environmentId, url)));
    asked.add(key);
  }
  return out;
});

/**
 * Records the event (the outbox row) and, when the environment wants it and a URL exists, one
 * delivery per URL, then starts their workflows. Never fails because Temporal is unreachable: the
 * rows are committed first and the sweeper starts what could not be started here.
 */
export async function emitEvent(deps: EmitDeps, event: NewEvent, opts: EmitOptions = {}): Promise<EmitResult> {
  // Read before the write, as the write's own statement would see them (read committed): the write is then one statement and one commit.
  const settings = await settingsShared(deps.db, { box: deps.box, environmentId: event.environmentId });
  const urls = wantsEvent(settings, event) ? await targetUrls(deps.db, settings, event) : [];
  const recorded = await recordEmit(deps.db, {
    event,
    idempotencyKey: opts.idempotencyKey ?? null,
    deliveries: urls.map((url) => ({ id: randomUUID(), url })),
    body: stableStringify(event.payload),
    headers: event.type === 'forward' && opts.forwardHeaders ? forwardableHeaders(opts.forwardHeaders) : {},
    viaEndpoint: VIA_ENDPOINT,
  });
  // The key was used before: that event's deliveries, handed over again when still pending.
  const eventId = recorded?.eventId ?? (await eventIdByIdempotencyKey(deps.db, event.environmentId, opts.idempotencyKey!));
  if (eventId === null) throw new Error(`the event of idempotency key ${opts.idempotencyKey} was deleted while emitting it again`);
  const deliveries = recorded?.deliveries ?? (await deliveriesOfEvent(deps.db, eventId));
  await sendAll(
    deps,
    deliveries.filter((d) => d.status === 'pending'),
    { coalesce: true },
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
    viaEndpoint: VIA_ENDPOINT && original.type !== 'alert',
  });
}

/** A new delivery of the same bytes to the same URL (signed afresh with the current key at each attempt). */
export async function replayDelivery(deps: Omit<EmitDeps, 'box'>, environmentId: number, deliveryId: string): Promise<Delivery | null> {
  const original = await getDelivery(deps.db, deliveryId, environmentId);
  if (!original) return null;
  const copy = await insertCopy(deps.db, original);
  await sendAll(deps, [copy]);
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
  await sendAll(deps, copies);
  return copies.length;
}

export interface SweeperOptions {
  intervalMs?: number;
  /** Leave younger deliveries to their emitter, which is probably starting them right now. */
  minAgeMs?: number;
  batch?: number;
  /** How long past due a delivery of an endpoint workflow may be, not held by a drain, before its workflow is woken again. */
  overdueMs?: number;
}

/**
 * One pass: starts the workflow of every pending delivery whose start was never confirmed, and wakes
 * the endpoint workflow of those sent in batches whose wake-up was never confirmed. Returns how many
 * deliveries were handed over. Then wakes the endpoints with a delivery long overdue (their
 * workflow ended or a wake-up was lost), which it does not count.
 */
export async function sweepPendingDeliveries(deps: Omit<EmitDeps, 'box'>, opts: SweeperOptions = {}): Promise<number> {
  const pending = await unstartedDeliveries(deps.db, opts.minAgeMs ?? 10_000, opts.batch ?? 500);
  let started = 0;
  const endpoints = new Map<string, { environmentId: number; url: string; ids: string[] }>();
  const endpoint = (environmentId: number, url: string) => {
    const key = `${environmentId}\0${url}`;
    if (!endpoints.has(key)) endpoints.set(key, { environmentId, url, ids: [] });
    return endpoints.get(key)!;
  };
  for (const d of pending) {
    if (d.viaEndpoint) {
      endpoint(d.environmentId, d.url).ids.push(d.id);
      continue;
    }
    try {
      await startDeliveryWorkflow(deps, d);
      started++;
    } catch (err) {
      deps.log?.warn({ err, deliveryId: d.id }, 'webhook sweeper could not start a delivery workflow');
      return started; // Temporal is likely down: try again next tick
    }
  }
  for (const { environmentId, url } of await overdueEndpoints(deps.db, opts.overdueMs ?? 120_000, 100)) endpoint(environmentId, url);
  for (const { environmentId, url, ids } of endpoints.values()) {
    try {
      await wakeEndpoint(deps, environmentId, url, ids);
      started += ids.length;
    } catch (err) {
      deps.log?.warn({ err, deliveryIds: ids }, 'webhook sweeper could not wake an endpoint workflow');
      break; // Temporal is likely down: try again next tick
    }
  }
  return started;
}
/** Runs sweepPendingDeliveries every 30 s (unref'd, so it never keeps the process alive), and forgets old received provider events. Returns the stop function. */
export function startDeliverySweeper(deps: Omit<EmitDeps, 'box'>, opts: SweeperOptions = {}): () => void {
  const pass = async () => {
    await pruneWebhookEvents(deps.db, new Date(Date.now() - RECEIVED_EVENT_RETENTION_MS));
    return sweepPendingDeliveries(deps, opts);
  };
  return runPeriodically(pass, opts.intervalMs ?? 30_000, deps.log, 'webhook sweeper pass');
}
