/**
 * @module test/worker-process — a worker in its own OS process, for tests that kill it (SIGKILL)
 * and start it again against the same database and task queues.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { TestPlatform } from './harness.js';

export interface WorkerProcess {
  child: ChildProcess;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startWorkerProcess(t: TestPlatform, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'start/worker.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: t.databaseUrl,
      TEMPORAL_ADDRESS: t.config.TEMPORAL_ADDRESS,
      SWITCHYARD_ENCRYPTION_KEY: t.config.SWITCHYARD_ENCRYPTION_KEY,
      SWITCHYARD_SECRET_KEY_DEV: t.devKey,
      SWITCHYARD_SECRET_KEY_PROD: t.prodKey,
      SWITCHYARD_TASK_QUEUE_PREFIX: t.config.SWITCHYARD_TASK_QUEUE_PREFIX,
      SWITCHYARD_ALLOWED_PRIVATE_HOSTS: t.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS.join(','),
      SWITCHYARD_WORKFLOW_BUNDLE: process.env.SWITCHYARD_TEST_WORKFLOW_BUNDLE ?? '',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('polling')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited early with ${code}: ${out}`)));
  });
  return {
    child,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
