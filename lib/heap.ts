/**
 * @module heap — a process's V8 heap, sized by what it runs (the API, the worker or both).
 *
 * The worker's young generation is bounded. Node 24 lets each isolate's new
 * space grow to 128 MB (two 64 MB semi-spaces), and a worker process has three that allocate all the
 * time: the main thread (activities) and one workflow thread per environment's Temporal worker. Under
 * a steady stream of sync runs each grows to its maximum, which put the worker at 640–940 MB RSS with
 * 1,000 one-minute schedules, about half of it short-lived garbage (bench/RESULTS.md, issue 32). 16 MB
 * semi-spaces keep the scavenges cheap (a small new space also stays in cache) and cap the three at
 * 32 MB each.
 *
 * The old generation is bounded too: objects that outlive two scavenges (a run's rows and messages
 * while it waits on Postgres or Temporal) are promoted, and V8 lets the old space grow up to 4× its
 * live size before a full collection. With 1,000 one-minute schedules the main thread's heap reached
 * 312–326 MB used in two runs (96–175 MB at their ends); in a run with a growing factor of 1.5 it
 * reached 136 and the worker 450 MB RSS (bench/RESULTS.md, issue 32, p6-sched). The factor is read
 * at every full collection, so setting it at run time holds for the main thread's heap too.
 */
import { setFlagsFromString } from 'node:v8';

export const SEMI_SPACE_MB = 16;
/** The old space may grow to (1 + this / 100) × what survived the last full collection. */
export const OLD_SPACE_GROWING_PERCENT = 50;

/** On the worker's node command line (package.json `worker` and `start`, compose, k8s): the main thread's heap is sized at start. */
export const WORKER_NODE_FLAGS = [`--max-semi-space-size=${SEMI_SPACE_MB}`] as const;

/**
 * Threads created from now on get the bound (V8 reads the flag when it sizes a new isolate's heap),
 * whatever the command line: the Temporal SDK's workflow threads are started after this.
 */
export function boundWorkflowThreadHeaps(): void {
  setFlagsFromString(`--max-semi-space-size=${SEMI_SPACE_MB}`);
}

/**
 * A process that serves the API keeps a fixed factor of 2 instead of V8's, which V8 lowers as far as
 * 1.1 when the process allocates slowly against its collector's speed: after a sync left ~70 MB live
 * in the API, the limit stayed ~5 MB above the live heap and `GET /records` paid a full collection
 * every 150–250 ms (2 of 5 runs; 0.72–0.92 CPU-s a round against 0.30–0.47, 0 of 5 with the factor:
 * bench/RESULTS.md, issue 32, p7-edge and the lead's runs).
 */
export const API_OLD_SPACE_GROWING_PERCENT = 100;

/** The growing factor a process sets at start by what it runs: the API's when it serves requests, the worker's bound when it only runs workflows. */
export function oldSpaceGrowingPercent(runs: { api: boolean; worker: boolean }): number | null {
  if (runs.api) return API_OLD_SPACE_GROWING_PERCENT;
  return runs.worker ? OLD_SPACE_GROWING_PERCENT : null;
}

/**
 * Sets the process's old-space growing factor (oldSpaceGrowingPercent), for every isolate of the process
 * from now on (V8 reads it at every full collection). start/platform.ts calls it first.
 */
export function setOldSpaceGrowth(runs: { api: boolean; worker: boolean }): void {
  const percent = oldSpaceGrowingPercent(runs);
  if (percent !== null) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
