/**
 * @module api/routes/alerts — the environment's alerts (features/alerts): failed sync runs, auth refresh
 * failures, connection check failures and dead-lettered webhooks, one open alert per cause.
 */
import { z } from 'zod';
import { listAlerts, presentAlert } from '../../features/alerts/store.js';
import { idCursorSchema, idPage } from '../cursor.js';
import { defineRoute } from '../route.js';

const listQuery = z
  .object({
    status: z.enum(['open', 'resolved']).optional(),
    kind: z.enum(['sync_failed', 'auth_refresh_failed', 'connection_check_failed', 'webhook_dead']).optional(),
    provider_config_key: z.string().max(255).optional(),
    connection_id: z.string().max(255).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: idCursorSchema.optional(),
  })
  .strict();

export const alertShape = z.object({
  id: z.number(),
  kind: z.enum(['sync_failed', 'auth_refresh_failed', 'connection_check_failed', 'webhook_dead']),
  cause: z.string(),
  status: z.enum(['open', 'resolved']),
  integration: z.string().nullable(),
  connection_id: z.string().nullable(),
  script: z.string().nullable(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()),
  occurrences: z.number(),
  first_seen_at: z.string(),
  last_seen_at: z.string(),
  resolved_at: z.string().nullable(),
  resolved_by: z.string().nullable(),
});
const listResponse = z.object({ data: z.array(alertShape), next_cursor: z.string().nullable() });

export const listAlertsRoute = defineRoute({
  method: 'get',
  path: '/alerts',
  operationId: 'listAlerts',
  summary: 'Alerts, newest first: open ones until the failing thing next succeeds (?status=open|resolved)',
  tag: 'observability',
  auth: 'secret_key',
  request: { query: listQuery },
  responses: { 200: listResponse },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  const env = c.get('environment');
  const page = await listAlerts(deps.db, env.id, {
    status: q.status,
    kind: q.kind,
    integration: q.provider_config_key,
    connectionId: q.connection_id,
    beforeId: q.cursor,
    limit: q.limit + 1,
  });
  const { items, nextCursor } = idPage(page, q.limit, (a) => a.id);
  return { data: items.map(presentAlert), next_cursor: nextCursor };
});
