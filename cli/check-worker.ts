/**
 * @module cli/check-worker — a project's type-check groups in a worker thread (cli/check-lane starts
 * it), one after another: each group's program goes when its check ends, while the declaration
 * files every group shares stay parsed (cli/check), and the main thread bundles and describes meanwhile.
 */
import { parentPort } from 'node:worker_threads';
import { checkGroup, type GroupJob } from './check.js';

parentPort!.on('message', (job: GroupJob) => void checkGroup(job).then((r) => parentPort!.postMessage(r)));
