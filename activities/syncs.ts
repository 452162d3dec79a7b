import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { getConnectionByPk, type Connection } from '../features/connections/store.js';
import { getIntegrationById, type Integration } from '../features/integrations/store.js';
import { emptyCache, forgetRun, storedHashes } from '../features/records/store.js';
import { keepRunPageDigests, RunPageDigests } from '../features/records/page-digests.js';
import { RunSeen } from '../features/records/delete-scope.js';
import { createScriptContext } from '../features/scripts/context.js';
import { WriteLane } from '../features/scripts/write-lane.js';
import { modelsOf, scriptOf, type SyncHandle } from '../features/scripts/catalog.js';
import {
  addInvalid,
  addRunResult,
  appendSyncRunLog,
  claimSync,
  completeSyncRun,
  createSyncRun,
  ensureSyncState,
  finishSyncRun,
  getSyncRun,
  getSyncState,
  lastSuccessfulRunStart,
  lockSyncRun,
  noteDeleteScopes,
  noteRunDeletes,
  releaseSync,
  resetSync,
  saveCheckpoint,
  saveResumePosition,
  SyncRunGone,
  type ModelResult,
  type SyncRun,
} from '../features/syncs/state.js';
import { workflowHandle, type SyncWorkflowInput } from '../workflows/contracts.js';
import { emitEvent } from '../features/webhooks/emit.js';
import { alertHooks, environmentName } from '../features/alerts/index.js';
import { environmentNameById } from '../features/environments/store.js';
import { annotate, metric } from '../lib/otel/index.js';
import type { ActivityDeps } from './deps.js';
import { throwIfDatabaseUnavailable, throwIfRetryable, throwIfWrittenBefore } from '../features/scripts/failures.js';
import { openWriteMarks } from '../features/scripts/write-marks.js';
import { BASE_VARIANT, parseInstance, storedModel } from '../features/syncs/variants.js';
import { heartbeating } from './heartbeat.js';
import { inOrder } from '../lib/in-order.js';
import type { LogLine } from '../sdk/helpers.js';

interface Loaded {
  connection: Connection;
  integration: Integration;
  script: SyncHandle;
  /** The variant of the sync this instance runs (features/syncs/variants.ts). */
  variant: string;
  /** Where the instance keeps a model's records. */
  stored: (model: string) => string;
}

export function syncActivities(deps: ActivityDeps) {
  /** The connection and script of a sync instance (its name, or `name::variant`). */
  async function load(connectionPk: number, instance: string): Promise<Loaded | null> {
    const { name, variant } = parseInstance(instance);
    const connection = await getConnectionByPk(deps.db, deps.box, connectionPk);
    if (!connection) return null;
    const integration = await getIntegrationById(deps.db, deps.box, connection.integrationId);
    const script = integration ? await scriptOf(deps, integration, 'sync', name) : undefined;
    if (!integration || !script) return null;
    return { connection, integration, script, variant, stored: (model) => storedModel(model, variant) };
  }

  /** True when the run holding the sync is still executing in Temporal. */
  async function holderAlive(runId: string): Promise<boolean> {
    const [workflowId, temporalRunId] = runId.split('/');
    try {
      const d = await workflowHandle(deps.temporal, 'syncWorkflow', workflowId!, temporalRunId).describe();
      return d.status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  /** A run ended: its span attributes and the `sync` run metric; returns the metric labels. */
  async function recordRunEnd(l: Loaded, run: SyncRun, runId: string, ok: boolean) {
    annotate({ integration: l.connection.integrationKey, connection: l.connection.connectionId, script: run.syncName, runId });
    const labels = {
      environment: await environmentName(deps.db, l.connection.environmentId),
      integration: l.connection.integrationKey,
      script: run.syncName,
    };
    metric.run('sync', labels, ok, deps.clock.now().getTime() - run.startedAt.getTime());
    return labels;
  }

  async function emitSyncEvents(l: Loaded, run: SyncRun, outcome: { ok: true; checkpointTo: unknown } | { ok: false; error: string }): Promise<void> {
    const environment = await environmentNameById(deps.db, l.connection.environmentId);
    for (const model of Object.keys(l.script.models)) {
      const base = {
        from: 'switchyard',
        type: 'sync',
        connectionId: l.connection.connectionId,
        providerConfigKey: l.connection.integrationKey,
        syncName: parseInstance(run.syncName).name,
        syncVariant: l.variant,
        model,
        syncType: run.mode === 'full' ? 'INITIAL' : 'INCREMENTAL',
        environment,
      };
      const payload = outcome.ok
        ? {
            ...base,
            success: true,
            modifiedAfter: run.startedAt.toISOString(),
            queryTimeStamp: run.startedAt.toISOString(),
            responseResults: run.results[model] ?? { added: 0, updated: 0, deleted: 0 },
            checkpoints: { from: run.checkpointFrom ?? null, to: outcome.checkpointTo ?? null },
          }
        : {
            ...base,
            success: false,
            error: { type: 'script_error', description: outcome.error },
            startedAt: run.startedAt.toISOString(),
            failedAt: deps.clock.now().toISOString(),
          };
      await emitEvent(
        deps,
        {
          environmentId: l.connection.environmentId,
          type: 'sync',
          integration: l.connection.integrationKey,
          connectionId: l.connection.connectionId,
          payload,
        },
        { idempotencyKey: `sync:${run.id}:${model}` },
      );
    }
  }

  return {
    async beginSyncRun(input: SyncWorkflowInput & { runId: string }): Promise<{ skipped: boolean; reason?: string }> {
      const l = await load(input.connectionPk, input.syncName);
      if (!l) return { skipped: true, reason: 'the connection or its sync no longer exists' };
      // A variant exists while its state does (the base sync's state is made on first use).
      if (l.variant !== BASE_VARIANT && !(await getSyncState(deps.db, input.connectionPk, input.syncName))) {
        return { skipped: true, reason: 'the sync variant no longer exists' };
      }
      const state = await ensureSyncState(deps.db, input.connectionPk, input.syncName);
      const holder = state.runningRunId;
      const stale = holder && holder !== input.runId && !(await holderAlive(holder)) ? holder : null;
      if (!(await claimSync(deps.db, input.connectionPk, input.syncName, input.runId, stale))) {
        return { skipped: true, reason: `another run (${holder}) is in progress` };
      }
      if (input.reset) await resetSync(deps.db, input.connectionPk, input.syncName);
      if (input.emptyCache) await emptyCache(deps.db, input.connectionPk, Object.keys(l.script.models).map(l.stored));
      const fresh = await getSyncState(deps.db, input.connectionPk, input.syncName);
      const full = l.script.syncType !== 'incremental' || input.reset === true || fresh?.checkpoint == null;
      await createSyncRun(deps.db, {
        id: input.runId,
        connectionPk: input.connectionPk,
        syncName: input.syncName,
        mode: full ? 'full' : 'incremental',
        checkpointFrom: fresh?.checkpoint ?? null,
      });
      return { skipped: false };
    },

    /**
     * Runs the script. Its writes go through an ordered lane (features/scripts/write-lane.ts): a
     * page commits while the script works on the next, and a page's position is written only after
     * the pages before it, so a retry after a crash resumes from the first page not yet stored.
     */
    async executeSync(runId: string): Promise<void> {
      const run = await getSyncRun(deps.db, runId);
      if (!run) throw ApplicationFailure.nonRetryable(`sync run ${runId} does not exist`);
      const l = await load(run.connectionPk, run.syncName);
      if (!l) throw ApplicationFailure.nonRetryable('the connection or its sync no longer exists');
      annotate({ integration: l.connection.integrationKey, connection: l.connection.connectionId, script: run.syncName, runId });
      // A full run saves every model of its script: their stored hashes (the first page waits for them) are read while the run starts and fetches.
      const storedAhead = new Map(
        run.mode === 'full' ? Object.keys(l.script.models).map((m) => [l.stored(m), storedHashes(deps.db, run.connectionPk, l.stored(m))] as const) : [],
      );
      // Awaited by the run's first save of the model, or by nobody when the run fails first.
      for (const read of storedAhead.values()) read.catch(() => undefined);
      const { marks, previous } = await openWriteMarks(deps.db, `sync:${runId}`);
      throwIfWrittenBefore(previous);
      const stopHeartbeat = heartbeating(2000);
      const lane = new WriteLane();
      const counted = new Set<string>();
      const pageDigests = new RunPageDigests(deps.db, run.connectionPk, runId);
      const seen = new RunSeen();
      const logLines = inOrder((e: LogLine) => appendSyncRunLog(deps.db, runId, e));
      const ctx = createScriptContext(deps, l.connection, {
        lane,
        writes: marks,
        kind: 'sync',
        runId,
        models: await modelsOf(deps, l.integration),
        // Seen ids are noted in every run: a script may ask for deletion detection of a model in an incremental run too.
        seenRunId: runId,
        isFullSync: run.mode === 'full',
        compareStored: true,
        pageDigests,
        seen,
        storedAhead,
        variant: l.variant,
        storedModel: l.stored,
        log: (e) => {
          deps.log[e.level]({ runId, ...e.fields }, e.message);
          logLines.push(e);
        },
        claim: (tx) => lockSyncRun(tx, runId),
        // In the transaction that wrote the records: finishSync reads these counts to decide on the webhook.
        // A page that changed nothing adds nothing, once the model is on the run's counts.
        onSaved: async (model, r, tx) => {
          if (r.added === 0 && r.updated === 0 && counted.has(model)) return;
          await addRunResult(tx, runId, model, { added: r.added, updated: r.updated });
          counted.add(model);
        },
        // Once the model is on the run's counts, an unchanged page adds nothing to them: it is noted in one statement.
        skipUnchanged: async (model, ids, check, noted) => {
          if (!counted.has(model)) return false;
          if (!(await pageDigests.noteUnchanged(l.stored(model), check, noted, ids))) throw new SyncRunGone(runId);
          return true;
        },
        onDeleted: (model, n, tx) => addRunResult(tx, runId, model, { deleted: n }),
        onInvalid: (model, problems) => void addInvalid(deps.db, runId, model, problems).catch(() => undefined),
        checkpoint: {
          get: async () => (await getSyncState(deps.db, run.connectionPk, run.syncName))?.checkpoint ?? null,
          save: (value) => saveCheckpoint(deps.db, run.connectionPk, run.syncName, value),
          clear: () => resetSync(deps.db, run.connectionPk, run.syncName),
        },
        deletes: {
          track: (model) => noteRunDeletes(deps.db, runId, model, 'track'),
          sweep: (model) => noteRunDeletes(deps.db, runId, model, 'sweep'),
        },
        lastSyncDate: (await lastSuccessfulRunStart(deps.db, run.connectionPk, run.syncName)) ?? undefined,
        pages: { positions: run.resume, save: (key, pos) => saveResumePosition(deps.db, runId, key, pos) },
      });
      try {
        // Whatever the script did, its queued pages are written before the run goes on (or fails).
        const ran = await l.script.exec(ctx).then(
          () => null,
          (err: unknown) => ({ err }),
        );
        await lane.drain();
        for (const [model, { pages, skipped }] of pageDigests.counts) {
          if (skipped > 0) ctx.log(`${skipped} of ${pages} pages of ${model} unchanged since the last run: not validated or hashed again`);
        }
        if (ran) throw ran.err;
        await noteDeleteScopes(deps.db, runId, seen.scopes());
      } catch (err) {
        throwIfRetryable(err, marks.landed);
        throwIfDatabaseUnavailable(err);
        throw ApplicationFailure.nonRetryable((err as Error).message ?? String(err), 'SyncScriptError');
      } finally {
        stopHeartbeat();
        await logLines.flushed();
      }
    },

    async finishSync(runId: string): Promise<Record<string, ModelResult>> {
      const run = await getSyncRun(deps.db, runId);
      // Gone with its variant: nothing of it is left to finish.
      if (!run) return {};
      const l = await load(run.connectionPk, run.syncName);
      if (!l) return {};
      // A retry after the commit finds the run done and only repeats the idempotent steps below.
      await completeSyncRun(deps.db, runId, Object.keys(l.script.models), l.stored);
      await keepRunPageDigests(deps.db, run.connectionPk, Object.keys(l.script.models).map(l.stored), runId);
      const done = (await getSyncRun(deps.db, runId))!;
      const results = Object.fromEntries(Object.keys(l.script.models).map((m) => [m, done.results[m] ?? { added: 0, updated: 0, deleted: 0 }]));
      const state = await getSyncState(deps.db, run.connectionPk, run.syncName);
      await releaseSync(deps.db, run.connectionPk, run.syncName, runId, { status: 'SUCCESS', result: results });
      await emitSyncEvents(l, { ...done, results }, { ok: true, checkpointTo: state?.checkpoint ?? null });
      const labels = await recordRunEnd(l, run, runId, true);
      metric.recordsSaved(
        labels,
        Object.values(results).reduce((n, r) => n + (r.added ?? 0) + (r.updated ?? 0), 0),
      );
      await alertHooks.syncSucceeded(deps, l.connection, run.syncName, runId);
      return results;
    },

    /** The script failed for good: what was saved stays; the run and the sync show the error. */
    async failSync(runId: string, message: string): Promise<void> {
      const run = await getSyncRun(deps.db, runId);
      if (!run) return;
      await finishSyncRun(deps.db, runId, 'ERROR', { type: 'script_error', description: message });
      await releaseSync(deps.db, run.connectionPk, run.syncName, runId, { status: 'ERROR', error: { type: 'script_error', description: message } });
      await forgetRun(deps.db, runId);
      const l = await load(run.connectionPk, run.syncName);
      if (l) await emitSyncEvents(l, run, { ok: false, error: message });
      if (l) {
        await recordRunEnd(l, run, runId, false);
        await alertHooks.syncFailed(deps, l.connection, run.syncName, runId, message, deps.clock.now());
      }
    },
  };
}
