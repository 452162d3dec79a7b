/**
 * @module features/syncs/commands — the sync use cases, by name: select the instances a request
 * names, start, pause, trigger, set a frequency, read their status, create and delete variants. The
 * API's routes (api/routes/syncs.ts) and the dashboard's buttons (api/dashboard/connections.tsx)
 * parse their input, call one of these and map the result; nothing else sequences a sync's state and
 * its Temporal schedule.
 */
import type { SecretBox } from '../../lib/crypto.js';
import type { Db } from '../../lib/db/pool.js';
import { ValidationFailed, NotFound, BadRequest } from '../../lib/errors.js';
import type { Lookups } from '../connections/lookups.js';
import { requireConnection, requireIntegration, type MissingKind } from '../connections/resolve.js';
import { listConnections, type Connection } from '../connections/store.js';
import type { Environment } from '../environments/store.js';
import type { Integration } from '../integrations/store.js';
import { countRecords } from '../records/store.js';
import { isScriptEnabled, scriptsOf, type CatalogDeps, type SyncHandle } from '../scripts/catalog.js';
import { parseFrequency } from './frequency.js';
import type { SyncSchedules, SyncTarget } from './schedules.js';
import { ensureSyncState, getSyncState, setFrequencyOverride, setSyncStatus, type SyncState } from './state.js';
import { BASE_VARIANT, createVariant, deleteVariant, instanceName, storedModel, variantsOf, type SyncInstance } from './variants.js';

export interface SyncCommandDeps {
  db: Db;
  box: SecretBox;
  lookups: Lookups;
  schedules: SyncSchedules;
  config?: CatalogDeps['config'];
}

/** One instance of a sync (the base variant or another) on one connection. */
export interface SelectedSync extends SyncInstance {
  conn: Connection;
  /** The instance's name (features/syncs/variants.ts): what keys its state and schedule. */
  instance: string;
  def: SyncHandle;
}

export interface SyncSelection {
  integration: Integration;
  syncs: [string, SyncHandle][];
  instances: SelectedSync[];
}

export interface SyncSelector {
  integrationKey: string | undefined;
  /** Absent: every connection of the integration. */
  connectionId?: string;
  /** Empty (or a `*`): every sync, with the variants each connection has. */
  refs: SyncInstance[];
  /** How a missing integration or connection is answered (features/connections/resolve.ts). */
  missing?: MissingKind;
}

export interface SyncStatus {
  id: string;
  connectionId: string;
  name: string;
  variant: string;
  status: 'RUNNING' | 'PAUSED' | 'STOPPED' | 'ERROR' | 'SUCCESS';
  type: 'INCREMENTAL' | 'FULL';
  finishedAt: Date | null;
  nextScheduledSyncAt: Date | null;
  frequency: string;
  latestResult: Record<string, unknown>;
  latestExecutionStatus: string | null;
  lastError: SyncState['lastError'];
  recordCount: Record<string, number>;
  checkpoint: unknown;
}

export interface SyncOverview {
  name: string;
  def: SyncHandle;
  enabled: boolean;
  state: SyncState | null;
  nextRun: Date | null;
}

export interface FrequencyChange {
  integrationKey: string;
  connectionId: string;
  syncName: string;
  variant?: string;
  /** null reverts to the sync's own frequency. */
  frequency: string | null;
  missing?: MissingKind;
}

export interface VariantRef {
  integrationKey: string;
  connectionId: string;
  syncName: string;
  variant: string;
}

export type SyncCommands = ReturnType<typeof syncCommands>;

export function syncCommands(deps: SyncCommandDeps) {
  const { db, schedules } = deps;
  const target = (env: Environment, conn: Connection, instance: string): SyncTarget => ({ env: env.name, connection: conn, syncName: instance });
  const syncsOf = async (integration: Integration) => (await scriptsOf(deps, integration)).filter((e): e is [string, SyncHandle] => e[1].type === 'sync');

  async function requireEnabled(integration: Integration, syncs: [string, SyncHandle][]): Promise<void> {
    for (const [name, def] of syncs) {
      if (!(await isScriptEnabled(db, integration, def))) {
        throw new NotFound('endpoint_not_enabled', `Sync ${name} is not activated on ${integration.uniqueKey}; activate its endpoint in the Endpoints tab`);
      }
    }
  }

  async function syncOf(integration: Integration, name: string): Promise<SyncHandle> {
    const def = (await syncsOf(integration)).find(([n]) => n === name)?.[1];
    if (!def) throw new BadRequest('unknown_sync', `Sync ${name} does not exist on ${integration.uniqueKey}`);
    return def;
  }

  /**
   * The instances a request names on the selected connections. A variant is never stood in for by its
   * base sync: one that exists on none of the selected connections (on the one named) answers 400 naming it.
   */
  async function select(env: Environment, s: SyncSelector): Promise<SyncSelection> {
    const key = s.integrationKey;
    if (!key) throw new BadRequest('missing_provider_config_key', 'provider_config_key (or the Provider-Config-Key header) is required');
    const missing = s.missing ?? 'syncs';
    let integration: Integration;
    let connections: Connection[];
    if (s.connectionId) {
      const found = await requireConnection(deps.lookups, env, key, s.connectionId, missing);
      integration = found.integration;
      connections = [found.connection];
    } else {
      integration = await requireIntegration(deps.lookups, env, key, missing);
      connections = await listConnections(db, deps.box, env.id, { integrationKeys: [key], limit: 100_000, page: 0 });
    }
    const all = await syncsOf(integration);
    const every = s.refs.length === 0 || s.refs.some((r) => r.name === '*');
    const unknown = every ? [] : s.refs.filter((r) => !all.some(([n]) => n === r.name));
    if (unknown.length)
      throw new ValidationFailed(
        'invalid_body',
        unknown.map((r) => ({ code: 'unknown_sync', message: `Sync ${r.name} does not exist on ${key}`, path: ['syncs'] })),
      );
    const defs = new Map(all);
    const wanted = every ? all.map(([name]) => ({ name, variant: BASE_VARIANT })) : s.refs;
    const instances: SelectedSync[] = [];
    const found = new Set<string>();
    for (const conn of connections) {
      const variants = await variantsOf(db, conn.id);
      const here = every ? [...wanted, ...all.flatMap(([name]) => (variants.get(name) ?? []).map((variant) => ({ name, variant })))] : wanted;
      for (const { name, variant } of here) {
        if (variant !== BASE_VARIANT && !variants.get(name)?.includes(variant)) continue;
        found.add(instanceName(name, variant));
        instances.push({ conn, name, variant, instance: instanceName(name, variant), def: defs.get(name)! });
      }
    }
    const absent = wanted.filter((r) => r.variant !== BASE_VARIANT && !found.has(instanceName(r.name, r.variant)));
    if (absent.length)
      throw new ValidationFailed(
        'invalid_body',
        absent.map((r) => ({
          code: 'unknown_sync_variant',
          message: `Variant ${r.variant} of sync ${r.name} does not exist on ${s.connectionId ? `connection ${s.connectionId}` : `any connection of ${key}`} (create it with POST /sync/${r.name}/variant/${r.variant})`,
          path: ['syncs'],
        })),
      );
    const names = new Set(wanted.map((r) => r.name));
    return { integration, syncs: all.filter(([n]) => names.has(n)), instances };
  }

  /** Unpauses the selected instances and runs them now; refused (404) while a sync's endpoint is not activated. */
  async function start(env: Environment, sel: SyncSelection): Promise<void> {
    await requireEnabled(sel.integration, sel.syncs);
    for (const { conn, instance, def } of sel.instances) {
      const state = await ensureSyncState(db, conn.id, instance, 'RUNNING');
      await setSyncStatus(db, conn.id, instance, 'RUNNING');
      const t = target(env, conn, instance);
      await schedules.ensure(t, state.frequencyOverride ?? def.frequency, { paused: false, runNow: false });
      await schedules.unpause(t);
      await schedules.triggerNow(t);
    }
  }

  async function pause(env: Environment, sel: SyncSelection): Promise<void> {
    for (const { conn, instance, def } of sel.instances) {
      const state = await ensureSyncState(db, conn.id, instance, 'PAUSED');
      await setSyncStatus(db, conn.id, instance, 'PAUSED');
      const t = target(env, conn, instance);
      await schedules.ensure(t, state.frequencyOverride ?? def.frequency, { paused: true, runNow: false });
      await schedules.pause(t);
    }
  }

  /** Runs the selected instances now: incremental, or from scratch (`reset`), optionally emptying their records first. */
  async function trigger(env: Environment, sel: SyncSelection, opts: { reset?: boolean; emptyCache?: boolean } = {}): Promise<void> {
    await requireEnabled(sel.integration, sel.syncs);
    for (const { conn, instance } of sel.instances) {
      await ensureSyncState(db, conn.id, instance);
      await schedules.triggerNow(target(env, conn, instance), opts);
    }
  }

  async function status(env: Environment, sel: SyncSelection): Promise<SyncStatus[]> {
    const out: SyncStatus[] = [];
    for (const { conn, name, variant, instance, def } of sel.instances) {
      const state = await getSyncState(db, conn.id, instance);
      const models = Object.keys(def.models);
      const counts = await countRecords(
        db,
        conn.id,
        models.map((m) => storedModel(m, variant)),
      );
      out.push({
        id: `${conn.id}:${instance}`,
        connectionId: conn.connectionId,
        name,
        variant,
        status: statusOf(state),
        type: def.syncType === 'incremental' ? 'INCREMENTAL' : 'FULL',
        finishedAt: state?.lastFinishedAt ?? null,
        nextScheduledSyncAt: state ? await schedules.nextRunAt(target(env, conn, instance)) : null,
        frequency: state?.frequencyOverride ?? def.frequency,
        latestResult: state?.lastResult ?? {},
        latestExecutionStatus: state?.runningRunId ? 'RUNNING' : (state?.lastStatus ?? null),
        lastError: state?.lastError ?? null,
        recordCount: Object.fromEntries(models.map((m) => [m, counts[storedModel(m, variant)] ?? 0])),
        checkpoint: state?.checkpoint ?? null,
      });
    }
    return out;
  }

  /** Overrides one instance's frequency on one connection (null reverts); answers the frequency now in force. */
  async function setFrequency(env: Environment, change: FrequencyChange): Promise<string> {
    if (change.frequency !== null && parseFrequency(change.frequency) === null) {
      throw new ValidationFailed('invalid_body', [
        { code: 'invalid_frequency', message: 'Sync interval is invalid (e.g. "every 5 minutes", "1h"; at least 30 seconds)', path: ['frequency'] },
      ]);
    }
    const { integration, connection: conn } = await requireConnection(
      deps.lookups,
      env,
      change.integrationKey,
      change.connectionId,
      change.missing ?? 'syncConnection',
    );
    const def = await syncOf(integration, change.syncName);
    const variant = change.variant ?? BASE_VARIANT;
    if (variant !== BASE_VARIANT && !(await variantsOf(db, conn.id)).get(change.syncName)?.includes(variant)) {
      throw new ValidationFailed('invalid_body', [
        {
          code: 'unknown_sync_variant',
          message: `Variant ${variant} of sync ${change.syncName} does not exist on connection ${change.connectionId}`,
          path: ['sync_variant'],
        },
      ]);
    }
    const instance = instanceName(change.syncName, variant);
    const state = await ensureSyncState(db, conn.id, instance);
    await setFrequencyOverride(db, conn.id, instance, change.frequency);
    const frequency = change.frequency ?? def.frequency;
    await schedules.ensure(target(env, conn, instance), frequency, { paused: state.status === 'PAUSED', runNow: false });
    return frequency;
  }

  /** A new variant with its own schedule, state and records; it runs at once. */
  async function addVariant(env: Environment, ref: VariantRef): Promise<{ id: string }> {
    refuseBase(ref.variant);
    const { integration, connection: conn } = await requireConnection(deps.lookups, env, ref.integrationKey, ref.connectionId, 'syncConnection');
    const def = await syncOf(integration, ref.syncName);
    await requireEnabled(integration, [[ref.syncName, def]]);
    if (!(await createVariant(db, conn.id, ref.syncName, ref.variant))) {
      throw new BadRequest('sync_variant_already_exists', `Variant ${ref.variant} of sync ${ref.syncName} already exists on connection ${ref.connectionId}`);
    }
    const instance = instanceName(ref.syncName, ref.variant);
    await schedules.ensure(target(env, conn, instance), def.frequency, { paused: false, runNow: true });
    return { id: `${conn.id}:${instance}` };
  }

  /** Removes a variant: its schedule first, then its state and records. */
  async function removeVariant(env: Environment, ref: VariantRef): Promise<void> {
    refuseBase(ref.variant);
    const { integration, connection: conn } = await requireConnection(deps.lookups, env, ref.integrationKey, ref.connectionId, 'syncConnection');
    const def = (await syncsOf(integration)).find(([n]) => n === ref.syncName)?.[1];
    // The schedule goes first: a run it started after the state is gone finds no state and is skipped.
    await schedules.remove(target(env, conn, instanceName(ref.syncName, ref.variant)));
    if (!(await deleteVariant(db, conn.id, ref.syncName, ref.variant, def?.modelNames ?? []))) {
      throw new NotFound('not_found', `Variant ${ref.variant} of sync ${ref.syncName} does not exist on connection ${ref.connectionId}`);
    }
  }

  /** Every sync of the integration on one connection (base variants): whether activated, its state, its next run. */
  async function overview(env: Environment, integration: Integration, conn: Connection): Promise<SyncOverview[]> {
    const out: SyncOverview[] = [];
    for (const [name, def] of await syncsOf(integration)) {
      const state = await getSyncState(db, conn.id, name);
      const nextRun = state ? await schedules.nextRunAt(target(env, conn, name)).catch(() => null) : null;
      out.push({ name, def, enabled: await isScriptEnabled(db, integration, def), state, nextRun });
    }
    return out;
  }

  return { select, start, pause, trigger, status, overview, setFrequency, addVariant, removeVariant };
}

function refuseBase(variant: string): void {
  if (variant.toLowerCase() === BASE_VARIANT) throw new BadRequest('invalid_variant', `Variant name "${variant}" is protected`);
}

function statusOf(state: SyncState | null): SyncStatus['status'] {
  if (state?.runningRunId) return 'RUNNING';
  if (state?.status === 'PAUSED') return 'PAUSED';
  if (!state) return 'STOPPED';
  if (state.lastStatus === 'ERROR') return 'ERROR';
  if (state.lastStatus === 'SUCCESS') return 'SUCCESS';
  return 'RUNNING';
}
