/**
 * The workers' workflow cache is bounded (worker/cache.ts, SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS,
 * issue 32): more open runs than the bound stay out of memory between their tasks, and a run evicted
 * from the cache carries on from its history when its next task comes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { signalWithStartWorkflow, taskQueueFor, webhookEndpointWakeSignal, webhookEndpointWorkflowId } from '../workflows/contracts.js';

const BOUND = 4;
const RUNS = 12;
const ACTIVITY_TASK_COMPLETED = 12;
const TIMER_STARTED = 17;

describe('the workflow cache is bounded', () => {
  let t: TestPlatform;
  let envId: number;
  const keys = Array.from({ length: RUNS }, () => `cache-${randomBytes(6).toString('hex')}`);
  const ids = keys.map((k) => webhookEndpointWorkflowId('dev', k));

  before(async () => {
    t = await startTestPlatform({ env: { SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS: String(BOUND) } });
    envId = (await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
  });
  after(async () => {
    const temporal = t?.platform.deps.temporal;
    await Promise.all(
      ids.map((id) =>
        temporal?.workflow
          .getHandle(id)
          .terminate('test over')
          .catch(() => undefined),
      ),
    );
    await t?.stop();
  });

  /** Wakes every endpoint's workflow (starting it the first time); each then drains its endpoint (nothing to send) and waits again. */
  const wakeAll = () =>
    Promise.all(
      keys.map((endpointKey, i) =>
        signalWithStartWorkflow(t.platform.deps.temporal, 'webhookEndpointWorkflow', {
          workflowId: ids[i]!,
          taskQueue: taskQueueFor(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev'),
          args: [{ environmentId: envId, endpointKey }],
          signal: webhookEndpointWakeSignal,
        }),
      ),
    );

  /** Every run has finished this many drains and gone back to waiting (its timer started). */
  const allWaitingAfter = (drains: number) =>
    waitFor(`${RUNS} runs waiting after ${drains} drains`, async () => {
      const histories = await Promise.all(ids.map((id) => t.platform.deps.temporal.workflow.getHandle(id).fetchHistory()));
      return histories.every((h) => {
        const events = h.events ?? [];
        return (
          events.filter((e) => e.eventType === ACTIVITY_TASK_COMPLETED).length >= drains && events.filter((e) => e.eventType === TIMER_STARTED).length >= drains
        );
      });
    });

  test(`${RUNS} open runs with a bound of ${BOUND}: at most ${BOUND} cached, and every evicted run resumes from its history`, async () => {
    await wakeAll();
    await allWaitingAfter(1);
    const cached = t.platform.workers!.cachedWorkflows();
    assert.ok(cached <= BOUND, `${cached} runs cached, bound ${BOUND}`);

    await wakeAll();
    await allWaitingAfter(2);
    assert.ok(t.platform.workers!.cachedWorkflows() <= BOUND);
  });
});
