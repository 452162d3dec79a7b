/**
 * @module embedded/local-services — the PostgreSQL server and Temporal service of the test runner
 * (test/run.ts) and the benchmarks (bench/lib/services.ts): DATABASE_URL and TEMPORAL_ADDRESS when
 * set, else an embedded PostgreSQL and a headless Temporal on free ports, their data in one work
 * folder. The Temporal is the CLI's dev server, or with `temporal: 'server'` (SWITCHYARD_TEMPORAL=server)
 * a real Temporal server whose stores are databases of that PostgreSQL.
 */
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './postgres.js';
import { DEV_SERVER_DYNAMIC_CONFIG, DEV_SERVER_SQLITE_PRAGMAS, freePort, startTemporalDevServer, type EmbeddedTemporal } from './temporal.js';
import { startTemporalServer } from './temporal-server.js';

export type TemporalKind = 'dev' | 'server';

/** SWITCHYARD_TEMPORAL: `dev` (default) or `server`; anything else stops the start. */
export function temporalKind(value = process.env.SWITCHYARD_TEMPORAL): TemporalKind {
  if (!value || value === 'dev') return 'dev';
  if (value === 'server') return 'server';
  throw new Error(`SWITCHYARD_TEMPORAL must be dev or server, not ${JSON.stringify(value)}`);
}

export interface LocalServices {
  /** The PostgreSQL server (not a database of it). */
  databaseServerUrl: string;
  temporalAddress: string;
  /** The Temporal started here (null when TEMPORAL_ADDRESS was set): which kind, and its binary. */
  temporal: { kind: TemporalKind; binary: string } | null;
  /** Stops what was started here (nothing when both came from the environment). */
  stop(): Promise<void>;
}

export interface LocalServicesOptions {
  log: (m: string) => void;
  /** Starts the embedded PostgreSQL in dir on port (default startEmbeddedPostgres). */
  startPostgres?: (dir: string, port: number) => Promise<EmbeddedPostgres>;
  /** Default: SWITCHYARD_TEMPORAL. */
  temporal?: TemporalKind;
  /** Dynamic config values added to (or replacing) DEV_SERVER_DYNAMIC_CONFIG, on either kind (the benchmarks' --temporal-config). */
  dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
  /** SQLite pragmas added to (or replacing) DEV_SERVER_SQLITE_PRAGMAS, dev server only (the benchmarks' --temporal-sqlite). */
  sqlitePragmas?: Readonly<Record<string, string>>;
}

export async function startLocalServices(workDir: string, opts: LocalServicesOptions): Promise<LocalServices> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    let databaseServerUrl = process.env.DATABASE_URL;
    if (!databaseServerUrl) {
      const pg = await (opts.startPostgres ?? startEmbeddedPostgres)(path.join(workDir, 'postgres'), await freePort());
      stops.push(pg.stop);
      databaseServerUrl = pg.url;
      opts.log('embedded PostgreSQL up');
    }
    let temporalAddress = process.env.TEMPORAL_ADDRESS;
    let started: LocalServices['temporal'] = null;
    if (!temporalAddress) {
      const kind = opts.temporal ?? temporalKind();
      const common = { dataDir: workDir, port: await freePort(), headless: true, namespace: 'default', log: opts.log };
      const temporal: EmbeddedTemporal =
        kind === 'server'
          ? await startTemporalServer({ ...common, databaseServerUrl, dynamicConfig: opts.dynamicConfig })
          : await startTemporalDevServer({
              ...common,
              cliPath: process.env.TEMPORAL_CLI_PATH,
              dynamicConfig: { ...DEV_SERVER_DYNAMIC_CONFIG, ...opts.dynamicConfig },
              sqlitePragmas: { ...DEV_SERVER_SQLITE_PRAGMAS, ...opts.sqlitePragmas },
            });
      stops.push(temporal.stop);
      temporalAddress = temporal.address;
      started = { kind, binary: temporal.binary };
      opts.log(`Temporal ${kind === 'server' ? 'server on PostgreSQL' : 'dev server'} up (${temporal.binary})`);
    }
    return { databaseServerUrl, temporalAddress, temporal: started, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
