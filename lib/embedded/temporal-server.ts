/**
 * @module embedded/temporal-server — a real Temporal server (`temporal-server`, not the CLI's dev
 * server) with its persistence and visibility stores in PostgreSQL: the shape a production cluster
 * has, for `SWITCHYARD_TEMPORAL=server` and the production-shape tests.
 *
 * The binaries come from Temporal's Go module at the version the CLI embeds, built once with
 * `go install` and cached (like the CLI, lib/embedded/temporal.ts) together with a copy of the
 * module's PostgreSQL schema folders, so a start needs neither the Go module cache nor the network.
 * A start creates the two databases when missing, brings their schemas to the latest version with
 * the SQL tool, writes the server's config, starts it, registers the namespace and our search
 * attributes, and (unless headless) starts the Temporal UI server when its binary is cached.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import pg from 'pg';
import YAML from 'yaml';
import { searchAttributeNames } from '../temporal/search-attributes.js';
import { ensureDatabase } from './postgres.js';
import { startService, stopLeftover, waitFor, type ServiceProcess } from './process.js';
import { DEV_SERVER_DYNAMIC_CONFIG, portOpen, type EmbeddedTemporal } from './temporal.js';

const run = promisify(execFile);
export const TEMPORAL_SERVER_VERSION = '1.29.1';
/** The UI server release the Temporal CLI 1.5.1 embeds. */
export const TEMPORAL_UI_VERSION = '2.42.1';
const SERVER_MODULE = 'go.temporal.io/server';
const UI_PACKAGE = `github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_VERSION}`;
const SCHEMA_SUBDIR = path.join('schema', 'postgresql', 'v12');
/** How long a closed workflow stays visible (the dev server's default is 24 h too). */
const RETENTION = '24h';

export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
  /** Holds `temporal/versioned` and `visibility/versioned`. */
  schemaDir: string;
  source: string;
}

export function temporalServerCacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'switchyard', `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

function hasGo(): boolean {
  return spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).status === 0;
}

async function goInstall(pkg: string, gobin: string): Promise<void> {
  await mkdir(gobin, { recursive: true });
  await run('go', ['install', pkg], { env: { ...process.env, GOBIN: gobin }, maxBuffer: 64 * 1024 * 1024 });
}

/**
 * The cached server, SQL tool and schema folders (`~/.cache/switchyard/temporal-server-1.29.1/`:
 * gobin/server, gobin/sql, schema/postgresql/v12); what is missing is built with `go install` and
 * the schema copied from the Go module cache the build filled.
 */
export async function findTemporalServerBinaries(log: (m: string) => void): Promise<TemporalServerBinaries> {
  const cache = temporalServerCacheDir();
  const gobin = path.join(cache, 'gobin');
  const server = path.join(gobin, 'server');
  const sqlTool = path.join(gobin, 'sql');
  const schemaDir = path.join(cache, SCHEMA_SUBDIR);
  let source = `cached build in ${cache}`;
  const missing = () =>
    [server, sqlTool, path.join(schemaDir, 'temporal', 'versioned'), path.join(schemaDir, 'visibility', 'versioned')].filter((p) => !existsSync(p));
  if (missing().length > 0) {
    if (!hasGo()) {
      throw new Error(
        `SWITCHYARD_TEMPORAL=server needs the Temporal server ${TEMPORAL_SERVER_VERSION} built once with Go (missing: ${missing().join(', ')}); install Go, or run with the dev server (unset SWITCHYARD_TEMPORAL)`,
      );
    }
    log(`building temporal-server ${TEMPORAL_SERVER_VERSION} and its SQL tool with go install (first time only, takes several minutes)`);
    if (!existsSync(server)) await goInstall(`${SERVER_MODULE}/cmd/server@v${TEMPORAL_SERVER_VERSION}`, gobin);
    if (!existsSync(sqlTool)) await goInstall(`${SERVER_MODULE}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`, gobin);
    if (!existsSync(path.join(schemaDir, 'visibility', 'versioned'))) {
      const modCache = (await run('go', ['env', 'GOMODCACHE'])).stdout.trim();
      await cp(path.join(modCache, `${SERVER_MODULE}@v${TEMPORAL_SERVER_VERSION}`, SCHEMA_SUBDIR), schemaDir, { recursive: true });
      await run('chmod', ['-R', 'u+w', schemaDir]); // the module cache's files are read-only
    }
    source = `go install (cached in ${cache})`;
  }
  return { server, sqlTool, schemaDir, source };
}

/** The cached Temporal UI server, built with `go install` when asked to and Go is present; null when it cannot be had. */
export async function findTemporalUiBinary(build: boolean, log: (m: string) => void): Promise<string | null> {
  const gobin = path.join(temporalServerCacheDir(), 'ui-gobin');
  const binary = path.join(gobin, 'server');
  if (existsSync(binary)) return binary;
  if (!build || !hasGo()) return null;
  log(`building the Temporal UI server ${TEMPORAL_UI_VERSION} with go install (first time only)`);
  try {
    await goInstall(UI_PACKAGE, gobin);
    return binary;
  } catch (err) {
    log(`the Temporal UI server could not be built, running without a UI: ${(err as Error).message.split('\n')[0]}`);
    return null;
  }
}

// ---- Databases and schemas ----

interface SqlTarget {
  host: string;
  port: string;
  user: string;
  password: string;
}

function sqlTarget(serverUrl: string): SqlTarget {
  const url = new URL(serverUrl);
  return {
    host: url.hostname,
    port: url.port || '5432',
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}

async function schemaVersion(databaseUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const table = await client.query(`SELECT to_regclass('schema_version') IS NOT NULL AS present`);
    if (!(table.rows[0] as { present: boolean }).present) return null;
    const row = await client.query('SELECT curr_version FROM schema_version LIMIT 1');
    return ((row.rows[0] as { curr_version?: string } | undefined)?.curr_version ?? null) || null;
  } finally {
    await client.end();
  }
}

/** Creates the database when missing and brings its schema to the latest version in `versionedDir`. */
async function setUpSchema(sqlTool: string, serverUrl: string, database: string, versionedDir: string, log: (m: string) => void): Promise<void> {
  const databaseUrl = await ensureDatabase(serverUrl, database);
  const target = sqlTarget(serverUrl);
  // The password goes through the environment, never the command line (visible in `ps`).
  const env = { ...process.env, SQL_PASSWORD: target.password };
  const base = ['--plugin', 'postgres12', '--ep', target.host, '--port', target.port, '--user', target.user, '--db', database];
  const before = await schemaVersion(databaseUrl);
  if (!before) await run(sqlTool, [...base, 'setup-schema', '-v', '0.0'], { env });
  await run(sqlTool, [...base, 'update-schema', '-d', versionedDir], { env });
  const after = await schemaVersion(databaseUrl);
  if (after !== before) log(`Temporal schema of database ${database}: ${before ?? 'none'} → ${after}`);
}

// ---- Config ----

interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  frontendMembership: number;
  historyMembership: number;
  matchingMembership: number;
  workerMembership: number;
}

/** A free loopback port below 32768: the server records its services' ports in a `smallint` column. */
async function freeLowPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * 22_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

/** Ports are chosen once per data folder and kept, so a restart finds its cluster membership where it left it. */
async function serverPorts(file: string, frontend: number): Promise<ServerPorts> {
  const saved = existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as ServerPorts) : null;
  if (saved && saved.frontend === frontend) return saved;
  const taken = new Set([frontend]);
  const ports: ServerPorts = {
    frontend,
    frontendHttp: await freeLowPort(taken),
    history: await freeLowPort(taken),
    matching: await freeLowPort(taken),
    worker: await freeLowPort(taken),
    frontendMembership: await freeLowPort(taken),
    historyMembership: await freeLowPort(taken),
    matchingMembership: await freeLowPort(taken),
    workerMembership: await freeLowPort(taken),
  };
  await writeFile(file, JSON.stringify(ports, null, 2) + '\n');
  return ports;
}

function datastore(target: SqlTarget, database: string, maxConns: number) {
  return {
    sql: {
      // pgx keeps each statement prepared per connection; lib/pq (`postgres12`) has PostgreSQL parse and
      // plan every one of the ~120 statements a sync run costs the server. Same schema, same databases.
      pluginName: 'postgres12_pgx',
      databaseName: database,
      connectAddr: `${target.host}:${target.port}`,
      connectProtocol: 'tcp',
      user: target.user,
      password: target.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

/** The server's static config: one cluster, both stores on PostgreSQL, every service on loopback. */
export function serverConfig(target: SqlTarget, databases: { main: string; visibility: string }, ports: ServerPorts, dynamicConfigFile: string) {
  const service = (grpcPort: number, membershipPort: number, extra: Record<string, unknown> = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: 4,
      datastores: {
        'postgres-default': datastore(target, databases.main, 20),
        'postgres-visibility': datastore(target, databases.visibility, 4),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: service(ports.frontend, ports.frontendMembership, { httpPort: ports.frontendHttp }),
      history: service(ports.history, ports.historyMembership),
      matching: service(ports.matching, ports.matchingMembership),
      worker: service(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${ports.frontend}` } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
}

/** Settings the CLI's dev server also applies, so the two behave alike for our workflows. */
const DYNAMIC_CONFIG = {
  'frontend.persistenceMaxQPS': [{ value: 10000, constraints: {} }],
  'history.persistenceMaxQPS': [{ value: 45000, constraints: {} }],
  'frontend.namespaceRPS.visibility': [{ value: 100, constraints: {} }],
  'history.hostLevelCacheMaxSize': [{ value: 8192, constraints: {} }],
  // The dev server's latency settings (lib/embedded/temporal.ts): the same keys on a cluster.
  ...Object.fromEntries(Object.entries(DEV_SERVER_DYNAMIC_CONFIG).map(([key, value]) => [key, [{ value, constraints: {} }]])),
  // A search attribute is usable as soon as it is registered (not after the cache's next refresh): this
  // server's attributes are added at runtime (prepareNamespace) and used by the next workflow start. The dev
  // server gets its attributes at launch, before any read, so it keeps the cache (DEV_SERVER_DYNAMIC_CONFIG).
  'system.forceSearchAttributesCacheRefreshOnRead': [{ value: true, constraints: {} }],
  // A history shard makes one persistence write at a time by default (only Cassandra needs that):
  // with 4 shards, every workflow start, task and completion of the namespace queues behind 3 others'
  // PostgreSQL commits. Each firing of a schedule takes ~20 such writes (the scheduler's and the run's),
  // 1,000 one-minute schedules ~330 a second. 8 per shard lets PostgreSQL group the commits.
  'history.shardIOConcurrency': [{ value: 8, constraints: {} }],
  // The per-namespace workers run the schedules (worker.perNamespaceWorkerCount above): 2 pollers
  // each by default left their task queue with a backlog of hundreds of scheduler tasks.
  'worker.perNamespaceWorkerOptions': [{ value: { MaxConcurrentWorkflowTaskPollers: 4, MaxConcurrentActivityTaskPollers: 4 }, constraints: {} }],
};

/** The server's dynamic config file: Switchyard's settings, then `extra` (the benchmarks' --temporal-config) added or replacing. */
export function serverDynamicConfig(extra: Readonly<Record<string, unknown>> = {}): Record<string, { value: unknown; constraints: object }[]> {
  return { ...DYNAMIC_CONFIG, ...Object.fromEntries(Object.entries(extra).map(([key, value]) => [key, [{ value, constraints: {} }]])) };
}

// ---- Start ----

export interface TemporalServerOptions {
  /** Folder for the generated config, the pid files and the kept ports. */
  dataDir: string;
  /** A PostgreSQL server URL (any database of it): Temporal's databases are created beside it. */
  databaseServerUrl: string;
  /** Names of Temporal's two databases (default `temporal`, `temporal_visibility`). */
  databases?: { main: string; visibility: string };
  port?: number;
  uiPort?: number;
  headless?: boolean;
  namespace: string;
  /** Dynamic config values added to (or replacing) the defaults below. */
  dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
  log: (m: string) => void;
}

export async function startTemporalServer(opts: TemporalServerOptions): Promise<EmbeddedTemporal> {
  const dir = path.join(opts.dataDir, 'temporal-server');
  const configDir = path.join(dir, 'config');
  await mkdir(configDir, { recursive: true });
  const binaries = await findTemporalServerBinaries(opts.log);
  const databases = opts.databases ?? { main: 'temporal', visibility: 'temporal_visibility' };
  await setUpSchema(binaries.sqlTool, opts.databaseServerUrl, databases.main, path.join(binaries.schemaDir, 'temporal', 'versioned'), opts.log);
  await setUpSchema(binaries.sqlTool, opts.databaseServerUrl, databases.visibility, path.join(binaries.schemaDir, 'visibility', 'versioned'), opts.log);

  const port = opts.port ?? 7233;
  const ports = await serverPorts(path.join(dir, 'ports.json'), port);
  const dynamicConfigFile = path.join(configDir, 'dynamic.yaml');
  await writeFile(dynamicConfigFile, YAML.stringify(serverDynamicConfig(opts.dynamicConfig)));
  // Holds the database password: readable by us only.
  const config = serverConfig(sqlTarget(opts.databaseServerUrl), databases, ports, dynamicConfigFile);
  await writeFile(path.join(configDir, 'switchyard.yaml'), YAML.stringify(config), { mode: 0o600 });

  const pidFile = path.join(dir, 'server.pid');
  await stopLeftover('the Temporal server', pidFile, 'SIGTERM', 20_000, opts.log);
  if (await portOpen(port)) throw new Error(`port ${port} is already in use; stop the other Temporal server or set TEMPORAL_ADDRESS to use it`);
  const service = await startService(binaries.server, ['--root', dir, '--config', 'config', '--env', 'switchyard', '--allow-no-auth', 'start'], {
    pidFile,
    stopSignal: 'SIGTERM',
    graceMs: 20_000,
  });
  const services: ServiceProcess[] = [service];
  const stop = async () => {
    for (const s of services.reverse()) await s.stop();
  };
  try {
    const address = `127.0.0.1:${port}`;
    await prepareNamespace(address, opts.namespace, service);
    let uiUrl: string | null = null;
    if (!opts.headless) {
      const ui = await startUi(dir, address, opts.uiPort ?? 8233, opts.namespace, opts.log);
      if (ui) {
        services.push(ui);
        uiUrl = `http://localhost:${opts.uiPort ?? 8233}`;
      }
    }
    return { address, uiUrl, binary: `${binaries.server} (${binaries.source})`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Registers the namespace (once) and our search attributes, then waits until the frontend serves both. */
async function prepareNamespace(address: string, namespace: string, service: ServiceProcess): Promise<void> {
  // The frontend's port opens before it answers: connecting is retried until it does.
  const held: { connection?: Connection } = {};
  await waitFor(
    'the Temporal frontend to answer',
    async () => {
      held.connection = await Connection.connect({ address, connectTimeout: 5_000 });
      return true;
    },
    120_000,
    service,
  );
  const connection = held.connection!;
  try {
    const svc = connection.workflowService;
    const op = connection.operatorService;
    await waitFor(
      'the Temporal namespace',
      async () => {
        try {
          await svc.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(RETENTION) });
        } catch (err) {
          // 6 = ALREADY_EXISTS: registered by an earlier start on this database.
          if ((err as { code?: number }).code !== 6) throw err;
        }
        return true;
      },
      120_000,
      service,
    );
    await waitFor(
      'our search attributes',
      async () => {
        const existing = await op.listSearchAttributes({ namespace });
        const missing = searchAttributeNames.filter((n) => !(n in (existing.customAttributes ?? {})));
        if (missing.length === 0) return true;
        await op.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((n) => [n, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])) });
        return false;
      },
      120_000,
      service,
    );
    // The frontend's namespace cache: a visibility query succeeds once it knows the namespace.
    await waitFor('the namespace to be served', async () => Boolean(await svc.countWorkflowExecutions({ namespace })), 120_000, service);
  } finally {
    await connection.close();
  }
}

async function startUi(dir: string, address: string, uiPort: number, namespace: string, log: (m: string) => void): Promise<ServiceProcess | null> {
  const binary = await findTemporalUiBinary(true, log);
  if (!binary) return null;
  const uiDir = path.join(dir, 'ui');
  await mkdir(path.join(uiDir, 'config'), { recursive: true });
  const uiConfig = { temporalGrpcAddress: address, host: '127.0.0.1', port: uiPort, enableUi: true, defaultNamespace: namespace, refreshInterval: '1m' };
  await writeFile(path.join(uiDir, 'config', 'switchyard.yaml'), YAML.stringify(uiConfig));
  const pidFile = path.join(dir, 'ui.pid');
  await stopLeftover('the Temporal UI', pidFile, 'SIGTERM', 5_000, log);
  const ui = await startService(binary, ['--root', uiDir, '--config', 'config', '--env', 'switchyard', 'start'], {
    pidFile,
    stopSignal: 'SIGTERM',
    graceMs: 5_000,
  });
  await waitFor('Temporal UI', () => portOpen(uiPort), 30_000, ui);
  return ui;
}
