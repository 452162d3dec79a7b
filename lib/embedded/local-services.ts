/**
 * @module embedded/local-services — the PostgreSQL server and Temporal service of the test runner
 * (test/run.ts) and the benchmarks (bench/lib/services.ts): DATABASE_URL and TEMPORAL_ADDRESS when
 * set, else an embedded PostgreSQL and a headless Temporal dev server on free ports, their data in
 * one work folder.
 */
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './postgres.js';
import { freePort, startTemporalDevServer } from './temporal.js';

export interface LocalServices {
  /** The PostgreSQL server (not a database of it). */
  databaseServerUrl: string;
  temporalAddress: string;
  /** Stops what was started here (nothing when both came from the environment). */
  stop(): Promise<void>;
}

export interface LocalServicesOptions {
  log: (m: string) => void;
  /** Starts the embedded PostgreSQL in dir on port (default startEmbeddedPostgres). */
  startPostgres?: (dir: string, port: number) => Promise<EmbeddedPostgres>;
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
    if (!temporalAddress) {
      const temporal = await startTemporalDevServer({
        dataDir: workDir,
        port: await freePort(),
        headless: true,
        namespace: 'default',
        cliPath: process.env.TEMPORAL_CLI_PATH,
        log: opts.log,
      });
      stops.push(temporal.stop);
      temporalAddress = temporal.address;
      opts.log(`Temporal dev server up (${temporal.binary})`);
    }
    return { databaseServerUrl, temporalAddress, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
