/**
 * @module worker/cache — the Temporal workers' workflow cache, bounded. The SDK's default scales with
 * the V8 heap limit (about 2,300 runs per environment's worker on a 4 GB heap), and every run that
 * waits for an activity stays cached: its sandboxed module state in the workflow thread and its
 * state machines in Temporal's core. A safety bound: under 1,000 one-minute schedules the cache held
 * at most 84 runs and what grew was native memory (worker/malloc.ts; bench/RESULTS.md, issue 32). A
 * run evicted from the cache is rebuilt by replaying its history on its next task (23–53 CPU-ms here).
 */

/** Workflow tasks one worker runs at once: the SDK's default, lowered to the cache's size (the SDK requires it). */
const MAX_CONCURRENT_WORKFLOW_TASKS = 40;

export function workflowCacheOptions(maxCachedWorkflows: number): { maxCachedWorkflows: number; maxConcurrentWorkflowTaskExecutions: number } {
  return { maxCachedWorkflows, maxConcurrentWorkflowTaskExecutions: Math.min(MAX_CONCURRENT_WORKFLOW_TASKS, maxCachedWorkflows) };
}
