/**
 * @module bench/lib/platform — starts Switchyard for one benchmark in child processes, shaped like
 * production: its own database on the shared PostgreSQL, its own task queues on the shared Temporal
 * server, the API on a free loopback port. Roles: `all` (API + worker in one process, as `npm
 * start` runs them), or `api` and `worker` separately (to measure the worker's memory alone).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { ensureDatabase } from '../../lib/embedded/postgres.js';
import { freePort } from '../../lib/embedded/temporal.js';
import { createPool, type Db } from '../../lib/db/pool.js';
import type { BenchServices } from './services.js';
import { SANDBOX_NODE_FLAGS } from '../../lib/sandbox/node-flags.js';
import { WORKER_NODE_FLAGS } from '../../lib/heap.js';
import { WORKER_MALLOC_ENV } from '../../worker/malloc.js';

const ENTRY = fileURLToPath(new URL('./platform-main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface PlatformEnv {
  name: string;
  url: string;
  devKey: string;
  databaseUrl: string;
  taskQueuePrefix: string;
  env: Record<string, string>;
}

export async function platformEnv(services: BenchServices, name: string, extra: Record<string, string> = {}): Promise<PlatformEnv> {
  const id = `${name.replace(/[^a-z0-9]/g, '')}_${randomBytes(3).toString('hex')}`;
  const databaseUrl = await ensureDatabase(services.databaseServerUrl, `bench_${id}`);
  const port = await freePort();
  const devKey = randomUUID();
  const taskQueuePrefix = `bench-${id}`;
  const dataDir = await mkdtemp(path.join(services.workDir, `data-${id}-`));
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: services.temporalAddress,
    SWITCHYARD_SECRET_KEY_DEV: devKey,
    SWITCHYARD_SECRET_KEY_PROD: randomUUID(),
    SWITCHYARD_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SWITCHYARD_TASK_QUEUE_PREFIX: taskQueuePrefix,
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_ALLOWED_PRIVATE_HOSTS: '127.0.0.1,localhost',
    SWITCHYARD_WORKFLOW_BUNDLE: services.bundlePath,
    // Per-request info logs would go to this terminal; warnings and errors still do.
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    ...extra,
  };
  return { name, url: `http://127.0.0.1:${port}`, devKey, databaseUrl, taskQueuePrefix, env };
}

export interface PlatformProcess {
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  role: 'all' | 'api' | 'worker';
  /** Another copy of the source tree to run (the baseline, see baseline.ts). */
  root?: string;
  /** Write a V8 CPU profile of this process into the folder (node --cpu-prof). */
  cpuProfDir?: string;
  /** More node flags for this process (the schedules bench's --worker-node-flags). */
  nodeFlags?: string[];
}

/** Spawns one Switchyard process and waits until it says it is ready. */
export async function spawnPlatform(p: PlatformEnv, opts: SpawnOptions): Promise<PlatformProcess> {
  // One folder per process: node writes one profile per thread (main, the loader's, workflow threads).
  const nodeArgs = [
    // As `npm run worker` and `npm start` run the worker (the baseline tree keeps its own command line).
    ...(opts.role !== 'api' && !opts.root ? WORKER_NODE_FLAGS : []),
    ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(opts.cpuProfDir, `${p.name}-${opts.role}${opts.root ? '-baseline' : ''}`)}`] : []),
    ...(opts.nodeFlags ?? []),
    // BENCH_PLATFORM_NODE_FLAGS='--trace-gc …': node/V8 flags for every Switchyard process of the run (measurements).
    ...(process.env.BENCH_PLATFORM_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []),
  ];
  const root = opts.root ?? ROOT;
  const child = spawn(process.execPath, [...SANDBOX_NODE_FLAGS, ...nodeArgs, '--import', 'tsx', path.join(root, path.relative(ROOT, ENTRY))], {
    cwd: root,
    // As the image runs the worker (Dockerfile, compose, k8s).
    env: { ...process.env, ...(opts.role === 'worker' && !opts.root ? WORKER_MALLOC_ENV : {}), ...p.env, BENCH_ROLE: opts.role },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${p.name} ${opts.role}: not ready after 120 s`)), 120_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${p.name} ${opts.role} exited early (${code})`));
    });
  });
  return {
    pid: child.pid!,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send('stop');
      else child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The API client side: undici with keep-alive, JSON in and out, the dev key. */
export class ApiClient {
  readonly agent: Agent;
  constructor(
    readonly url: string,
    readonly key: string,
    connections = 64,
  ) {
    this.agent = new Agent({ connections, pipelining: 1, keepAliveTimeout: 30_000 });
  }

  async call(method: string, pathname: string, opts: { json?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string }> {
    const res = await request(this.url + pathname, {
      method: method as 'GET',
      dispatcher: this.agent,
      headers: {
        authorization: `Bearer ${this.key}`,
        ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      },
      body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
    });
    return { status: res.statusCode, body: await res.body.text() };
  }

  /** Like call, but throws unless the status is 2xx; returns the parsed body. */
  async ok<T = unknown>(method: string, pathname: string, opts: { json?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
    const r = await this.call(method, pathname, opts);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${pathname} answered ${r.status}: ${r.body.slice(0, 500)}`);
    return (r.body ? JSON.parse(r.body) : null) as T;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** A pool on the benchmark's database, for measurements only (counts, timings, the floors' tables). */
export function benchDb(p: PlatformEnv, max = 4): Db {
  return createPool(p.databaseUrl, max);
}
