/**
 * @module bench/lib/floor-worker-main — the floor's worker process: the bare workflow and its one
 * activity on their own task queue (FLOOR_TASK_QUEUE), default worker options like the platform's.
 */
import { createRequire } from 'node:module';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { floorActivities } from './floor-activities.js';

Runtime.install({
  logger: new (class {
    log() {}
    trace() {}
    debug() {}
    info() {}
    warn() {}
    error(message: string) {
      console.error(`[floor worker] ${message}`);
    }
  })(),
});

const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  namespace: 'default',
  taskQueue: process.env.FLOOR_TASK_QUEUE!,
  workflowsPath: createRequire(import.meta.url).resolve('./floor-workflows.ts'),
  activities: floorActivities,
});
const running = worker.run();
const stop = async () => {
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running.catch(() => undefined);
  await connection.close();
  process.exit(0);
};
process.on('message', (m) => {
  if (m === 'stop') void stop();
});
process.on('disconnect', () => void stop());
process.send?.({ ready: true });
