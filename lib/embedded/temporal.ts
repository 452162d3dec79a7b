/**
 * @module embedded/temporal — finds a `temporal` CLI and runs its dev server with a SQLite file in
 * the data folder, so workflows and schedules survive restarts.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { searchAttributeNames } from '../temporal/search-attributes.js';
import { startService, stopLeftover, waitFor } from './process.js';

const run = promisify(execFile);
export const TEMPORAL_CLI_VERSION = '1.5.1';
const GO_PACKAGE = `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;

export interface TemporalBinary {
  path: string;
  source: string;
}

function userCacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'switchyard', `temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

function onPath(name: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || null : null;
}

/**
 * The lookup order: TEMPORAL_CLI_PATH; `temporal` on PATH; a cached build in the data folder or the
 * user's cache; a `go install` build when Go is present; null (the caller then falls back to the
 * download that @temporalio/testing performs).
 */
export async function findTemporalBinary(dataDir: string, explicit: string | undefined, log: (m: string) => void): Promise<TemporalBinary | null> {
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`TEMPORAL_CLI_PATH points to ${explicit}, which does not exist`);
    return { path: explicit, source: 'TEMPORAL_CLI_PATH' };
  }
  const fromPath = onPath('temporal');
  if (fromPath) return { path: fromPath, source: 'PATH' };
  for (const dir of [path.join(dataDir, 'bin'), userCacheDir()]) {
    const candidate = path.join(dir, 'temporal');
    if (existsSync(candidate)) return { path: candidate, source: `cached build in ${dir}` };
  }
  if (onPath('go')) {
    const cache = userCacheDir();
    await mkdir(cache, { recursive: true });
    log(`building the Temporal CLI with go install ${GO_PACKAGE} (first time only, takes a few minutes)`);
    const gobin = path.join(cache, 'gobin');
    await run('go', ['install', GO_PACKAGE], { env: { ...process.env, GOBIN: gobin }, maxBuffer: 64 * 1024 * 1024 });
    await copyFile(path.join(gobin, 'temporal'), path.join(cache, 'temporal'));
    return { path: path.join(cache, 'temporal'), source: `go install (cached in ${cache})` };
  }
  return null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface DevServerOptions {
  dataDir: string;
  /** The SQLite file (default temporal.sqlite in dataDir); null keeps the state in memory (benchmarks only). */
  dbFile?: string | null;
  port?: number;
  uiPort?: number;
  headless?: boolean;
  namespace: string;
  cliPath?: string;
  /** Dynamic config values (`--dynamic-config-value`); default DEV_SERVER_DYNAMIC_CONFIG. */
  dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
  /** SQLite pragmas (`--sqlite-pragma`) for the file; default DEV_SERVER_SQLITE_PRAGMAS. */
  sqlitePragmas?: Readonly<Record<string, string>>;
  log: (m: string) => void;
}

/**
 * The dev server's latency settings. The history service hands each new task (a workflow task, an
 * activity task) to matching from its transfer queue, which it polls at most
 * `history.transferProcessorMaxPollRPS` times a second: the default 20 adds up to 50 ms to every
 * hop when work arrives one task at a time (three hops make the 150 ms of a one-activity workflow).
 * 1000 makes the hops a few milliseconds; an idle server stays idle. Eager activity execution hands
 * an activity scheduled by a workflow task straight back to the worker that completed it, one hop
 * less. A Temporal cluster takes the same keys in its dynamic config (README, Performance).
 * Measured in bench/RESULTS.md (2026-11-23) and shared/notes/temporal-latency.md.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, string | number | boolean>> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'system.enableActivityEagerExecution': true,
  // Starts by schedules share one token bucket per namespace (default 30/s): 1 000 one-minute
  // schedules firing on the same second wait up to 33 s for it (bench/RESULTS.md, many schedules).
  'worker.schedulerNamespaceStartWorkflowRPS': 1000,
  // Schedules are workflows run by the server's own per-namespace worker: 1 by default, 2 workflow
  // task pollers. 4 took 1 000 one-minute schedules on the Temporal server on PostgreSQL from 10.4 to
  // 16.3 runs started a second (bench/RESULTS.md, 2026-11-23, many schedules in steady state).
  'worker.perNamespaceWorkerCount': 4,
  // One partition per task queue (default 4): on one host partitions only add forwarding between
  // them, and a task that finds its poller on another partition waits. 300 one-minute schedules,
  // same tree, busy machine: 412 of 600 firings started against 195, Temporal 117 CPU-ms per run
  // against 125 (bench/RESULTS.md, issue 32, p3-sched).
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  // The search-attribute cache on. The CLI's dev server turns it off unless this key is given, and
  // then every workflow start, search-attribute upsert and visibility write reads the cluster
  // metadata row again: 14 reads a sync run under 1,000 one-minute schedules, on the one SQLite
  // file every write waits for. On SQL visibility the cached part is the pre-allocated columns'
  // types, which never change; a custom attribute's name is an alias in the namespace's record,
  // which the namespace cache follows whatever this says (bench/RESULTS.md, issue 32, p7-sched).
  'system.forceSearchAttributesCacheRefreshOnRead': false,
};

/**
 * The SQLite file in write-ahead-log mode: a commit appends to the log and syncs it once, where the
 * default rollback journal syncs the journal and the database file for every commit. `synchronous =
 * full` keeps every commit durable across a power loss, as before. `normal`
 * (SWITCHYARD_TEMPORAL_SQLITE_SYNCHRONOUS) syncs only at checkpoints: a process crash still loses
 * nothing, a power loss or OS crash may roll back Temporal's last commits (the file stays
 * consistent). On a disk that syncs in 0.44 ms it changed little (bench/RESULTS.md, issue 32,
 * p6-sched); on one that takes 6.9 ms a commit, the commits are what bound the dev server.
 */
export const DEV_SERVER_SQLITE_PRAGMAS: Readonly<Record<string, string>> = { journal_mode: 'wal', synchronous: 'full' };

function sqlitePragmaArgs(dbFile: string | null, pragmas: Readonly<Record<string, string>>): string[] {
  return dbFile === null ? [] : Object.entries(pragmas).flatMap(([k, v]) => ['--sqlite-pragma', `${k}=${v}`]);
}

function dynamicConfigArgs(values: Readonly<Record<string, string | number | boolean>>): string[] {
  return Object.entries(values).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${JSON.stringify(v)}`]);
}

export interface EmbeddedTemporal {
  address: string;
  uiUrl: string | null;
  binary: string;
  /** The server process, when this module started it. */
  pid?: number;
  stop(): Promise<void>;
}

export async function startTemporalDevServer(opts: DevServerOptions): Promise<EmbeddedTemporal> {
  await mkdir(opts.dataDir, { recursive: true });
  const port = opts.port ?? 7233;
  const uiPort = opts.uiPort ?? 8233;
  const dbFile = opts.dbFile === undefined ? path.join(opts.dataDir, 'temporal.sqlite') : opts.dbFile;
  const binary = await findTemporalBinary(opts.dataDir, opts.cliPath, opts.log);
  if (!binary) return startWithTestingDownload(opts, port, uiPort, dbFile);

  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    ...(dbFile === null ? [] : ['--db-filename', dbFile]),
    ...sqlitePragmaArgs(dbFile, opts.sqlitePragmas ?? DEV_SERVER_SQLITE_PRAGMAS),
    '--namespace',
    opts.namespace,
    '--log-level',
    'error',
    ...searchAttributeNames.flatMap((n) => ['--search-attribute', `${n}=Keyword`]),
    ...dynamicConfigArgs(opts.dynamicConfig ?? DEV_SERVER_DYNAMIC_CONFIG),
    ...(opts.headless ? ['--headless'] : ['--ui-port', String(uiPort)]),
  ];
  const pidFile = path.join(opts.dataDir, 'temporal.pid');
  await stopLeftover('the Temporal dev server', pidFile, 'SIGTERM', 15_000, opts.log);
  if (await portOpen(port)) throw new Error(`port ${port} is already in use; stop the other Temporal server or set TEMPORAL_ADDRESS to use it`);
  const service = await startService(binary.path, args, { pidFile, stopSignal: 'SIGTERM', graceMs: 15_000 });
  await waitFor('Temporal dev server', () => portOpen(port), 120_000, service);
  return {
    address: `127.0.0.1:${port}`,
    uiUrl: opts.headless ? null : `http://localhost:${uiPort}`,
    binary: `${binary.path} (${binary.source})`,
    pid: service.child.pid,
    stop: () => service.stop(),
  };
}

async function startWithTestingDownload(opts: DevServerOptions, port: number, uiPort: number, dbFile: string | null): Promise<EmbeddedTemporal> {
  opts.log('no temporal CLI found and no Go toolchain: downloading the dev server through @temporalio/testing');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port,
      ui: !opts.headless,
      uiPort,
      ...(dbFile === null ? {} : { dbFilename: dbFile }),
      namespace: opts.namespace,
      searchAttributes: [],
      extraArgs: [
        ...searchAttributeNames.flatMap((n) => ['--search-attribute', `${n}=Keyword`]),
        ...dynamicConfigArgs(opts.dynamicConfig ?? DEV_SERVER_DYNAMIC_CONFIG),
        ...sqlitePragmaArgs(dbFile, opts.sqlitePragmas ?? DEV_SERVER_SQLITE_PRAGMAS),
      ],
    },
  });
  return {
    address: `127.0.0.1:${port}`,
    uiUrl: opts.headless ? null : `http://localhost:${uiPort}`,
    binary: 'downloaded by @temporalio/testing',
    stop: () => env.teardown(),
  };
}
