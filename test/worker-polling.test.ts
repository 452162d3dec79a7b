/**
 * The workers' workflow-task polls (worker/polling.ts, issue 32): more than the SDK's 2 on the task
 * queue where every new run's first task waits, and never more polls than tasks the worker can run.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { workflowCacheOptions } from '../worker/cache.js';
import { workflowTaskPolling } from '../worker/polling.js';

const firstTaskPolls = (p: ReturnType<typeof workflowTaskPolling>) => Math.floor(p.maxConcurrentWorkflowTaskPolls * p.nonStickyToStickyPollRatio);

describe('workflow-task polls', () => {
  test('with the default cache, more than 2 polls wait on the task queue for new runs', () => {
    const { maxConcurrentWorkflowTaskExecutions } = workflowCacheOptions(200);
    assert.ok(firstTaskPolls(workflowTaskPolling(maxConcurrentWorkflowTaskExecutions)) > 2);
  });

  test('never more polls than workflow tasks the worker runs at once, and at least the SDK minimum of 2', () => {
    for (const cached of [2, 3, 4, 10, 40, 200, 100_000]) {
      const { maxConcurrentWorkflowTaskExecutions } = workflowCacheOptions(cached);
      const { maxConcurrentWorkflowTaskPolls } = workflowTaskPolling(maxConcurrentWorkflowTaskExecutions);
      assert.ok(maxConcurrentWorkflowTaskPolls >= 2 && maxConcurrentWorkflowTaskPolls <= maxConcurrentWorkflowTaskExecutions, `${cached} cached`);
    }
  });
});
