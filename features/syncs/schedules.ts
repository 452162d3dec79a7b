/**
 * @module features/syncs/schedules — one Temporal Schedule per connection × sync. Schedules live in
 * Temporal, so they survive restarts of every Switchyard process.
 */
import { createHash, randomUUID } from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Connection } from '../connections/store.js';
import {
  scheduleAction,
  searchAttributesFor,
  startWorkflow,
  syncScheduleId,
  syncTriggerWorkflowId,
  taskQueueFor,
  type SyncWorkflowInput,
} from '../../workflows/contracts.js';
import { parseFrequency } from './frequency.js';
import { isTemporalUnavailable } from '../../lib/temporal/unavailable.js';

export interface SyncTarget {
  env: string;
  connection: Pick<Connection, 'id' | 'integrationKey' | 'connectionId'>;
  syncName: string;
}

function labels(t: SyncTarget) {
  return searchAttributesFor({ environment: t.env, integration: t.connection.integrationKey, connection: t.connection.connectionId, script: t.syncName });
}

/** How sync schedules fire (SWITCHYARD_SYNC_CATCHUP_MINUTES, SWITCHYARD_SYNC_SPREAD_SECONDS). */
export interface SyncScheduleTiming {
  /** A firing the schedule gets to later than this is dropped (Temporal counts it as missed). */
  catchupWindowMs: number;
  /** Phases are spread over [0, min(interval, spreadMs)). 0: every schedule fires on the epoch's phase. */
  spreadMs: number;
}

export function syncScheduleTiming(config: { SWITCHYARD_SYNC_CATCHUP_MINUTES: number; SWITCHYARD_SYNC_SPREAD_SECONDS: number }): SyncScheduleTiming {
  return { catchupWindowMs: config.SWITCHYARD_SYNC_CATCHUP_MINUTES * 60_000, spreadMs: config.SWITCHYARD_SYNC_SPREAD_SECONDS * 1000 };
}

/**
 * The schedule's interval spec: `every`, and a phase offset in whole seconds taken from a hash of the
 * schedule id, so the same sync always fires at the same second and a thousand one-minute syncs are
 * spread over the minute instead of waking on the same second. Unlike the spec's `jitter`, the offset
 * is part of the nominal time, so the run's scheduled time (its workflow id) is when it was due.
 */
export function intervalSpec(scheduleId: string, every: number, spreadMs: number): { every: number; offset?: number } {
  const span = Math.floor(Math.min(every, spreadMs) / 1000);
  if (span <= 1) return { every };
  const offset = (createHash('sha256').update(scheduleId).digest().readUInt32BE(0) % span) * 1000;
  return offset === 0 ? { every } : { every, offset };
}

export class SyncSchedules {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueuePrefix: string,
    private readonly timing: SyncScheduleTiming,
  ) {}

  private idOf(t: SyncTarget): string {
    return syncScheduleId(this.taskQueuePrefix, t.env, t.connection.integrationKey, t.connection.connectionId, t.syncName);
  }

  private action(t: SyncTarget, input: Pick<SyncWorkflowInput, 'reset' | 'emptyCache'> = {}) {
    return scheduleAction('syncWorkflow', {
      workflowId: this.idOf(t),
      taskQueue: taskQueueFor(this.taskQueuePrefix, t.env),
      args: [{ connectionPk: t.connection.id, syncName: t.syncName, ...input }],
      typedSearchAttributes: labels(t),
      staticSummary: `Sync ${t.syncName} of ${t.connection.integrationKey}/${t.connection.connectionId}`,
    });
  }

  /**
   * Creates the schedule if missing, or sets its frequency and paused state; runs it at once when
   * created. The paused state is always written from `opts` (the sync's state in Postgres):
   * an update carries the whole schedule, and a describe that predates a concurrent pause would
   * otherwise write the old state back.
   */
  async ensure(t: SyncTarget, frequency: string, opts: { paused: boolean; runNow: boolean }): Promise<void> {
    const every = parseFrequency(frequency);
    if (!every) throw new Error(`invalid sync frequency "${frequency}"`);
    const id = this.idOf(t);
    const spec = { intervals: [intervalSpec(id, every, this.timing.spreadMs)] };
    const catchupWindow = this.timing.catchupWindowMs;
    const handle = this.temporal.schedule.getHandle(id);
    try {
      // Spec and catch-up window follow the current settings, so a changed setting reaches existing schedules.
      await handle.update((prev) => ({ ...prev, spec, policies: { ...prev.policies, catchupWindow }, state: { ...prev.state, paused: opts.paused } }));
      return;
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
    try {
      await this.temporal.schedule.create({
        scheduleId: id,
        spec,
        action: this.action(t),
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow },
        state: { paused: opts.paused, triggerImmediately: opts.runNow && !opts.paused },
        typedSearchAttributes: labels(t),
      });
    } catch (err) {
      if ((err as Error).name !== 'ScheduleAlreadyRunning') throw err;
    }
  }

  async remove(t: SyncTarget): Promise<void> {
    try {
      await this.temporal.schedule.getHandle(this.idOf(t)).delete();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }

  async pause(t: SyncTarget): Promise<void> {
    await this.temporal.schedule.getHandle(this.idOf(t)).pause('paused through the API');
  }

  async unpause(t: SyncTarget): Promise<void> {
    await this.temporal.schedule.getHandle(this.idOf(t)).unpause('started through the API');
  }

  async nextRunAt(t: SyncTarget): Promise<Date | null> {
    try {
      const d = await this.temporal.schedule.getHandle(this.idOf(t)).describe();
      return d.state.paused ? null : (d.info.nextActionTimes[0] ?? null);
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return null;
      // The describe is a query to the schedule's own workflow, which a busy server may answer late:
      // the next run time is then unknown, and the rest of a status answer is still worth having.
      if (isTemporalUnavailable(err)) return null;
      throw err;
    }
  }

  /** A run now, outside the schedule. The run itself refuses to overlap another (claimSync). */
  async triggerNow(t: SyncTarget, opts: { reset?: boolean; emptyCache?: boolean } = {}): Promise<string> {
    const workflowId = syncTriggerWorkflowId(this.idOf(t), randomUUID());
    const { type: _type, workflowType: _workflowType, ...action } = this.action(t, { reset: opts.reset, emptyCache: opts.emptyCache });
    await startWorkflow(this.temporal, 'syncWorkflow', { ...action, workflowId });
    return workflowId;
  }
}
