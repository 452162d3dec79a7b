/**
 * @module api/routes/integration-status — `GET /integrations/:uniqueKey/status`: one integration's
 * health at a glance. Its connections by health, the syncs failing now (since when, with the last
 * error), the latest errors on its connections, and how many alerts are open.
 *
 * A connection is `failing` when its last check failed or it carries errors (auth, check, or a
 * sync whose last run failed), `ok` when its last check passed and it carries none, else `unknown`.
 */
import { z } from 'zod';
import type { ConnectionError } from '../../features/connections/store.js';
import { integrationHealthRows } from '../../features/integrations/status.js';
import { defineRoute } from '../route.js';
import { integrationOr404, keyParam } from './integrations.js';

const errorShape = z.object({
  connection_id: z.string(),
  type: z.string(),
  message: z.string().nullable(),
  log_id: z.string(),
  sync: z.string().nullable(),
  at: z.string().nullable(),
});

export const statusResponse = z.object({
  data: z.object({
    integration: z.string(),
    provider: z.string(),
    health: z.enum(['ok', 'failing', 'unknown']),
    connections: z.object({ total: z.number(), ok: z.number(), failing: z.number(), unknown: z.number() }),
    failing_connections: z.array(
      z.object({
        connection_id: z.string(),
        status: z.string(),
        errors: z.array(errorShape.omit({ connection_id: true })),
        last_check_at: z.string().nullable(),
      }),
    ),
    failing_syncs: z.array(
      z.object({
        connection_id: z.string(),
        sync: z.string(),
        last_error: z.object({ type: z.string(), description: z.string() }).nullable(),
        since: z.string().nullable(),
        last_failed_at: z.string().nullable(),
        failed_runs: z.number(),
      }),
    ),
    last_errors: z.array(errorShape),
    open_alerts: z.number(),
  }),
});

function errorOut(e: ConnectionError) {
  return { type: e.type === 'check' ? 'auth' : e.type, message: e.message ?? null, log_id: e.log_id, sync: e.sync ?? null, at: e.at ?? null };
}

export const getIntegrationStatus = defineRoute({
  method: 'get',
  path: '/integrations/:uniqueKey/status',
  operationId: 'getIntegrationStatus',
  summary: 'Health of an integration: connections by health, failing syncs, last errors, open alerts',
  tag: 'observability',
  auth: 'secret_key',
  request: { params: keyParam },
  responses: { 200: statusResponse },
  errors: [404],
}).handle(async ({ deps, params }, c) => {
  const env = c.get('environment');
  const integration = await integrationOr404(deps, env, params.uniqueKey);
  const { counts, failingConnections, failingSyncs, lastErrors, openAlerts } = await integrationHealthRows(deps.db, env.id, integration);
  const unknown = counts.total - counts.failing - counts.ok;
  return {
    data: {
      integration: integration.uniqueKey,
      provider: integration.provider,
      health: counts.failing > 0 ? 'failing' : counts.total > 0 && counts.ok === counts.total ? 'ok' : 'unknown',
      connections: { total: counts.total, ok: counts.ok, failing: counts.failing, unknown },
      failing_connections: failingConnections.map((r) => ({
        connection_id: r.connection_id,
        status: r.status,
        errors: r.errors.map(errorOut),
        last_check_at: r.last_check_at?.toISOString() ?? null,
      })),
      failing_syncs: failingSyncs.map((r) => ({
        connection_id: r.connection_id,
        sync: r.sync_name,
        last_error: r.last_error,
        since: r.since?.toISOString() ?? null,
        last_failed_at: r.last_finished_at?.toISOString() ?? null,
        failed_runs: r.failed_runs ?? 0,
      })),
      last_errors: lastErrors.map((r) => ({ connection_id: r.connection_id, ...errorOut(r.error) })),
      open_alerts: openAlerts,
    },
  };
});
