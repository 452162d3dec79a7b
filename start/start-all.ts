/**
 * `npm start`: everything in one process — embedded services when not configured, migrations,
 * the API and the worker.
 */
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../lib/config.js';
import { redactUrl } from '../lib/http/redact.js';
import { wantsPrettyLogs } from '../lib/log.js';
import { startServices, type Services } from './services.js';
import { startPlatform } from './platform.js';
import { onShutdown } from './shutdown.js';

const say = (m: string) => console.log(`[switchyard] ${m}`);

function temporalLine(services: Services, config: Config): string {
  if (!services.embedded.temporal) return `TEMPORAL_ADDRESS ${config.TEMPORAL_ADDRESS}`;
  if (services.embedded.temporalKind === 'server') return 'embedded Temporal server, history in the PostgreSQL databases temporal and temporal_visibility';
  return `embedded, history in ${path.join(config.dataDir, 'temporal.sqlite')}`;
}

async function main(): Promise<void> {
  const config = loadConfig();
  say(`data folder: ${config.dataDir}`);
  const services = await startServices(config, say);
  let platform: Awaited<ReturnType<typeof startPlatform>> | null = null;
  onShutdown(async () => {
    await platform?.stop();
    await services.stop();
  }, say);
  platform = await startPlatform({
    config,
    databaseUrl: services.databaseUrl,
    temporalAddress: services.temporalAddress,
    runApi: true,
    runWorker: true,
    keepSecretsLocally: true,
  });
  const data = config.dataDir;
  const rows: [string, string][] = [
    ['API', `${platform.apiUrl} (public URL ${config.publicUrl})`],
    ['Dashboard', `${config.publicUrl}/dashboard`],
    ['Temporal UI', services.temporalUiUrl ?? `(external Temporal at ${services.temporalAddress})`],
    ['Postgres', services.embedded.postgres ? `embedded, data in ${path.join(data, 'postgres')}` : 'DATABASE_URL'],
    ['Temporal', temporalLine(services, config)],
    ['Encryption key', config.SWITCHYARD_ENCRYPTION_KEY ? 'SWITCHYARD_ENCRYPTION_KEY' : `generated, kept in ${path.join(data, 'secrets.json')}`],
    ['Tracing', config.OTEL_EXPORTER_OTLP_ENDPOINT ? `OTLP to ${redactUrl(config.OTEL_EXPORTER_OTLP_ENDPOINT)}` : 'off (set OTEL_EXPORTER_OTLP_ENDPOINT)'],
    ['Logs', `${config.LOG_LEVEL}, ${wantsPrettyLogs() ? 'pretty (LOG_FORMAT=json for JSON)' : 'JSON lines'}`],
  ];
  for (const [name, value] of rows) say(`${`${name}:`.padEnd(16)}${value}`);
  // A key is printed once, by the start that generated it; later starts say where it is kept.
  for (const { env, secretKey, generated } of platform.environments) if (generated) say(`${env.name} secret key: ${secretKey}`);
  if (!platform.environments.some((e) => e.generated)) say(`secret keys: configured, or kept in ${path.join(data, 'secrets.json')}`);
  say('ready — Ctrl-C to stop');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error('[switchyard] failed to start:', err);
  process.exit(1);
});
