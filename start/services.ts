/**
 * @module start/services — Postgres and Temporal: the configured ones, or embedded ones started
 * here (a real PostgreSQL and a Temporal dev server) when DATABASE_URL / TEMPORAL_ADDRESS are unset.
 * With SWITCHYARD_TEMPORAL=server the Temporal started is a real Temporal server whose stores are
 * databases on that PostgreSQL (the embedded one, or the server DATABASE_URL names).
 */
import path from 'node:path';
import type { Config } from '../lib/config.js';
import { ensureDatabase, startEmbeddedPostgres } from '../lib/embedded/postgres.js';
import { DEV_SERVER_SQLITE_PRAGMAS, startTemporalDevServer } from '../lib/embedded/temporal.js';
import { startTemporalServer } from '../lib/embedded/temporal-server.js';

export interface Services {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | null;
  embedded: { postgres: boolean; temporal: boolean; temporalKind: Config['SWITCHYARD_TEMPORAL']; temporalBinary?: string };
  stop(): Promise<void>;
}

export async function startServices(config: Config, log: (m: string) => void): Promise<Services> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      log(`starting embedded PostgreSQL on 127.0.0.1:${config.SWITCHYARD_EMBEDDED_PG_PORT}`);
      const pg = await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), config.SWITCHYARD_EMBEDDED_PG_PORT, log);
      stops.push(pg.stop);
      databaseUrl = await ensureDatabase(pg.url, 'switchyard');
    }
    let temporalAddress = config.TEMPORAL_ADDRESS;
    let temporalUiUrl: string | null = null;
    let temporalBinary: string | undefined;
    if (!temporalAddress) {
      const common = {
        dataDir: config.dataDir,
        namespace: config.TEMPORAL_NAMESPACE,
        port: config.SWITCHYARD_EMBEDDED_TEMPORAL_PORT,
        uiPort: config.TEMPORAL_UI_PORT,
        log,
      };
      const server = config.SWITCHYARD_TEMPORAL === 'server';
      log(server ? 'starting Temporal server on PostgreSQL' : 'starting Temporal dev server');
      const temporal = server
        ? await startTemporalServer({ ...common, databaseServerUrl: databaseUrl })
        : await startTemporalDevServer({
            ...common,
            cliPath: config.TEMPORAL_CLI_PATH,
            sqlitePragmas: { ...DEV_SERVER_SQLITE_PRAGMAS, synchronous: config.SWITCHYARD_TEMPORAL_SQLITE_SYNCHRONOUS },
          });
      stops.push(temporal.stop);
      temporalAddress = temporal.address;
      temporalUiUrl = temporal.uiUrl;
      temporalBinary = temporal.binary;
      log(`${server ? 'Temporal server' : 'Temporal CLI'} used: ${temporal.binary}`);
    }
    return {
      databaseUrl,
      temporalAddress,
      temporalUiUrl,
      embedded: { postgres: !config.DATABASE_URL, temporal: !config.TEMPORAL_ADDRESS, temporalKind: config.SWITCHYARD_TEMPORAL, temporalBinary },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
