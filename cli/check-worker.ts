/**
 * @module cli/check-worker — one group of a project's type-check in a worker thread (cli/check
 * starts one per group): the group's TypeScript program goes with the worker's heap when it exits,
 * and the main thread bundles and describes meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkGroup, type GroupJob } from './check.js';

parentPort!.postMessage(await checkGroup(workerData as GroupJob));
