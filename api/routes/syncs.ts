/**
 * @module api/routes/syncs — starting, pausing, triggering syncs, their status and frequency.
 */
import { z } from 'zod';
import { BASE_VARIANT, parseInstance, variantNameSchema, type SyncInstance } from '../../features/syncs/variants.js';
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
const controlSelector = (input: z.output<typeof controlBody>) => ({
  integrationKey: input.provider_config_key,
  connectionId: input.connection_id,
  refs: refsOf(input.syncs),
});

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

const refsOf = (syncs: z.infer<typeof syncRef>[]): SyncInstance[] => syncs.map((s) => (typeof s === 'string' ? parseInstance(s) : s));

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
  const sel = await deps.syncs.select(env, {
    integrationKey: input.provider_config_key ?? h['provider-config-key'],
    connectionId: input.connection_id ?? h['connection-id'],
    refs: refsOf(input.syncs),
  });
  const reset = input.opts?.reset ?? (input.full_resync === true || input.sync_mode === 'full_refresh' || input.sync_mode === 'full_refresh_and_clear_cache');
  const emptyCache = input.opts?.emptyCache ?? input.sync_mode === 'full_refresh_and_clear_cache';
  await deps.syncs.trigger(env, sel, { reset, emptyCache });
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
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
  await deps.syncs.start(env, await deps.syncs.select(env, controlSelector(input)));
  return { success: true as const };
});

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
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
  await deps.syncs.pause(env, await deps.syncs.select(env, controlSelector(input)));
  return { success: true as const };
});

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
  const sel = await deps.syncs.select(env, {
    integrationKey: q.provider_config_key,
    connectionId: q.connection_id,
    refs: q.syncs === '*' ? [] : q.syncs.split(',').map(parseInstance),
  });
  const syncs = await deps.syncs.status(env, sel);
  return {
    syncs: syncs.map(({ connectionId, finishedAt, nextScheduledSyncAt, ...s }) => ({
      ...s,
      connection_id: connectionId,
      finishedAt: finishedAt?.toISOString() ?? null,
      nextScheduledSyncAt: nextScheduledSyncAt?.toISOString() ?? null,
    })),
  };
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
}).handle(async ({ deps, body: input }, c) => ({
  frequency: await deps.syncs.setFrequency(c.get('environment'), {
    integrationKey: input.provider_config_key,
    connectionId: input.connection_id,
    syncName: input.sync_name,
    variant: input.sync_variant,
    frequency: input.frequency,
  }),
}));

const variantParams = z
  .object({ name: z.string().regex(/^[a-zA-Z0-9_-]+$/, 'a sync name has letters, digits, _ and - only'), variant: variantNameSchema })
  .strict();
const variantBody = z.object({ provider_config_key: uniqueKeySchema, connection_id: connectionIdSchema }).strict();

const variantRef = (p: z.output<typeof variantParams>, body: z.output<typeof variantBody>) => ({
  integrationKey: body.provider_config_key,
  connectionId: body.connection_id,
  syncName: p.name,
  variant: p.variant,
});

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
  const { id } = await deps.syncs.addVariant(c.get('environment'), variantRef(p, body));
  return { id, name: p.name, variant: p.variant };
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
  await deps.syncs.removeVariant(c.get('environment'), variantRef(p, body));
  return { success: true as const };
});
