/**
 * @module worker — Temporal workers: one task queue per environment, workflows bundled from
 * workflows/, activities from createActivities(deps), graceful shutdown.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { activityLogContext } from '../lib/log-context.js';
import { workflowSpanSinks, type Telemetry } from '../lib/otel/index.js';
import { taskQueueFor } from '../workflows/contracts.js';
import { connectWithRetry, plainTemporal, type ConnectRetryLog, type TemporalConnectionSettings } from '../lib/temporal/connection.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOWS_PATH = createRequire(import.meta.url).resolve(path.join(here, '..', 'workflows', 'index.ts'));
/** OpenTelemetry workflow interceptors, always bundled; they trace only runs started with a trace context. */
export const WORKFLOW_INTERCEPTORS_PATH = createRequire(import.meta.url).resolve(path.join(here, '..', 'workflows', 'otel-interceptors.ts'));

let runtimeInstalled = false;
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
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
}

export interface RunningWorkers {
  taskQueues: string[];
  /** Stops polling, lets running activities finish within the grace time, then resolves. */
  shutdown(): Promise<void>;
  /** Resolves or rejects when any worker stops on its own (a fatal error). */
  done: Promise<void>;
}

export async function startWorkers(opts: WorkerOptions): Promise<RunningWorkers> {
  const connection = opts.connection ?? (await connectWorkers(opts.temporal, opts.log));
  const workflowBundle = opts.workflowBundle ?? (await bundleWorkflows());
  const activities = createActivities(opts.deps);
  const workers = await Promise.all(
    opts.environments.map((env) =>
      Worker.create({
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
      }),
    ),
  );
  const runs = workers.map((w) => w.run());
  const done = Promise.all(runs).then(() => undefined);
  return {
    taskQueues: opts.environments.map((env) => taskQueueFor(opts.taskQueuePrefix, env)),
    done,
    async shutdown() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await Promise.allSettled(runs);
      if (!opts.connection) await connection.close();
    },
  };
}
