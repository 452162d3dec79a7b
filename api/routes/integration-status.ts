/**
 * @module api/routes/integration-status — `GET /integrations/:uniqueKey/status`: one integration's
 * health at a glance. Its connections by health, the syncs failing now (since when, with the last
 * error), the latest errors on its connections, and how many alerts are open.
 *
 * A connection is `failing` when its last check failed or it carries errors (auth, check, or a
 * sync whose last run failed), `ok` when its last check passed and it carries none, else `unknown`.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { ConnectionError } from '../../features/connections/store.js';
import type { AppDeps, AppEnv } from '../context.js';
import { requireSecretKey } from '../middleware/auth.js';
import { describeRoute } from '../openapi.js';
import { params } from '../validate.js';
import { integrationOr404, uniqueKeySchema } from './integrations.js';

const keyParam = z.object({ uniqueKey: uniqueKeySchema });

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

const LIST_LIMIT = 100;
const LAST_ERRORS = 20;

const FAILING = `(c.status = 'failing' OR jsonb_array_length(c.errors) > 0)`;

function errorOut(e: ConnectionError) {
  return { type: e.type === 'check' ? 'auth' : e.type, message: e.message ?? null, log_id: e.log_id, sync: e.sync ?? null, at: e.at ?? null };
}

export function integrationStatusRoutes(deps: AppDeps) {
  describeRoute({
    method: 'get',
    path: '/integrations/:uniqueKey/status',
    summary: 'Health of an integration: connections by health, failing syncs, last errors, open alerts',
    tag: 'observability',
    response: statusResponse,
  });
  return new Hono<AppEnv>().get('/integrations/:uniqueKey/status', requireSecretKey(deps), async (c) => {
    const env = c.get('environment');
    const { uniqueKey } = params(c, keyParam);
    const integration = await integrationOr404(deps, env, uniqueKey);

    const counts = (
      await deps.db.query<{ total: number; failing: number; ok: number }>(
        `SELECT count(*)::int AS total,
                count(*) FILTER (WHERE ${FAILING})::int AS failing,
                count(*) FILTER (WHERE c.status = 'ok' AND jsonb_array_length(c.errors) = 0)::int AS ok
           FROM connections c WHERE c.integration_id = $1`,
        [integration.id],
      )
    ).rows[0]!;

    const failingConnections = await deps.db.query<{ connection_id: string; status: string; errors: ConnectionError[]; last_check_at: Date | null }>(
      `SELECT c.connection_id, c.status, c.errors, c.last_check_at FROM connections c
        WHERE c.integration_id = $1 AND ${FAILING} ORDER BY c.connection_id LIMIT ${LIST_LIMIT}`,
      [integration.id],
    );

    // A failing sync's streak: its ERROR runs since its last SUCCESS.
    const failingSyncs = await deps.db.query<{
      connection_id: string;
      sync_name: string;
      last_error: { type: string; description: string } | null;
      last_finished_at: Date | null;
      since: Date | null;
      failed_runs: number;
    }>(
      `SELECT c.connection_id, s.sync_name, s.last_error, s.last_finished_at, streak.since, streak.failed_runs
         FROM sync_states s
         JOIN connections c ON c.id = s.connection_pk
         LEFT JOIN LATERAL (
           SELECT min(COALESCE(r.finished_at, r.started_at)) AS since, count(*)::int AS failed_runs
             FROM sync_runs r
            WHERE r.connection_pk = s.connection_pk AND r.sync_name = s.sync_name AND r.status = 'ERROR'
              AND r.started_at > COALESCE((SELECT max(ok.started_at) FROM sync_runs ok
                                            WHERE ok.connection_pk = s.connection_pk AND ok.sync_name = s.sync_name AND ok.status = 'SUCCESS'),
                                          '-infinity'::timestamptz)
         ) streak ON true
        WHERE c.integration_id = $1 AND s.last_status = 'ERROR'
        ORDER BY s.last_finished_at DESC NULLS LAST LIMIT ${LIST_LIMIT}`,
      [integration.id],
    );

    const lastErrors = await deps.db.query<{ connection_id: string; error: ConnectionError }>(
      `SELECT c.connection_id, e AS error FROM connections c, jsonb_array_elements(c.errors) e
        WHERE c.integration_id = $1 ORDER BY e->>'at' DESC NULLS LAST LIMIT ${LAST_ERRORS}`,
      [integration.id],
    );

    const openAlerts = (
      await deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE environment_id = $1 AND integration = $2 AND status = 'open'`, [
        env.id,
        integration.uniqueKey,
      ])
    ).rows[0]!.n;

    const unknown = counts.total - counts.failing - counts.ok;
    return c.json({
      data: {
        integration: integration.uniqueKey,
        provider: integration.provider,
        health: counts.failing > 0 ? 'failing' : counts.total > 0 && counts.ok === counts.total ? 'ok' : 'unknown',
        connections: { total: counts.total, ok: counts.ok, failing: counts.failing, unknown },
        failing_connections: failingConnections.rows.map((r) => ({
          connection_id: r.connection_id,
          status: r.status,
          errors: r.errors.map(errorOut),
          last_check_at: r.last_check_at?.toISOString() ?? null,
        })),
        failing_syncs: failingSyncs.rows.map((r) => ({
          connection_id: r.connection_id,
          sync: r.sync_name,
          last_error: r.last_error,
          since: r.since?.toISOString() ?? null,
          last_failed_at: r.last_finished_at?.toISOString() ?? null,
          failed_runs: r.failed_runs ?? 0,
        })),
        last_errors: lastErrors.rows.map((r) => ({ connection_id: r.connection_id, ...errorOut(r.error) })),
        open_alerts: openAlerts,
      },
    } satisfies z.infer<typeof statusResponse>);
  });
}
