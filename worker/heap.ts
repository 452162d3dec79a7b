/**
 * @module worker/heap — the worker's V8 young generation, bounded. Node 24 lets each isolate's new
 * space grow to 128 MB (two 64 MB semi-spaces), and a worker process has three that allocate all the
 * time: the main thread (activities) and one workflow thread per environment's Temporal worker. Under
 * a steady stream of sync runs each grows to its maximum, which put the worker at 640–940 MB RSS with
 * 1,000 one-minute schedules, about half of it short-lived garbage (bench/RESULTS.md, issue 32). 16 MB
 * semi-spaces keep the scavenges cheap (a small new space also stays in cache) and cap the three at
 * 32 MB each.
 */
import { setFlagsFromString } from 'node:v8';

export const SEMI_SPACE_MB = 16;

/** On the worker's node command line (package.json `worker` and `start`, compose, k8s): the main thread's heap is sized at start. */
export const WORKER_NODE_FLAGS = [`--max-semi-space-size=${SEMI_SPACE_MB}`] as const;

/**
 * Threads created from now on get the bound (V8 reads the flag when it sizes a new isolate's heap),
 * whatever the command line: the Temporal SDK's workflow threads are started after this.
 */
export function boundWorkflowThreadHeaps(): void {
  setFlagsFromString(`--max-semi-space-size=${SEMI_SPACE_MB}`);
}
