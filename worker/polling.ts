/**
 * @module worker/polling — how many workflow-task polls a worker keeps open. A poll that gets a task
 * returns only once the server has recorded the task started (a write in its store), so with the
 * SDK's default of 2 polls on the task queue where every new run's first task waits (8 on the sticky
 * queue), first tasks queued on the server for seconds under 1,000 one-minute schedules while the
 * worker used half a core (bench/RESULTS.md, issue 32, p7-sched).
 */

/** Polls as the SDK's guide suggests: half the workflow tasks run at once, half of them on the task queue. */
export function workflowTaskPolling(maxConcurrentWorkflowTaskExecutions: number): {
  maxConcurrentWorkflowTaskPolls: number;
  nonStickyToStickyPollRatio: number;
} {
  return { maxConcurrentWorkflowTaskPolls: Math.max(2, Math.floor(maxConcurrentWorkflowTaskExecutions / 2)), nonStickyToStickyPollRatio: 0.5 };
}
