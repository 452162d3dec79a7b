/**
 * @module api/routes/webhook-deliveries — every webhook sent to the developer's backend, with
 * each attempt, replay of one, and recovery of every failed one since a time.
 */
import { z } from 'zod';
import { NotFound } from '../../lib/errors.js';
import { attemptsOf, listDeliveries, type Attempt, type Delivery } from '../../features/webhooks/deliveries.js';
import { RECOVER_BATCH, recoverFailedDeliveries, replayDelivery } from '../../features/webhooks/emit.js';
import { idCursorSchema, idPage } from '../cursor.js';
import { defineRoute } from '../route.js';

const listQuery = z
  .object({
    status: z.enum(['pending', 'delivered', 'dead']).optional(),
    type: z.enum(['auth', 'sync', 'async_action', 'forward', 'alert']).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: idCursorSchema.optional(),
  })
  .strict();
const idParam = z.object({ id: z.uuid() });

const attemptShape = z.object({
  n: z.number(),
  started_at: z.string(),
  status: z.number().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().nullable(),
  response_excerpt: z.string().nullable(),
});
const deliveryShape = z.object({
  id: z.string(),
  event_id: z.number(),
  replay_of: z.string().nullable(),
  type: z.string(),
  url: z.string(),
  status: z.enum(['pending', 'delivered', 'dead']),
  connection_id: z.string().nullable(),
  provider_config_key: z.string().nullable(),
  attempts: z.array(attemptShape),
  last_status: z.number().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
});
const listResponse = z.object({ data: z.array(deliveryShape), next_cursor: z.string().nullable() });
const replayResponse = z.object({ data: deliveryShape });

function shape(d: Delivery, attempts: Attempt[]): z.infer<typeof deliveryShape> {
  return {
    id: d.id,
    event_id: d.eventId,
    replay_of: d.replayOf,
    type: d.type,
    url: d.url,
    status: d.status,
    connection_id: d.connectionId,
    provider_config_key: d.integration,
    attempts: attempts.map((a) => ({
      n: a.n,
      started_at: a.startedAt.toISOString(),
      status: a.status,
      error: a.error,
      duration_ms: a.durationMs,
      response_excerpt: a.responseExcerpt,
    })),
    last_status: d.lastStatus,
    last_error: d.lastError,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
  };
}

export const listWebhookDeliveries = defineRoute({
  method: 'get',
  path: '/webhook-deliveries',
  operationId: 'listWebhookDeliveries',
  summary: 'Webhooks sent to your backend, newest first, with every attempt',
  tag: 'webhooks',
  auth: 'secret_key',
  request: { query: listQuery },
  responses: { 200: listResponse },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  const env = c.get('environment');
  const page = await listDeliveries(deps.db, env.id, { status: q.status, type: q.type, beforeSeq: q.cursor, limit: q.limit + 1 });
  const { items, nextCursor } = idPage(page, q.limit, (d) => d.seq);
  const attempts = await attemptsOf(
    deps.db,
    items.map((d) => d.id),
  );
  return {
    data: items.map((d) => shape(d, attempts.get(d.id) ?? [])),
    next_cursor: nextCursor,
  };
});

export const replayWebhookDelivery = defineRoute({
  method: 'post',
  path: '/webhook-deliveries/:id/replay',
  operationId: 'replayWebhookDelivery',
  summary: 'Send a delivery again (same body, same URL, signed with the current key) as a new delivery',
  tag: 'webhooks',
  auth: 'secret_key',
  request: { params: idParam },
  responses: { 201: replayResponse },
  errors: [404],
}).handle(async ({ deps, params }, c) => {
  const env = c.get('environment');
  const copy = await replayDelivery(deps, env.id, params.id);
  if (!copy) throw new NotFound('not_found', `No webhook delivery ${params.id} in this environment`);
  return { data: shape(copy, []) };
});

const recoverBody = z
  .object({ since: z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'expected an ISO 8601 date or date-time, e.g. 2026-11-23T10:00:00Z' }) })
  .strict();
const recoverResponse = z.object({ requeued: z.number() });

export const recoverWebhookDeliveries = defineRoute({
  method: 'post',
  path: '/webhook-deliveries/recover',
  operationId: 'recoverWebhookDeliveries',
  summary: `Replay every webhook that failed (dead, with no delivered or pending replay) since a time, once each (at most ${RECOVER_BATCH} per call)`,
  tag: 'webhooks',
  auth: 'secret_key',
  request: { body: recoverBody },
  responses: { 200: recoverResponse },
  errors: [],
}).handle(async ({ deps, body }, c) => {
  const env = c.get('environment');
  return { requeued: await recoverFailedDeliveries(deps, env.id, new Date(body.since)) };
});
