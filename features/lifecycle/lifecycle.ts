/**
 * @module features/lifecycle/lifecycle — what happens in Temporal when connections and integrations change:
 * a connection check at creation plus its schedule; the post-connection-creation scripts of a new
 * connection (onEventWorkflow); a schedule per activated sync; schedules removed with the
 * connection, or when a sync's endpoints are deactivated.
 */
import { ScheduleNotFoundError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { getConnectionByPk, type Connection } from '../connections/store.js';
import type { Environment } from '../environments/store.js';
import type { Integration } from '../integrations/store.js';
import type { Db } from '../../lib/db/pool.js';
import type { SecretBox } from '../../lib/crypto.js';
import { checkWorkflowId, onEventWorkflowId, scheduleAction, searchAttributesFor, startWorkflow, taskQueueFor } from '../../workflows/contracts.js';
import { getIntegrationById } from '../integrations/store.js';
import { isScriptEnabled, scriptsOf, type ScriptHandle } from '../scripts/catalog.js';
import type { SyncSchedules } from '../syncs/schedules.js';
import { ensureSyncState, getSyncState } from '../syncs/state.js';
import { instanceName, instancesOf, parseInstance, variantsOf } from '../syncs/variants.js';
import { runPeriodically } from '../../lib/periodic.js';

export interface Lifecycle {
  /** `created`: the connection is new (not an override): its post-connection-creation scripts run. */
  connectionSaved(env: Environment, connection: Connection, opts?: { created?: boolean }): Promise<void>;
  connectionDeleting(env: Environment, connection: Connection): Promise<void>;
  integrationDeleting(env: Environment, integration: Integration): Promise<void>;
  endpointsChanged(env: Environment, integration: Integration): Promise<void>;
  /**
   * Deletes every schedule whose runs go to the environment's task queue and terminates the
   * workflows running there (a webhook endpoint's, a sync's). Found in Temporal, not the database,
   * so running it again after the environment's rows are gone catches what was made meanwhile.
   */
  environmentDeleting(env: Environment): Promise<void>;
  /**
   * True when connectionSaved ran to its end for this connection: its check workflow, the last
   * step, was started (it may not have run yet when Temporal is busy).
   */
  checkStarted(env: Environment, connection: Pick<Connection, 'integrationKey' | 'connectionId'>): Promise<boolean>;
}

export const CHECK_INTERVAL = '6h';

export function createLifecycle(deps: { temporal: Client; db: Db; box: SecretBox; taskQueuePrefix: string; schedules: SyncSchedules }): Lifecycle {
  const { temporal } = deps;
  const syncs = deps.schedules;

  /** Brings one connection's sync schedules in line with its integration's activated endpoints. */
  async function reconcileSyncs(
    env: Environment,
    integration: Integration,
    connection: Pick<Connection, 'id' | 'integrationKey' | 'connectionId'>,
    isNew: boolean,
  ): Promise<[string, ScriptHandle][]> {
    const scripts = await scriptsOf(deps, integration);
    const variants = await variantsOf(deps.db, connection.id);
    for (const [name, def] of scripts) {
      if (def.type !== 'sync') continue;
      const enabled = await isScriptEnabled(deps.db, integration, def);
      // The base sync, then the variants the connection has: each its own schedule.
      for (const instance of [name, ...(variants.get(name) ?? []).map((v) => instanceName(name, v))]) {
        const target = { env: env.name, connection, syncName: instance };
        if (!enabled) {
          await syncs.remove(target);
          continue;
        }
        const existing = await getSyncState(deps.db, connection.id, instance);
        if (!existing && !def.autoStart) continue;
        const state = existing ?? (await ensureSyncState(deps.db, connection.id, instance, 'RUNNING'));
        await syncs.ensure(target, state.frequencyOverride ?? def.frequency, { paused: state.status !== 'RUNNING', runNow: isNew || !existing });
      }
    }
    // Syncs that no longer exist (removed by a deploy) stop, with their variants: their schedules go, their state stays.
    const current = new Set(scripts.filter(([, d]) => d.type === 'sync').map(([n]) => n));
    for (const instance of await instancesOf(deps.db, connection.id)) {
      if (!current.has(parseInstance(instance).name)) await syncs.remove({ env: env.name, connection, syncName: instance });
    }
    return scripts;
  }

  async function connectionsOf(integration: Integration) {
    const { rows } = await deps.db.query<{ id: number; connection_id: string }>('SELECT id, connection_id FROM connections WHERE integration_id = $1', [
      integration.id,
    ]);
    return rows.map((r) => ({ id: r.id, integrationKey: integration.uniqueKey, connectionId: r.connection_id }));
  }

  async function deleteSchedule(id: string): Promise<void> {
    try {
      await temporal.schedule.getHandle(id).delete();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }

  async function connectionDeleting(env: Environment, connection: Pick<Connection, 'id' | 'integrationKey' | 'connectionId' | 'integrationId'>): Promise<void> {
    await deleteSchedule(checkWorkflowId(deps.taskQueuePrefix, env.name, connection.integrationKey, connection.connectionId));
    for (const instance of await instancesOf(deps.db, connection.id)) await syncs.remove({ env: env.name, connection, syncName: instance });
    const integration = await getIntegrationById(deps.db, deps.box, connection.integrationId);
    if (!integration) return;
    for (const [name, def] of await scriptsOf(deps, integration)) if (def.type === 'sync') await syncs.remove({ env: env.name, connection, syncName: name });
  }

  return {
    async connectionSaved(env, connection, opts = {}) {
      // Order matters: the check workflow starts last, so a connection that was checked has its
      // schedules; one never checked may not (its API process died in between) and is completed by
      // sweepUnfinishedConnections. Each step keeps what exists, so running this again is safe.
      const integration = await getIntegrationById(deps.db, deps.box, connection.integrationId);
      const scripts = integration ? await reconcileSyncs(env, integration, connection, true) : [];
      const taskQueue = taskQueueFor(deps.taskQueuePrefix, env.name);
      const event = 'post-connection-creation';
      if (opts.created && scripts.some(([, s]) => s.type === 'on-event' && s.event === event)) {
        // Once per connection (the id names its row): a second start, by the sweeper, is refused.
        try {
          await startWorkflow(temporal, 'onEventWorkflow', {
            workflowId: onEventWorkflowId(env.name, event, connection.integrationKey, connection.connectionId, connection.id),
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            taskQueue,
            args: [{ connectionPk: connection.id, event }],
            typedSearchAttributes: searchAttributesFor({
              environment: env.name,
              integration: connection.integrationKey,
              connection: connection.connectionId,
              script: event,
            }),
            staticSummary: `${event} scripts of ${connection.integrationKey} connection ${connection.connectionId}`,
          });
        } catch (err) {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }
      }
      const id = checkWorkflowId(deps.taskQueuePrefix, env.name, connection.integrationKey, connection.connectionId);
      const labels = searchAttributesFor({
        environment: env.name,
        integration: connection.integrationKey,
        connection: connection.connectionId,
        script: 'connection-check',
      });
      try {
        await temporal.schedule.create({
          scheduleId: id,
          spec: { intervals: [{ every: CHECK_INTERVAL }] },
          action: scheduleAction('connectionCheckWorkflow', {
            taskQueue,
            args: [{ connectionPk: connection.id }],
            typedSearchAttributes: labels,
            staticSummary: `Check ${connection.integrationKey} connection ${connection.connectionId}`,
          }),
          policies: { overlap: 'SKIP' as never },
          typedSearchAttributes: labels,
        });
      } catch (err) {
        if ((err as Error).name !== 'ScheduleAlreadyRunning') throw err;
      }
      try {
        await startWorkflow(temporal, 'connectionCheckWorkflow', {
          workflowId: id,
          taskQueue,
          args: [{ connectionPk: connection.id }],
          typedSearchAttributes: labels,
          staticSummary: `Check ${connection.integrationKey} connection ${connection.connectionId}`,
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },
    connectionDeleting,
    async integrationDeleting(env, integration) {
      for (const c of await connectionsOf(integration)) await connectionDeleting(env, { ...c, integrationId: integration.id });
    },
    async endpointsChanged(env, integration) {
      for (const c of await connectionsOf(integration)) await reconcileSyncs(env, integration, c, false);
    },
    async checkStarted(env, connection) {
      const id = checkWorkflowId(deps.taskQueuePrefix, env.name, connection.integrationKey, connection.connectionId);
      try {
        await temporal.workflow.getHandle(id).describe();
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    },
    async environmentDeleting(env) {
      const taskQueue = taskQueueFor(deps.taskQueuePrefix, env.name);
      // Schedule ids hold the task queue (workflows/contracts.ts checkWorkflowId, syncScheduleId).
      const prefixes = [`check:${taskQueue}:`, `sync:${taskQueue}:`];
      const ids: string[] = [];
      for await (const schedule of temporal.schedule.list()) if (prefixes.some((p) => schedule.scheduleId.startsWith(p))) ids.push(schedule.scheduleId);
      for (const id of ids) await deleteSchedule(id);
      const running = temporal.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` });
      for await (const w of running) {
        try {
          await temporal.workflow.getHandle(w.workflowId, w.runId).terminate(`environment ${env.name} deleted`);
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      }
    },
  };
}

export interface ConnectionSweeperDeps {
  db: Db;
  box: SecretBox;
  lifecycle: Lifecycle;
  log?: { warn(obj: object, msg: string): void };
}

/**
 * One pass: runs connectionSaved again for connections never checked although older than
 * `minAgeMs` (the check workflow is the last step of connectionSaved, and the check records
 * `last_check_at`), so a connection whose API process died between its row and its schedules gets
 * them. A connection whose check workflow was started is complete, only not checked yet (Temporal
 * is behind): it is left alone, since redoing it (a query and an update of each busy schedule) is
 * what kept Temporal behind with 1,000 new connections (bench/RESULTS.md, issue 32). Returns how
 * many were completed.
 */
export async function sweepUnfinishedConnections(deps: ConnectionSweeperDeps, opts: { minAgeMs?: number; batch?: number } = {}): Promise<number> {
  const { rows } = await deps.db.query<{ id: number; env_id: number; env_uuid: string; env_name: string }>(
    `SELECT c.id, e.id AS env_id, e.uuid AS env_uuid, e.name AS env_name FROM connections c JOIN environments e ON e.id = c.environment_id
     WHERE c.last_check_at IS NULL AND c.created_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY c.id LIMIT $2`,
    [opts.minAgeMs ?? 15_000, opts.batch ?? 100],
  );
  let done = 0;
  for (const r of rows) {
    const connection = await getConnectionByPk(deps.db, deps.box, r.id);
    if (!connection) continue;
    const env = { id: r.env_id, uuid: r.env_uuid, name: r.env_name };
    try {
      if (await deps.lifecycle.checkStarted(env, connection)) continue;
      // Never checked: its creation may not have started its post-connection-creation scripts either
      // (a start that happened is not repeated).
      await deps.lifecycle.connectionSaved(env, connection, { created: true });
      done++;
    } catch (err) {
      deps.log?.warn({ err, connectionPk: r.id }, 'connection sweeper could not complete a connection');
      break; // Temporal is likely down: try again next tick
    }
  }
  return done;
}

/** Runs sweepUnfinishedConnections every 30 s (unref'd). Returns the stop function. */
export function startConnectionSweeper(deps: ConnectionSweeperDeps, opts: { intervalMs?: number; minAgeMs?: number } = {}): () => void {
  return runPeriodically(() => sweepUnfinishedConnections(deps, opts), opts.intervalMs ?? 30_000, deps.log, 'connection sweeper pass');
}
