/**
 * @module api/routes/syncs — starting, pausing, triggering syncs, their status and frequency.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { getConnection, listConnections, type Connection } from '../../features/connections/store.js';
import type { Environment } from '../../features/environments/store.js';
import { getIntegration, type Integration } from '../../features/integrations/store.js';
import { BadRequest, NotFound, ValidationFailed } from '../../lib/errors.js';
import { countRecords } from '../../features/records/store.js';
import { isScriptEnabled, scriptsOf, type SyncHandle } from '../../features/scripts/catalog.js';
import { parseFrequency } from '../../features/syncs/frequency.js';
import { SyncSchedules } from '../../features/syncs/schedules.js';
import { ensureSyncState, getSyncState, setFrequencyOverride, setSyncStatus } from '../../features/syncs/state.js';
import type { AppDeps, AppEnv } from '../context.js';
import { requireSecretKey } from '../middleware/auth.js';
import { describeRoute } from '../openapi.js';
import { body, query } from '../validate.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';

const syncRef = z.union([z.string().min(1), z.object({ name: z.string().min(1), variant: z.string().min(1) }).strict()]);

const triggerBody = z
  .object({
    syncs: z.array(syncRef).default([]),
    provider_config_key: uniqueKeySchema.optional(),
    connection_id: connectionIdSchema.optional(),
    opts: z.object({ reset: z.boolean().optional(), emptyCache: z.boolean().optional() }).strict().optional(),
    sync_mode: z.enum(['incremental', 'full_refresh', 'full_refresh_and_clear_cache']).optional(),
    full_resync: z.boolean().optional(),
  })
  .strict()
  .refine((b) => !(b.opts && (b.sync_mode || b.full_resync !== undefined)), {
    message: 'opts cannot be combined with the deprecated sync_mode / full_resync',
    path: ['opts'],
  });

const controlBody = z.object({ syncs: z.array(syncRef), provider_config_key: uniqueKeySchema, connection_id: connectionIdSchema.optional() }).strict();

const statusQuery = z.object({ syncs: z.string().min(1), provider_config_key: uniqueKeySchema, connection_id: connectionIdSchema.optional() }).strict();

const frequencyBody = z
  .object({
    sync_name: z.string().min(1),
    sync_variant: z.string().optional(),
    provider_config_key: uniqueKeySchema,
    connection_id: connectionIdSchema,
    frequency: z.string().nullable(),
  })
  .strict();

interface Selection {
  integration: Integration;
  connections: Connection[];
  syncs: [string, SyncHandle][];
}

async function select(deps: AppDeps, env: Environment, pck: string | undefined, connectionId: string | undefined, names: string[]): Promise<Selection> {
  if (!pck) throw new BadRequest('missing_provider_config_key', 'provider_config_key (or the Provider-Config-Key header) is required');
  const integration = await getIntegration(deps.db, deps.box, env.id, pck);
  if (!integration) throw new BadRequest('unknown_provider_config', `Integration ${pck} does not exist`);
  let connections: Connection[];
  if (connectionId) {
    const c = await getConnection(deps.db, deps.box, env.id, pck, connectionId);
    if (!c) throw new BadRequest('unknown_connection', 'Connection not found');
    connections = [c];
  } else {
    connections = await listConnections(deps.db, deps.box, env.id, { integrationKeys: [pck], limit: 100_000, page: 0 });
  }
  const all = (await scriptsOf(deps, integration)).filter((e): e is [string, SyncHandle] => e[1].type === 'sync');
  const wanted = names.length === 0 || names.includes('*') ? all : all.filter(([n]) => names.includes(n));
  const unknown = names.filter((n) => n !== '*' && !all.some(([s]) => s === n));
  if (unknown.length)
    throw new ValidationFailed(
      'invalid_body',
      unknown.map((n) => ({ code: 'unknown_sync', message: `Sync ${n} does not exist on ${pck}`, path: ['syncs'] })),
    );
  return { integration, connections, syncs: wanted };
}

const names = (syncs: z.infer<typeof syncRef>[]) => syncs.map((s) => (typeof s === 'string' ? s.split('::')[0]! : s.name));

export function syncRoutes(deps: AppDeps) {
  const auth = requireSecretKey(deps);
  const schedules = new SyncSchedules(deps.temporal, deps.config.SWITCHYARD_TASK_QUEUE_PREFIX);
  const target = (env: Environment, c: Connection, syncName: string) => ({ env: env.name, connection: c, syncName });

  async function requireEnabled(sel: Selection) {
    for (const [name, def] of sel.syncs) {
      if (!(await isScriptEnabled(deps.db, sel.integration, def))) {
        throw new NotFound('endpoint_not_enabled', `Sync ${name} is not activated on ${sel.integration.uniqueKey}; activate its endpoint in the Endpoints tab`);
      }
    }
  }

  async function control(c: Context<AppEnv>, action: 'start' | 'pause') {
    const env = c.get('environment');
    const input = await body(c, controlBody);
    const sel = await select(deps, env, input.provider_config_key, input.connection_id, names(input.syncs));
    if (action === 'start') await requireEnabled(sel);
    for (const conn of sel.connections) {
      for (const [name, def] of sel.syncs) {
        const state = await ensureSyncState(deps.db, conn.id, name, action === 'start' ? 'RUNNING' : 'PAUSED');
        await setSyncStatus(deps.db, conn.id, name, action === 'start' ? 'RUNNING' : 'PAUSED');
        if (action === 'start') {
          await schedules.ensure(target(env, conn, name), state.frequencyOverride ?? def.frequency, { paused: false, runNow: false });
          await schedules.unpause(target(env, conn, name));
          await schedules.triggerNow(target(env, conn, name));
        } else {
          await schedules.ensure(target(env, conn, name), state.frequencyOverride ?? def.frequency, { paused: true, runNow: false });
          await schedules.pause(target(env, conn, name));
        }
      }
    }
    return c.json({ success: true });
  }

  describeRoute({
    method: 'post',
    path: '/sync/trigger',
    summary: 'Run syncs now (incremental, full resync with reset, or emptying the cache)',
    tag: 'syncs',
    body: triggerBody,
  });
  describeRoute({ method: 'post', path: '/sync/start', summary: 'Start (unpause) syncs and run them now', tag: 'syncs', body: controlBody });
  describeRoute({ method: 'post', path: '/sync/pause', summary: 'Pause syncs', tag: 'syncs', body: controlBody });
  describeRoute({
    method: 'get',
    path: '/sync/status',
    summary: 'Status, last result, record counts, next run and checkpoint',
    tag: 'syncs',
    query: statusQuery,
  });
  describeRoute({
    method: 'put',
    path: '/sync/update-connection-frequency',
    summary: "Override a sync's frequency for one connection (null reverts)",
    tag: 'syncs',
    body: frequencyBody,
  });

  return new Hono<AppEnv>()
    .post('/sync/trigger', auth, async (c) => {
      const env = c.get('environment');
      const input = await body(c, triggerBody);
      const sel = await select(
        deps,
        env,
        input.provider_config_key ?? c.req.header('provider-config-key'),
        input.connection_id ?? c.req.header('connection-id'),
        names(input.syncs),
      );
      await requireEnabled(sel);
      const reset =
        input.opts?.reset ?? (input.full_resync === true || input.sync_mode === 'full_refresh' || input.sync_mode === 'full_refresh_and_clear_cache');
      const emptyCache = input.opts?.emptyCache ?? input.sync_mode === 'full_refresh_and_clear_cache';
      for (const conn of sel.connections) {
        for (const [name] of sel.syncs) {
          await ensureSyncState(deps.db, conn.id, name);
          await schedules.triggerNow(target(env, conn, name), { reset, emptyCache });
        }
      }
      return c.json({ success: true });
    })
    .post('/sync/start', auth, (c) => control(c, 'start'))
    .post('/sync/pause', auth, (c) => control(c, 'pause'))
    .get('/sync/status', auth, async (c) => {
      const env = c.get('environment');
      const q = query(c, statusQuery);
      const sel = await select(deps, env, q.provider_config_key, q.connection_id, q.syncs === '*' ? [] : q.syncs.split(',').map((s) => s.split('::')[0]!));
      const out = [];
      for (const conn of sel.connections) {
        for (const [name, def] of sel.syncs) {
          const state = await getSyncState(deps.db, conn.id, name);
          const models = Object.keys(def.models);
          out.push({
            id: `${conn.id}:${name}`,
            connection_id: conn.connectionId,
            name,
            variant: 'base',
            status: state?.runningRunId
              ? 'RUNNING'
              : state?.status === 'PAUSED'
                ? 'PAUSED'
                : !state
                  ? 'STOPPED'
                  : state.lastStatus === 'ERROR'
                    ? 'ERROR'
                    : state.lastStatus === 'SUCCESS'
                      ? 'SUCCESS'
                      : 'RUNNING',
            type: def.syncType === 'incremental' ? 'INCREMENTAL' : 'FULL',
            finishedAt: state?.lastFinishedAt?.toISOString() ?? null,
            nextScheduledSyncAt: state ? ((await schedules.nextRunAt(target(env, conn, name)))?.toISOString() ?? null) : null,
            frequency: state?.frequencyOverride ?? def.frequency,
            latestResult: state?.lastResult ?? {},
            latestExecutionStatus: state?.runningRunId ? 'RUNNING' : (state?.lastStatus ?? null),
            lastError: state?.lastError ?? null,
            recordCount: await countRecords(deps.db, conn.id, models),
            checkpoint: state?.checkpoint ?? null,
          });
        }
      }
      return c.json({ syncs: out });
    })
    .put('/sync/update-connection-frequency', auth, async (c) => {
      const env = c.get('environment');
      const input = await body(c, frequencyBody);
      if (input.frequency !== null && parseFrequency(input.frequency) === null) {
        throw new ValidationFailed('invalid_body', [
          { code: 'invalid_frequency', message: 'Sync interval is invalid (e.g. "every 5 minutes", "1h"; at least 30 seconds)', path: ['frequency'] },
        ]);
      }
      const integration = await getIntegration(deps.db, deps.box, env.id, input.provider_config_key);
      const conn = integration && (await getConnection(deps.db, deps.box, env.id, input.provider_config_key, input.connection_id));
      if (!integration || !conn) throw new BadRequest('unknown_connection', 'Connection not found');
      const def = (await scriptsOf(deps, integration)).find(([n, d]) => n === input.sync_name && d.type === 'sync')?.[1] as SyncHandle | undefined;
      if (!def) throw new BadRequest('unknown_sync', `Sync ${input.sync_name} does not exist on ${input.provider_config_key}`);
      const state = await ensureSyncState(deps.db, conn.id, input.sync_name);
      await setFrequencyOverride(deps.db, conn.id, input.sync_name, input.frequency);
      const frequency = input.frequency ?? def.frequency;
      await schedules.ensure(target(env, conn, input.sync_name), frequency, { paused: state.status === 'PAUSED', runNow: false });
      return c.json({ frequency });
    });
}
