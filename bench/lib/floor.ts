/**
 * @module bench/lib/floor — spawns the floor worker process and runs the bare workflow from the
 * client side, started and awaited like any Temporal client would.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';

const ENTRY = fileURLToPath(new URL('./floor-worker-main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface FloorWorker {
  pid: number;
  taskQueue: string;
  stop(): Promise<void>;
}

export async function spawnFloorWorker(temporalAddress: string, taskQueue: string, cpuProfDir?: string): Promise<FloorWorker> {
  const nodeArgs = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}/floor-worker`] : [];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ENTRY], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress, FLOOR_TASK_QUEUE: taskQueue },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`floor worker exited early (${code})`)));
  });
  return {
    pid: child.pid!,
    taskQueue,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One bare workflow: started and awaited by the client. */
export async function runBareWorkflow(client: Client, taskQueue: string, url: string, apiKey: string): Promise<{ status: number }> {
  return client.workflow.execute('bareWorkflow', { taskQueue, workflowId: `floor-${randomUUID()}`, args: [url, apiKey] });
}
