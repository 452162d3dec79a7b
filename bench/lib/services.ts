/**
 * @module bench/lib/services — what every benchmark shares: one embedded PostgreSQL and one Temporal
 * dev server, or with `--temporal=server` a Temporal server on that PostgreSQL (or DATABASE_URL /
 * TEMPORAL_ADDRESS when set), and the workflow bundle, built once.
 * Everything listens on 127.0.0.1 and lives in a temporary folder removed at the end.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Pg from 'pg';
import { startEmbeddedPostgres } from '../../lib/embedded/postgres.js';
import { startLocalServices, type TemporalKind } from '../../lib/embedded/local-services.js';
import { bundleWorkflows } from '../../worker/index.js';
import { findPid, servicePids } from './stats.js';

export interface BenchServices {
  databaseServerUrl: string;
  temporalAddress: string;
  /** The platform's workflow bundle, written once. */
  bundlePath: string;
  workDir: string;
  storage: Storage;
  pgStatStatements: boolean;
  temporal: TemporalKind;
  stop(): Promise<void>;
}

export type Storage = 'disk' | 'tmpfs';

/**
 * `disk`: PostgreSQL's data and Temporal's SQLite file in the temporary folder, as `npm start` and
 * `npm test` keep them. `tmpfs`: both in /dev/shm, so the disk's fsync latency is out of every
 * figure, floors included.
 */
export async function startServices(
  say: (m: string) => void,
  storage: Storage = 'disk',
  pgStatStatements = false,
  temporal: TemporalKind = 'dev',
  dynamicConfig: Record<string, string | number | boolean> = {},
  sqlitePragmas: Record<string, string> = {},
): Promise<BenchServices> {
  const workDir = await mkdtemp(path.join(storage === 'tmpfs' ? '/dev/shm' : os.tmpdir(), 'switchyard-bench-'));
  await chmod(workDir, 0o755);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
  };
  try {
    const services = await startLocalServices(workDir, {
      log: say,
      temporal,
      dynamicConfig,
      sqlitePragmas,
      async startPostgres(dir, port) {
        let pg = await startEmbeddedPostgres(dir, port);
        if (pgStatStatements) {
          // Per-statement timings (--pg-stat-statements): the library loads only at server start.
          const client = new Pg.Client({ connectionString: pg.url });
          await client.connect();
          await client.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
          await client.end();
          await pg.stop();
          pg = await startEmbeddedPostgres(dir, port);
        }
        return pg;
      },
    });
    stops.push(services.stop);
    const { databaseServerUrl, temporalAddress } = services;
    servicePids.postgres = findPid(path.join(workDir, 'postgres', 'pgdata'));
    servicePids.temporal = findPid(path.join(workDir, temporal === 'server' ? 'temporal-server' : 'temporal.sqlite'));
    const bundlePath = path.join(workDir, 'workflow-bundle.js');
    await writeFile(bundlePath, (await bundleWorkflows()).code);
    say('workflows bundled');
    return { databaseServerUrl, temporalAddress, bundlePath, workDir, storage, pgStatStatements, temporal, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
