/**
 * @module start/platform — assembles the running platform from configuration: database
 * (migrated), environments, Temporal client, and optionally the HTTP API and the workers.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { createApp, serveFetch } from '../api/app.js';
import type { AppDeps } from '../api/context.js';
import { connectWorkers, startWorkers, type RunningWorkers } from '../worker/index.js';
import { setOldSpaceGrowth } from '../worker/heap.js';
import { tokenRefreshListener } from '../activities/token-refresh.js';
import { pluginFor } from '../integrations/plugins.js';
import { registerAllPrebuiltScripts } from '../integrations/prebuilt.js';
import { clockFrom, systemClock, type Clock } from '../lib/clock.js';
import { ConfigError, type Config } from '../lib/config.js';
import { migrate } from '../lib/db/migrate.js';
import { createPool, type Db } from '../lib/db/pool.js';
import { ChangeFeed } from '../lib/db/change-feed.js';
import { cachedLookups, uncachedLookups, type Lookups } from '../features/connections/lookups.js';
import { actionRunNotices, type ActionRunNotices } from '../features/actions/notices.js';
import type { TokenRefreshListener } from '../features/connections/service.js';
import { createLogger, type Logger } from '../lib/log.js';
import { connectClient, ensureSearchAttributes } from '../lib/temporal/client.js';
import { temporalConnectionSettings } from '../lib/temporal/connection.js';
import { createLifecycle, startConnectionSweeper } from '../features/lifecycle/lifecycle.js';
import { migrateLegacyScheduleIds } from '../features/lifecycle/schedule-ids.js';
import { SyncSchedules, syncScheduleTiming } from '../features/syncs/schedules.js';
import { syncCommands } from '../features/syncs/commands.js';
import { connectionCommands } from '../features/connections/commands.js';
import { createProviderHttpClient, type ProviderHttpClient } from '../lib/http/index.js';
import { requestLogWriter } from '../features/logs/writer.js';
import { AuthSocketHub } from '../api/ws.js';
import { startLogRetention } from '../api/routes/logs.js';
import { startDeliverySweeper } from '../features/webhooks/emit.js';
import { environmentOtlpTargets } from '../features/webhooks/settings.js';
import { startActionRunSweeper } from '../features/actions/sweeper.js';
import { ensureEnvironments, loadSecretBox, requireEnvironments, type EnvironmentKey } from './secrets.js';
import { followEnvironments } from './environment-watch.js';
import { DEFAULT_ENVIRONMENTS, listEnvironments } from '../features/environments/store.js';
import { startTelemetry, type Telemetry } from '../lib/otel/index.js';
import { missingSandboxFlags } from '../lib/sandbox/node-flags.js';
import { loadIsolatedVm } from '../lib/sandbox/index.js';

/** How long stop() lets requests in flight finish before it cuts the connections still open (event streams). */
const STREAM_GRACE_MS = 5000;

export interface PlatformOptions {
  config: Config;
  databaseUrl: string;
  temporalAddress: string;
  runApi: boolean;
  runWorker: boolean;
  /** Generated keys are kept in the data folder (embedded dev setup). */
  keepSecretsLocally: boolean;
  clock?: Clock;
  log?: Logger;
  workflowBundle?: WorkflowBundleOption;
}

export interface Platform {
  deps: AppDeps;
  environments: EnvironmentKey[];
  apiUrl: string | null;
  workers: RunningWorkers | null;
  /** The API's LISTEN connection for its caches (null without the API). */
  changeFeed: ChangeFeed | null;
  stop(): Promise<void>;
}

// Once per process, at load: a test may then replace a provider's scripts before it starts a platform.
registerAllPrebuiltScripts();

export async function startPlatform(opts: PlatformOptions): Promise<Platform> {
  const { config } = opts;
  const missingFlags = missingSandboxFlags();
  if (missingFlags.length > 0) {
    throw new ConfigError([
      `node must run with ${missingFlags.join(' ')} for the script sandbox: start with npm start / npm run api / npm run worker, or add it to NODE_OPTIONS`,
    ]);
  }
  // The sandbox's native module loads now, so a platform that cannot run scripts does not start.
  await loadIsolatedVm().catch((err: unknown) => {
    throw new ConfigError([`${(err as Error).message}: run npm ci again on a supported Node (package.json engines)`]);
  });
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  setOldSpaceGrowth({ api: opts.runApi, worker: opts.runWorker });
  const clock = opts.clock ?? (config.SWITCHYARD_NOW ? clockFrom(new Date(config.SWITCHYARD_NOW)) : systemClock);
  const db: Db = createPool(opts.databaseUrl, config.DATABASE_POOL_SIZE, config.DATABASE_POOL_WAIT_MS);
  let temporal: Client | null = null;
  let server: ServerType | null = null;
  let workers: RunningWorkers | null = null;
  const requestLogs = requestLogWriter(db, { flushMs: config.SWITCHYARD_REQUEST_LOG_FLUSH_MS });
  const http: ProviderHttpClient = createProviderHttpClient({
    allowedPrivateHosts: config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS,
    requestLog: requestLogs.sink,
    defaultTimeoutMs: config.SWITCHYARD_PROVIDER_TIMEOUT_MS,
    // Names the deployment, as Basecamp and Harvest ask; an integration's `user_agent` replaces it.
    userAgent: `Switchyard (+${config.publicUrl})`,
  });
  const authSockets = new AuthSocketHub({
    maxClients: config.SWITCHYARD_WS_MAX_CLIENTS,
    maxClientsPerAddress: config.SWITCHYARD_WS_MAX_CLIENTS_PER_ADDRESS,
    claimTimeoutMs: config.SWITCHYARD_WS_CLAIM_TIMEOUT_MS,
    idleTimeoutMs: config.SWITCHYARD_WS_IDLE_TIMEOUT_MS,
  });
  let stopLogRetention: (() => void) | null = null;
  let stopSweeper: (() => void) | null = null;
  let stopConnectionSweeper: (() => void) | null = null;
  let stopActionRunSweeper: (() => void) | null = null;
  let telemetry: Telemetry | null = null;
  let changeFeed: ChangeFeed | null = null;
  /** The worker's own LISTEN connection, when no API runs in the process. */
  let workerFeed: ChangeFeed | null = null;
  let stopEnvironmentWatch: (() => void) | null = null;

  const stop = async () => {
    authSockets.close();
    if (server) {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      // Streams (the dashboard's live tail, MCP's event streams) do not end by themselves: after a
      // grace period for requests in flight, their connections are cut.
      const cut = setTimeout(() => (server as { closeAllConnections?: () => void }).closeAllConnections?.(), STREAM_GRACE_MS);
      await closed;
      clearTimeout(cut);
    }
    stopEnvironmentWatch?.();
    if (workers) await workers.shutdown();
    await workerFeed?.stop();
    if (temporal) await temporal.connection.close().catch(() => undefined);
    stopLogRetention?.();
    stopSweeper?.();
    stopConnectionSweeper?.();
    stopActionRunSweeper?.();
    await http.close().catch(() => undefined);
    // After every call has ended: its entry is in the writer's queue, written now.
    await requestLogs.close();
    await changeFeed?.stop();
    // Flushes the spans and metrics still buffered (the OTel SDK is process-global: see lib/otel/sdk.ts).
    await telemetry?.stop().catch(() => undefined);
    await db.end().catch(() => undefined);
  };

  try {
    await migrate(db);
    const box = await loadSecretBox(config, opts.keepSecretsLocally);
    const environments = opts.runApi ? await ensureEnvironments(db, config, opts.keepSecretsLocally) : await requireEnvironments(db);
    // Nothing is started unless an OTLP endpoint is configured (lib/otel).
    telemetry = await startTelemetry({ config, log, environmentOtlpTargets: () => environmentOtlpTargets(db, box) });
    const temporalSettings = temporalConnectionSettings(config, opts.temporalAddress);
    // API and worker in one process share the workers' connection, so action starts can be eager.
    const workerConnection = opts.runWorker && opts.runApi ? await connectWorkers(temporalSettings, log) : undefined;
    temporal = await connectClient(temporalSettings, config.TEMPORAL_NAMESPACE, telemetry?.clientInterceptors, log, workerConnection);
    await ensureSearchAttributes(temporal, config.TEMPORAL_NAMESPACE, log);
    // Before anything creates or updates a schedule: the ones still under a former id move first.
    await migrateLegacyScheduleIds({ temporal, taskQueuePrefix: config.SWITCHYARD_TASK_QUEUE_PREFIX, environments: DEFAULT_ENVIRONMENTS, log });
    const schedules = new SyncSchedules(temporal, config.SWITCHYARD_TASK_QUEUE_PREFIX, syncScheduleTiming(config));
    const lifecycle = createLifecycle({ temporal, db, box, taskQueuePrefix: config.SWITCHYARD_TASK_QUEUE_PREFIX, schedules });
    const providerHooks = pluginFor;
    // The API's lookups (secret key, integration, connection) are cached while a LISTEN connection reports changes.
    let lookups = uncachedLookups(db, box);
    let notices: ActionRunNotices | undefined;
    if (opts.runApi) {
      changeFeed = new ChangeFeed(opts.databaseUrl, log);
      notices = actionRunNotices(changeFeed);
      await changeFeed.start();
      lookups = cachedLookups(db, box, changeFeed);
    }
    const onTokenRefresh = settledAfter(tokenRefreshListener({ db, box, temporal, config, log }), lookups);
    const syncs = syncCommands({ db, box, lookups, schedules, config });
    const connections = connectionCommands({ db, box, clock, http, config, temporal, onTokenRefresh, providerHooks, log, lookups, lifecycle });
    const deps: AppDeps = {
      db,
      config,
      clock,
      box,
      log,
      temporal,
      http,
      lifecycle,
      syncs,
      connections,
      authSockets,
      telemetry,
      onTokenRefresh,
      providerHooks,
      lookups,
      actionRunNotices: notices,
      requestLogs,
    };
    if (opts.runApi) stopLogRetention = startLogRetention(deps);

    if (opts.runWorker) {
      // Named environments are polled as configured; unset, every environment is, as they come and go.
      const named = config.SWITCHYARD_WORKER_ENVIRONMENTS;
      workers = await startWorkers({
        temporal: temporalSettings,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueuePrefix: config.SWITCHYARD_TASK_QUEUE_PREFIX,
        environments: named ?? (await listEnvironments(db)).map((e) => e.name),
        shutdownGraceTime: config.SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS,
        maxCachedWorkflows: config.SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS,
        deps: { db, config, clock, box, log, http, temporal, onTokenRefresh, providerHooks, lookups },
        workflowBundle: opts.workflowBundle,
        telemetry,
        log,
        connection: workerConnection,
      });
      workers.done.catch((err: unknown) => log.error({ err }, 'worker stopped'));
      if (!named) {
        if (!changeFeed) {
          workerFeed = new ChangeFeed(opts.databaseUrl, log);
          await workerFeed.start();
        }
        stopEnvironmentWatch = followEnvironments({ db, feed: (changeFeed ?? workerFeed)!, workers, log });
      }
      // Starts delivery workflows whose start was lost (e.g. Temporal unreachable at emit time).
      stopSweeper = startDeliverySweeper({ db, temporal, config, log });
      // Completes connections whose API process died between the row and its schedules.
      stopConnectionSweeper = startConnectionSweeper({ db, box, lifecycle, log });
      // Fails action runs whose API process died between the row and the workflow's start.
      stopActionRunSweeper = startActionRunSweeper({ db, temporal, log });
    }
    let apiUrl: string | null = null;
    if (opts.runApi) {
      const app = createApp(deps);
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: serveFetch(app), port: config.PORT, hostname: process.env.HOST ?? '0.0.0.0' }, () => resolve(s));
      });
      server.on('upgrade', (req, socket, head) => {
        if (new URL(req.url ?? '/', 'http://x').pathname === '/') authSockets.handleUpgrade(req, socket, head);
        else socket.destroy();
      });
      const port = (server.address() as AddressInfo).port;
      apiUrl = `http://localhost:${port}`;
    }
    return { deps, environments, apiUrl, workers, changeFeed, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A refresh wrote the connection's new tokens (or its failure): the next lookup must not serve the old ones. */
function settledAfter(listener: TokenRefreshListener, lookups: Lookups): TokenRefreshListener {
  return {
    async refreshed(connection) {
      await listener.refreshed(connection);
      await lookups.settled();
    },
    async refreshFailed(connection, message) {
      await listener.refreshFailed(connection, message);
      await lookups.settled();
    },
  };
}
