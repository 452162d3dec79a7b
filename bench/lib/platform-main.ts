/**
 * @module bench/lib/platform-main — a Switchyard process for a benchmark (the API, the worker, or
 * both as `npm start` runs them), with the benchmark scripts registered. Configured from the
 * environment like `npm run api` / `npm run worker`; says `ready` over IPC and stops on `stop`.
 */
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/log.js';
import { MetricsBuffer } from '@temporalio/worker';
import { startPlatform, type Platform } from '../../start/platform.js';
import { installQuietRuntime } from '../../worker/index.js';
import { startMemoryProbe } from './memory-probe.js';
import { registerBenchScripts } from './scripts.js';

// After start/platform.ts's load registered every provider's own scripts: the benchmark's replace metabase's.
registerBenchScripts();

const role = process.env.BENCH_ROLE ?? 'all';
// Before the platform starts, so the probe sees the workflow threads the Temporal workers create
// and Temporal's runtime is installed with the metrics it reads.
const started: { platform?: Platform } = {};
if (process.env.BENCH_MEMORY_LOG) {
  // Core preallocates the buffer (about 90 bytes an update): 1,000,000 took 91 MB of RSS; the probe drains it every 5 s.
  const metrics = new MetricsBuffer({ maxBufferSize: 50_000 });
  installQuietRuntime(metrics);
  startMemoryProbe(process.env.BENCH_MEMORY_LOG, { metrics, cachedWorkflows: () => started.platform?.workers?.cachedWorkflows() });
}
const config = loadConfig();
const platform = await startPlatform({
  config,
  databaseUrl: config.DATABASE_URL!,
  temporalAddress: config.TEMPORAL_ADDRESS!,
  runApi: role !== 'worker',
  runWorker: role !== 'api',
  keepSecretsLocally: false,
  log: createLogger(config.LOG_LEVEL),
  workflowBundle: process.env.SWITCHYARD_WORKFLOW_BUNDLE ? { codePath: process.env.SWITCHYARD_WORKFLOW_BUNDLE } : undefined,
});
started.platform = platform;

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await platform.stop().catch((err: unknown) => console.error('[bench platform] stop failed', err));
  // process.exit runs the exit hooks; --cpu-prof writes its profile on a normal exit.
  process.exit(0);
};
process.on('message', (m) => {
  if (m === 'stop') void stop();
});
process.on('disconnect', () => void stop());
process.on('SIGTERM', () => void stop());
process.send?.({ ready: true, apiUrl: platform.apiUrl });
