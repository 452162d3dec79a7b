/**
 * @module features/syncs/schedules — one Temporal Schedule per connection × sync. Schedules live in
 * Temporal, so they survive restarts of every Switchyard process.
 */
import { randomUUID } from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Connection } from '../connections/store.js';
import {
  scheduleAction,
  searchAttributesFor,
  startWorkflow,
  syncScheduleId as scheduleIdOf,
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

export function syncScheduleId(t: SyncTarget): string {
  return scheduleIdOf(t.env, t.connection.integrationKey, t.connection.connectionId, t.syncName);
}

function labels(t: SyncTarget) {
  return searchAttributesFor({ environment: t.env, integration: t.connection.integrationKey, connection: t.connection.connectionId, script: t.syncName });
}

export class SyncSchedules {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueuePrefix: string,
  ) {}

  private action(t: SyncTarget, input: Pick<SyncWorkflowInput, 'reset' | 'emptyCache'> = {}) {
    return scheduleAction('syncWorkflow', {
      workflowId: syncScheduleId(t),
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
    const handle = this.temporal.schedule.getHandle(syncScheduleId(t));
    try {
      await handle.update((prev) => ({ ...prev, spec: { intervals: [{ every }] }, state: { ...prev.state, paused: opts.paused } }));
      return;
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
    try {
      await this.temporal.schedule.create({
        scheduleId: syncScheduleId(t),
        spec: { intervals: [{ every }] },
        action: this.action(t),
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
        state: { paused: opts.paused, triggerImmediately: opts.runNow && !opts.paused },
        typedSearchAttributes: labels(t),
      });
    } catch (err) {
      if ((err as Error).name !== 'ScheduleAlreadyRunning') throw err;
    }
  }

  async remove(t: SyncTarget): Promise<void> {
    try {
      await this.temporal.schedule.getHandle(syncScheduleId(t)).delete();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }

  async pause(t: SyncTarget): Promise<void> {
    await this.temporal.schedule.getHandle(syncScheduleId(t)).pause('paused through the API');
  }

  async unpause(t: SyncTarget): Promise<void> {
    await this.temporal.schedule.getHandle(syncScheduleId(t)).unpause('started through the API');
  }

  async nextRunAt(t: SyncTarget): Promise<Date | null> {
    try {
      const d = await this.temporal.schedule.getHandle(syncScheduleId(t)).describe();
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
    const workflowId = syncTriggerWorkflowId(syncScheduleId(t), randomUUID());
    const { type: _type, workflowType: _workflowType, ...action } = this.action(t, { reset: opts.reset, emptyCache: opts.emptyCache });
    await startWorkflow(this.temporal, 'syncWorkflow', { ...action, workflowId });
    return workflowId;
  }
}
