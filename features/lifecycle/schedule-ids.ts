/**
 * @module features/lifecycle/schedule-ids — moves this deployment's schedules from the ids of
 * releases before issue 28 (`sync:{env}:…`, `check:{env}:…`: shared by every deployment of a
 * Temporal namespace) to the current ids, which hold the task queue (workflows/contracts.ts). Runs at
 * every start, API and worker alike. A schedule is this deployment's when its runs go to this
 * deployment's task queue; another deployment's is left for that deployment to move.
 *
 * Each move is: describe the old schedule, create the new one with the same spec, policies, state
 * and action (its runs named after the new id), delete the old. Two processes starting together
 * may both move one schedule: the second create finds the new one there (kept: it may already
 * have been updated under its new id) and the second delete finds nothing. Schedules are listed
 * before any is moved, so no listing page shifts under the deletes.
 */
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { legacyScheduleTarget } from '../../workflows/contracts.js';

export interface ScheduleIdMigrationDeps {
  temporal: Client;
  taskQueuePrefix: string;
  environments: readonly string[];
  log: { info(obj: object, msg: string): void };
}

/** Moves every schedule of this deployment still under a former id; returns how many it moved. */
export async function migrateLegacyScheduleIds(deps: ScheduleIdMigrationDeps): Promise<number> {
  const legacy: string[] = [];
  for await (const s of deps.temporal.schedule.list()) {
    if (legacyScheduleTarget(s.scheduleId, deps.taskQueuePrefix, deps.environments)) legacy.push(s.scheduleId);
  }
  let moved = 0;
  for (const id of legacy) if (await moveSchedule(deps, id)) moved++;
  if (moved > 0) deps.log.info({ moved }, 'schedules moved to ids holding the task queue');
  return moved;
}

async function moveSchedule(deps: ScheduleIdMigrationDeps, oldId: string): Promise<boolean> {
  const target = legacyScheduleTarget(oldId, deps.taskQueuePrefix, deps.environments)!;
  const old = deps.temporal.schedule.getHandle(oldId);
  let d;
  try {
    d = await old.describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return false; // moved by another process meanwhile
    throw err;
  }
  if (d.action.type !== 'startWorkflow' || d.action.taskQueue !== target.taskQueue) return false; // another deployment's
  const { workflowId, ...action } = d.action;
  try {
    await deps.temporal.schedule.create({
      scheduleId: target.currentId,
      spec: d.spec,
      // A sync's runs are named after its schedule; a check's took Temporal's default, `{schedule id}-workflow`.
      action: { ...action, workflowId: workflowId.startsWith(oldId) ? target.currentId + workflowId.slice(oldId.length) : workflowId },
      policies: d.policies,
      state: {
        paused: d.state.paused,
        ...(d.state.note !== undefined && { note: d.state.note }),
        ...(d.state.remainingActions !== undefined && { remainingActions: d.state.remainingActions }),
      },
      ...(d.memo && { memo: d.memo }),
      typedSearchAttributes: d.typedSearchAttributes,
    });
  } catch (err) {
    if ((err as Error).name !== 'ScheduleAlreadyRunning') throw err;
  }
  try {
    await old.delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
  return true;
}
