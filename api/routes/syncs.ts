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
import {
  BASE_VARIANT,
  createVariant,
  deleteVariant,
  instanceName,
  parseInstance,
  storedModel,
  variantNameSchema,
  variantsOf,
  type SyncInstance,
} from '../../features/syncs/variants.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';

/** A sync, by name (`name::variant` names a variant, as Nango's clients send it) or as { name, variant }. */
const syncRef = z.union([
  z
    .string()
    .min(1)
    .refine(
      (s) => parseInstance(s).variant === BASE_VARIANT || variantNameSchema.safeParse(parseInstance(s).variant).success,
      'a variant has letters, digits, _ and - only',
    ),
  z.object({ name: z.string().min(1), variant: variantNameSchema }).strict(),
]);

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
    sync_variant: variantNameSchema.optional(),
    provider_config_key: uniqueKeySchema,
    connection_id: connectionIdSchema,
    frequency: z.string().nullable(),
  })
  .strict();

/** One instance of a sync (the base variant or another) on one connection. */
interface Selected extends SyncInstance {
  conn: Connection;
  /** The instance's name (features/syncs/variants.ts): what keys its state and schedule. */
  instance: string;
  def: SyncHandle;
}

interface Selection {
  integration: Integration;
  syncs: [string, SyncHandle][];
  instances: Selected[];
}

/**
 * The instances the request names on the selected connections. No names (or `*`): every sync, with
 * the variants each connection has. A variant is never stood in for by its base sync: one that exists on
 * none of the selected connections (on the one named) answers 400 naming it.
 */
async function select(deps: AppDeps, env: Environment, pck: string | undefined, connectionId: string | undefined, refs: SyncInstance[]): Promise<Selection> {
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
  const every = refs.length === 0 || refs.some((r) => r.name === '*');
  const unknown = every ? [] : refs.filter((r) => !all.some(([s]) => s === r.name));
  if (unknown.length)
    throw new ValidationFailed(
      'invalid_body',
      unknown.map((r) => ({ code: 'unknown_sync', message: `Sync ${r.name} does not exist on ${pck}`, path: ['syncs'] })),
    );
  const defs = new Map(all);
  const wanted = every ? all.map(([name]) => ({ name, variant: BASE_VARIANT })) : refs;
  const instances: Selected[] = [];
  const found = new Set<string>();
  for (const conn of connections) {
    const variants = await variantsOf(deps.db, conn.id);
    const here = every ? [...wanted, ...all.flatMap(([name]) => (variants.get(name) ?? []).map((variant) => ({ name, variant })))] : wanted;
    for (const { name, variant } of here) {
      if (variant !== BASE_VARIANT && !variants.get(name)?.includes(variant)) continue;
      found.add(instanceName(name, variant));
      instances.push({ conn, name, variant, instance: instanceName(name, variant), def: defs.get(name)! });
    }
  }
  const missing = wanted.filter((r) => r.variant !== BASE_VARIANT && !found.has(instanceName(r.name, r.variant)));
  if (missing.length)
    throw new ValidationFailed(
      'invalid_body',
      missing.map((r) => ({
        code: 'unknown_sync_variant',
        message: `Variant ${r.variant} of sync ${r.name} does not exist on ${connectionId ? `connection ${connectionId}` : `any connection of ${pck}`} (create it with POST /sync/${r.name}/variant/${r.variant})`,
        path: ['syncs'],
      })),
    );
  const names = new Set(wanted.map((r) => r.name));
  return { integration, syncs: all.filter(([n]) => names.has(n)), instances };
}

const refsOf = (syncs: z.infer<typeof syncRef>[]): SyncInstance[] => syncs.map((s) => (typeof s === 'string' ? parseInstance(s) : s));

const schedulesOf = (deps: AppDeps) => new SyncSchedules(deps.temporal, deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, syncScheduleTiming(deps.config));
const target = (env: Environment, c: Connection, instance: string) => ({ env: env.name, connection: c, syncName: instance });

async function requireEnabled(deps: AppDeps, sel: Selection) {
  for (const [name, def] of sel.syncs) {
    if (!(await isScriptEnabled(deps.db, sel.integration, def))) {
      throw new NotFound('endpoint_not_enabled', `Sync ${name} is not activated on ${sel.integration.uniqueKey}; activate its endpoint in the Endpoints tab`);
    }
  }
}

async function control(deps: AppDeps, env: Environment, input: z.output<typeof controlBody>, action: 'start' | 'pause') {
  const schedules = schedulesOf(deps);
  const sel = await select(deps, env, input.provider_config_key, input.connection_id, refsOf(input.syncs));
  if (action === 'start') await requireEnabled(deps, sel);
  for (const { conn, instance, def } of sel.instances) {
    const state = await ensureSyncState(deps.db, conn.id, instance, action === 'start' ? 'RUNNING' : 'PAUSED');
    await setSyncStatus(deps.db, conn.id, instance, action === 'start' ? 'RUNNING' : 'PAUSED');
    if (action === 'start') {
      await schedules.ensure(target(env, conn, instance), state.frequencyOverride ?? def.frequency, { paused: false, runNow: false });
      await schedules.unpause(target(env, conn, instance));
      await schedules.triggerNow(target(env, conn, instance));
    } else {
      await schedules.ensure(target(env, conn, instance), state.frequencyOverride ?? def.frequency, { paused: true, runNow: false });
      await schedules.pause(target(env, conn, instance));
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
  scope: 'environment:syncs:execute',
  request: {
    headers: z.object({ 'provider-config-key': z.string().optional(), 'connection-id': z.string().optional() }),
    body: triggerBody,
  },
  responses: { 200: success },
  errors: [404],
}).handle(async ({ deps, headers: h, body: input }, c) => {
  const env = c.get('environment');
  const schedules = schedulesOf(deps);
  const sel = await select(deps, env, input.provider_config_key ?? h['provider-config-key'], input.connection_id ?? h['connection-id'], refsOf(input.syncs));
  await requireEnabled(deps, sel);
  const reset = input.opts?.reset ?? (input.full_resync === true || input.sync_mode === 'full_refresh' || input.sync_mode === 'full_refresh_and_clear_cache');
  const emptyCache = input.opts?.emptyCache ?? input.sync_mode === 'full_refresh_and_clear_cache';
  for (const { conn, instance } of sel.instances) {
    await ensureSyncState(deps.db, conn.id, instance);
    await schedules.triggerNow(target(env, conn, instance), { reset, emptyCache });
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
  scope: 'environment:syncs:execute',
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
  scope: 'environment:syncs:execute',
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
  scope: 'environment:syncs:read',
  request: { query: statusQuery },
  responses: { 200: z.object({ syncs: z.array(syncStatusShape) }) },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  const env = c.get('environment');
  const schedules = schedulesOf(deps);
  const sel = await select(deps, env, q.provider_config_key, q.connection_id, q.syncs === '*' ? [] : q.syncs.split(',').map(parseInstance));
  const out: z.output<typeof syncStatusShape>[] = [];
  for (const { conn, name, variant, instance, def } of sel.instances) {
    const state = await getSyncState(deps.db, conn.id, instance);
    const models = Object.keys(def.models);
    const counts = await countRecords(
      deps.db,
      conn.id,
      models.map((m) => storedModel(m, variant)),
    );
    out.push({
      id: `${conn.id}:${instance}`,
      connection_id: conn.connectionId,
      name,
      variant,
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
      nextScheduledSyncAt: state ? ((await schedules.nextRunAt(target(env, conn, instance)))?.toISOString() ?? null) : null,
      frequency: state?.frequencyOverride ?? def.frequency,
      latestResult: state?.lastResult ?? {},
      latestExecutionStatus: state?.runningRunId ? 'RUNNING' : (state?.lastStatus ?? null),
      lastError: state?.lastError ?? null,
      recordCount: Object.fromEntries(models.map((m) => [m, counts[storedModel(m, variant)] ?? 0])),
      checkpoint: state?.checkpoint ?? null,
    });
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
  scope: 'environment:syncs:update',
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
  const def = await syncDefOf(deps, integration, input.sync_name);
  if (!def) throw new BadRequest('unknown_sync', `Sync ${input.sync_name} does not exist on ${input.provider_config_key}`);
  const variant = input.sync_variant ?? BASE_VARIANT;
  if (variant !== BASE_VARIANT && !(await variantsOf(deps.db, conn.id)).get(input.sync_name)?.includes(variant)) {
    throw new ValidationFailed('invalid_body', [
      {
        code: 'unknown_sync_variant',
        message: `Variant ${variant} of sync ${input.sync_name} does not exist on connection ${input.connection_id}`,
        path: ['sync_variant'],
      },
    ]);
  }
  const instance = instanceName(input.sync_name, variant);
  const state = await ensureSyncState(deps.db, conn.id, instance);
  await setFrequencyOverride(deps.db, conn.id, instance, input.frequency);
  const frequency = input.frequency ?? def.frequency;
  await schedulesOf(deps).ensure(target(env, conn, instance), frequency, { paused: state.status === 'PAUSED', runNow: false });
  return { frequency };
});

const variantParams = z
  .object({ name: z.string().regex(/^[a-zA-Z0-9_-]+$/, 'a sync name has letters, digits, _ and - only'), variant: variantNameSchema })
  .strict();
const variantBody = z.object({ provider_config_key: uniqueKeySchema, connection_id: connectionIdSchema }).strict();

const syncDefOf = async (deps: AppDeps, integration: Integration, name: string) =>
  (await scriptsOf(deps, integration)).find(([n, d]) => n === name && d.type === 'sync')?.[1] as SyncHandle | undefined;

/** What a variant request names: its connection, integration and sync (when they exist), and the instance. `base` is refused. */
async function variantRequest(deps: AppDeps, env: Environment, p: z.output<typeof variantParams>, body: z.output<typeof variantBody>) {
  if (p.variant.toLowerCase() === BASE_VARIANT) throw new BadRequest('invalid_variant', `Variant name "${p.variant}" is protected`);
  const conn = await getConnection(deps.db, deps.box, env.id, body.provider_config_key, body.connection_id);
  if (!conn) throw new BadRequest('unknown_connection', 'Connection not found');
  const integration = await getIntegration(deps.db, deps.box, env.id, body.provider_config_key);
  const def = integration ? await syncDefOf(deps, integration, p.name) : undefined;
  return { conn, integration, def, instance: instanceName(p.name, p.variant) };
}

export const createSyncVariant = defineRoute({
  method: 'post',
  path: '/sync/:name/variant/:variant',
  operationId: 'createSyncVariant',
  summary: 'Create a variant of a sync for one connection: its own schedule, state and records; it runs at once',
  description:
    'A variant is another instance of the sync on the connection; its records are read with `GET /records?variant=`. `base` is protected (400 invalid_variant); an existing variant answers 400 sync_variant_already_exists; a sync whose endpoint is not activated 404.',
  tag: 'syncs',
  auth: 'secret_key',
  scope: 'environment:syncs:variant:create',
  request: { params: variantParams, body: variantBody },
  responses: { 200: z.object({ id: z.string(), name: z.string(), variant: z.string() }) },
  errors: [404],
}).handle(async ({ deps, params: p, body }, c) => {
  const env = c.get('environment');
  const { conn, integration, def, instance } = await variantRequest(deps, env, p, body);
  if (!integration) throw new BadRequest('unknown_provider_config', `Integration ${body.provider_config_key} does not exist`);
  if (!def) throw new BadRequest('unknown_sync', `Sync ${p.name} does not exist on ${body.provider_config_key}`);
  await requireEnabled(deps, { integration, syncs: [[p.name, def]], instances: [] });
  if (!(await createVariant(deps.db, conn.id, p.name, p.variant))) {
    throw new BadRequest('sync_variant_already_exists', `Variant ${p.variant} of sync ${p.name} already exists on connection ${body.connection_id}`);
  }
  await schedulesOf(deps).ensure(target(env, conn, instance), def.frequency, { paused: false, runNow: true });
  return { id: `${conn.id}:${instance}`, name: p.name, variant: p.variant };
});

export const deleteSyncVariant = defineRoute({
  method: 'delete',
  path: '/sync/:name/variant/:variant',
  operationId: 'deleteSyncVariant',
  summary: 'Delete a variant of a sync for one connection: its schedule, state and records',
  description: '`base` is protected (400 invalid_variant); a variant that does not exist answers 404 not_found, as Nango does.',
  tag: 'syncs',
  auth: 'secret_key',
  scope: 'environment:syncs:variant:delete',
  request: { params: variantParams, body: variantBody },
  responses: { 200: success },
  errors: [404],
}).handle(async ({ deps, params: p, body }, c) => {
  const env = c.get('environment');
  const { conn, def, instance } = await variantRequest(deps, env, p, body);
  // The schedule goes first: a run it started after the state is gone finds no state and is skipped.
  await schedulesOf(deps).remove(target(env, conn, instance));
  if (!(await deleteVariant(deps.db, conn.id, p.name, p.variant, def?.modelNames ?? []))) {
    throw new NotFound('not_found', `Variant ${p.variant} of sync ${p.name} does not exist on connection ${body.connection_id}`);
  }
  return { success: true as const };
});
