/**
 * @module api/routes/syncs — starting, pausing, triggering syncs, their status and frequency.
 */
import { z } from 'zod';
import { getConnection, listConnections, type Connection } from '../../features/connections/store.js';
import type { Environment } from '../../features/environments/store.js';
import { getIntegration, type Integration } from '../../features/integrations/store.js';
import { BadRequest, NotFound, ValidationFailed } from '../../lib/errors.js';
import { countRecords } from '../../features/records/store.js';
import { isScriptEnabled, scriptsOf, type SyncHandle } from '../../features/scripts/catalog.js';
import { parseFrequency } from '../../features/syncs/frequency.js';
import { SyncSchedules, syncScheduleTiming } from '../../features/syncs/schedules.js';
import { ensureSyncState, getSyncState, setFrequencyOverride, setSyncStatus } from '../../features/syncs/state.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';
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

const schedulesOf = (deps: AppDeps) => new SyncSchedules(deps.temporal, deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, syncScheduleTiming(deps.config));
const target = (env: Environment, c: Connection, syncName: string) => ({ env: env.name, connection: c, syncName });

async function requireEnabled(deps: AppDeps, sel: Selection) {
  for (const [name, def] of sel.syncs) {
    if (!(await isScriptEnabled(deps.db, sel.integration, def))) {
      throw new NotFound('endpoint_not_enabled', `Sync ${name} is not activated on ${sel.integration.uniqueKey}; activate its endpoint in the Endpoints tab`);
    }
  }
}

async function control(deps: AppDeps, env: Environment, input: z.output<typeof controlBody>, action: 'start' | 'pause') {
  const schedules = schedulesOf(deps);
  const sel = await select(deps, env, input.provider_config_key, input.connection_id, names(input.syncs));
  if (action === 'start') await requireEnabled(deps, sel);
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
  return { success: true as const };
}

const success = z.object({ success: z.literal(true) });
/** Unknown integrations, connections and syncs answer 400, as in Nango. */
const SELECTION_NOTE = 'An unknown integration, connection or sync answers 400 (as Nango does); a sync whose endpoint is not activated 404.';

const syncStatusShape = z.object({
  id: z.string(),
  connection_id: z.string(),
  name: z.string(),
  variant: z.string(),
  status: z.enum(['RUNNING', 'PAUSED', 'STOPPED', 'ERROR', 'SUCCESS']),
  type: z.enum(['INCREMENTAL', 'FULL']),
  finishedAt: z.string().nullable(),
  nextScheduledSyncAt: z.string().nullable(),
  frequency: z.string(),
  latestResult: z.record(z.string(), z.unknown()),
  latestExecutionStatus: z.string().nullable(),
  lastError: z.object({ type: z.string(), description: z.string() }).nullable(),
  recordCount: z.record(z.string(), z.number()),
  checkpoint: z.unknown(),
});

export const triggerSyncs = defineRoute({
  method: 'post',
  path: '/sync/trigger',
  operationId: 'triggerSyncs',
  summary: 'Run syncs now (incremental, full resync with reset, or emptying the cache)',
  description: SELECTION_NOTE,
  tag: 'syncs',
  auth: 'secret_key',
  request: {
    headers: z.object({ 'provider-config-key': z.string().optional(), 'connection-id': z.string().optional() }),
    body: triggerBody,
  },
  responses: { 200: success },
  errors: [404],
}).handle(async ({ deps, headers: h, body: input }, c) => {
  const env = c.get('environment');
  const schedules = schedulesOf(deps);
  const sel = await select(deps, env, input.provider_config_key ?? h['provider-config-key'], input.connection_id ?? h['connection-id'], names(input.syncs));
  await requireEnabled(deps, sel);
  const reset = input.opts?.reset ?? (input.full_resync === true || input.sync_mode === 'full_refresh' || input.sync_mode === 'full_refresh_and_clear_cache');
  const emptyCache = input.opts?.emptyCache ?? input.sync_mode === 'full_refresh_and_clear_cache';
  for (const conn of sel.connections) {
    for (const [name] of sel.syncs) {
      await ensureSyncState(deps.db, conn.id, name);
      await schedules.triggerNow(target(env, conn, name), { reset, emptyCache });
    }
  }
  return { success: true as const };
});

export const startSyncs = defineRoute({
  method: 'post',
  path: '/sync/start',
  operationId: 'startSyncs',
  summary: 'Start (unpause) syncs and run them now',
  description: SELECTION_NOTE,
  tag: 'syncs',
  auth: 'secret_key',
  request: { body: controlBody },
  responses: { 200: success },
  errors: [404],
}).handle(async ({ deps, body: input }, c) => control(deps, c.get('environment'), input, 'start'));

export const pauseSyncs = defineRoute({
  method: 'post',
  path: '/sync/pause',
  operationId: 'pauseSyncs',
  summary: 'Pause syncs',
  description: SELECTION_NOTE,
  tag: 'syncs',
  auth: 'secret_key',
  request: { body: controlBody },
  responses: { 200: success },
  errors: [],
}).handle(async ({ deps, body: input }, c) => control(deps, c.get('environment'), input, 'pause'));

export const syncStatus = defineRoute({
  method: 'get',
  path: '/sync/status',
  operationId: 'getSyncStatus',
  summary: 'Status, last result, record counts, next run and checkpoint',
  description: SELECTION_NOTE,
  tag: 'syncs',
  auth: 'secret_key',
  request: { query: statusQuery },
  responses: { 200: z.object({ syncs: z.array(syncStatusShape) }) },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  const env = c.get('environment');
  const schedules = schedulesOf(deps);
  const sel = await select(deps, env, q.provider_config_key, q.connection_id, q.syncs === '*' ? [] : q.syncs.split(',').map((s) => s.split('::')[0]!));
  const out: z.output<typeof syncStatusShape>[] = [];
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
  return { syncs: out };
});

export const updateSyncFrequency = defineRoute({
  method: 'put',
  path: '/sync/update-connection-frequency',
  operationId: 'updateSyncConnectionFrequency',
  summary: "Override a sync's frequency for one connection (null reverts)",
  description: 'An unknown connection or sync answers 400, as Nango does.',
  tag: 'syncs',
  auth: 'secret_key',
  request: { body: frequencyBody },
  responses: { 200: z.object({ frequency: z.string() }) },
  errors: [],
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
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
  await schedulesOf(deps).ensure(target(env, conn, input.sync_name), frequency, { paused: state.status === 'PAUSED', runNow: false });
  return { frequency };
});
