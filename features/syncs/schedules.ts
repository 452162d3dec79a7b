/**
 * @module features/syncs/schedules — one Temporal Schedule per connection × sync. Schedules live in
 * Temporal, so they survive restarts of every Switchyard process.
 */
import { randomUUID } from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Connection } from '../connections/store.js';
import { taskQueueFor } from '../../lib/temporal/client.js';
import { searchAttributesFor } from '../../lib/temporal/search-attributes.js';
import { parseFrequency } from './frequency.js';

export interface SyncTarget {
  env: string;
  connection: Pick<Connection, 'id' | 'integrationKey' | 'connectionId'>;
  syncName: string;
}

export interface SyncWorkflowInput {
  connectionPk: number;
  syncName: string;
  reset?: boolean;
  emptyCache?: boolean;
}

export function syncScheduleId(t: SyncTarget): string {
  return `sync:${t.env}:${t.connection.integrationKey}:${t.connection.connectionId}:${t.syncName}`;
}

function labels(t: SyncTarget) {
  return searchAttributesFor({ environment: t.env, integration: t.connection.integrationKey, connection: t.connection.connectionId, script: t.syncName });
}

export class SyncSchedules {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueuePrefix: string,
  ) {}

  private action(t: SyncTarget) {
    return {
      type: 'startWorkflow' as const,
      workflowType: 'syncWorkflow',
      workflowId: syncScheduleId(t),
      taskQueue: taskQueueFor(this.taskQueuePrefix, t.env),
      args: [{ connectionPk: t.connection.id, syncName: t.syncName } satisfies SyncWorkflowInput],
      typedSearchAttributes: labels(t),
      staticSummary: `Sync ${t.syncName} of ${t.connection.integrationKey}/${t.connection.connectionId}`,
    };
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
      throw err;
    }
  }

  /** A run now, outside the schedule. The run itself refuses to overlap another (claimSync). */
  async triggerNow(t: SyncTarget, opts: { reset?: boolean; emptyCache?: boolean } = {}): Promise<string> {
    const workflowId = `${syncScheduleId(t)}:trigger-${randomUUID()}`;
    await this.temporal.workflow.start('syncWorkflow', {
      ...this.action(t),
      workflowId,
      args: [{ connectionPk: t.connection.id, syncName: t.syncName, reset: opts.reset, emptyCache: opts.emptyCache } satisfies SyncWorkflowInput],
    });
    return workflowId;
  }
}
