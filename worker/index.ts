/**
 * @module worker — Temporal workers: one task queue per environment (environments come and go:
 * `serve` follows them), workflows bundled from workflows/, activities from createActivities(deps),
 * graceful shutdown.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type MetricsBuffer, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { activityLogContext } from '../lib/log-context.js';
import { workflowSpanSinks, type Telemetry } from '../lib/otel/index.js';
import { taskQueueFor } from '../workflows/contracts.js';
import { connectWithRetry, plainTemporal, type ConnectRetryLog, type TemporalConnectionSettings } from '../lib/temporal/connection.js';
import { boundWorkflowThreadHeaps } from '../lib/heap.js';
import { workflowCacheOptions } from './cache.js';
import { workflowTaskPolling } from './polling.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOWS_PATH = createRequire(import.meta.url).resolve(path.join(here, '..', 'workflows', 'index.ts'));
/** OpenTelemetry workflow interceptors, always bundled; they trace only runs started with a trace context. */
export const WORKFLOW_INTERCEPTORS_PATH = createRequire(import.meta.url).resolve(path.join(here, '..', 'workflows', 'otel-interceptors.ts'));

let runtimeInstalled = false;
/**
 * Temporal's runtime for this process, once: errors only in its log. `metrics` (the benchmarks' memory
 * probe) receives the core's metrics, e.g. the workflow cache's hits and misses.
 */
export function installQuietRuntime(metrics?: MetricsBuffer): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    ...(metrics ? { telemetryOptions: { metrics: { buffer: metrics } } } : {}),
    logger: new (class {
      log() {}
      trace() {}
      debug() {}
      info() {}
      warn() {}
      error(message: string, meta?: Record<string, unknown>) {
        console.error(JSON.stringify({ level: 'error', msg: `temporal worker: ${message}`, ...meta }));
      }
    })(),
  });
}

/** The workers' connection; the platform shares it with its client when API and worker run in one process. */
export async function connectWorkers(target: string | TemporalConnectionSettings, log?: ConnectRetryLog): Promise<NativeConnection> {
  installQuietRuntime();
  const s = typeof target === 'string' ? plainTemporal(target) : target;
  return connectWithRetry('worker', s, () => NativeConnection.connect({ address: s.address, tls: s.tls, ...(s.apiKey ? { apiKey: s.apiKey } : {}) }), log);
}

export async function bundleWorkflows(): Promise<{ code: string }> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [WORKFLOW_INTERCEPTORS_PATH],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
  });
  return { code };
}

function workflowOptions(maxCachedWorkflows: number) {
  const cache = workflowCacheOptions(maxCachedWorkflows);
  return { ...cache, ...workflowTaskPolling(cache.maxConcurrentWorkflowTaskExecutions) };
}

export interface WorkerOptions {
  /** A plain `host:port` or full settings (TLS, API key, retry of the first connection). */
  temporal: string | TemporalConnectionSettings;
  namespace: string;
  taskQueuePrefix: string;
  environments: string[];
  deps: ActivityDeps;
  workflowBundle?: WorkflowBundleOption;
  shutdownGraceTime?: string | number;
  /** OpenTelemetry (lib/otel): activity interceptors and the workflow span sink. */
  telemetry?: Telemetry | null;
  log?: ConnectRetryLog;
  /** A connection from connectWorkers, owned (and closed) by the caller; by default one of its own. */
  connection?: NativeConnection;
  /** Runs each environment's worker keeps cached (worker/cache.ts); SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS. */
  maxCachedWorkflows: number;
}

export interface RunningWorkers {
  /** The task queues polled now. */
  readonly taskQueues: string[];
  /**
   * Polls the task queues of exactly these environments from now on: starts a worker for each new
   * one, stops (with the grace time) those of environments no longer named. Calls run one at a time.
   */
  serve(environments: readonly string[]): Promise<void>;
  /** Stops polling, lets running activities finish within the grace time, then resolves. */
  shutdown(): Promise<void>;
  /** Rejects when a worker stops on its own (a fatal error); resolves after shutdown(). */
  done: Promise<void>;
  /** Workflow runs held in the workers' caches now, all environments together. */
  cachedWorkflows(): number;
}

export async function startWorkers(opts: WorkerOptions): Promise<RunningWorkers> {
  boundWorkflowThreadHeaps();
  const connection = opts.connection ?? (await connectWorkers(opts.temporal, opts.log));
  const workflowBundle = opts.workflowBundle ?? (await bundleWorkflows());
  const activities = createActivities(opts.deps);
  const running = new Map<string, { worker: Worker; run: Promise<void>; stopping: boolean }>();
  let closing = false;
  let settle!: { resolve: () => void; reject: (err: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  // A caller that only awaits shutdown() must not see an unhandled rejection.
  done.catch(() => undefined);

  const start = async (env: string) => {
    const worker = await Worker.create({
      connection,
      namespace: opts.namespace,
      taskQueue: taskQueueFor(opts.taskQueuePrefix, env),
      workflowBundle,
      activities,
      interceptors: {
        activity: [...(opts.telemetry?.workerInterceptors(opts.taskQueuePrefix).activity ?? []), activityLogContext],
      },
      // Registered without telemetry too (a no-op), so a traced workflow never finds it missing.
      sinks: opts.telemetry?.sinks ?? workflowSpanSinks(null),
      shutdownGraceTime: opts.shutdownGraceTime ?? '10 seconds',
      ...workflowOptions(opts.maxCachedWorkflows),
    });
    const entry = { worker, run: worker.run(), stopping: false };
    entry.run.catch((err: unknown) => {
      if (!entry.stopping && !closing) settle.reject(err);
    });
    running.set(env, entry);
  };
  const stop = async (env: string) => {
    const entry = running.get(env)!;
    running.delete(env);
    entry.stopping = true;
    if (entry.worker.getState() === 'RUNNING') entry.worker.shutdown();
    await entry.run.catch(() => undefined);
  };

  let queue: Promise<void> = Promise.resolve();
  const serve = (environments: readonly string[]) => {
    const next = queue.then(async () => {
      if (closing) return;
      const wanted = new Set(environments);
      await Promise.all([...running.keys()].filter((env) => !wanted.has(env)).map(stop));
      await Promise.all([...wanted].filter((env) => !running.has(env)).map(start));
    });
    queue = next.catch(() => undefined);
    return next;
  };
  try {
    await serve(opts.environments);
  } catch (err) {
    await Promise.all([...running.keys()].map(stop));
    if (!opts.connection) await connection.close();
    throw err;
  }
  return {
    get taskQueues() {
      return [...running.keys()].map((env) => taskQueueFor(opts.taskQueuePrefix, env));
    },
    serve,
    done,
    cachedWorkflows: () => [...running.values()].reduce((n, e) => n + e.worker.getStatus().numCachedWorkflows, 0),
    async shutdown() {
      closing = true;
      await queue;
      await Promise.all([...running.keys()].map(stop));
      settle.resolve();
      if (!opts.connection) await connection.close();
    },
  };
}
