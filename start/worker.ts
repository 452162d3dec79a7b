/**
 * `npm run worker`: the Temporal worker alone, against configured DATABASE_URL and TEMPORAL_ADDRESS.
 */
import { ConfigError, loadConfig } from '../lib/config.js';
import { startPlatform } from './platform.js';
import { onShutdown } from './shutdown.js';
import { pingDatabase } from '../lib/db/pool.js';
import { startWorkerHealthServer } from '../worker/health.js';

const say = (m: string) => console.log(`[switchyard worker] ${m}`);

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new ConfigError(['DATABASE_URL and TEMPORAL_ADDRESS are required for `npm run worker` (use `npm start` for the embedded setup)']);
  }
  const platform = await startPlatform({
    config,
    databaseUrl: config.DATABASE_URL,
    temporalAddress: config.TEMPORAL_ADDRESS,
    runApi: false,
    runWorker: true,
    keepSecretsLocally: false,
    // A prebuilt bundle (e.g. from a build step or the test runner) skips bundling at start.
    workflowBundle: process.env.SWITCHYARD_WORKFLOW_BUNDLE ? { codePath: process.env.SWITCHYARD_WORKFLOW_BUNDLE } : undefined,
  });
  let running = true;
  platform.workers?.done.then(
    () => (running = false),
    () => (running = false),
  );
  const healthPort = config.SWITCHYARD_WORKER_HEALTH_PORT;
  const health =
    healthPort === undefined ? null : await startWorkerHealthServer(healthPort, { running: () => running, database: () => pingDatabase(platform.deps.db) });
  onShutdown(async () => {
    running = false;
    await platform.stop();
    await health?.close();
  }, say);
  say(`polling ${platform.workers?.taskQueues.join(', ')}${health ? ` (health on :${health.port}/health)` : ''}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
