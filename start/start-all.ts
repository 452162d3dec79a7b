/**
 * `npm start`: everything in one process — embedded services when not configured, migrations,
 * the API and the worker.
 */
import path from 'node:path';
import { ConfigError, loadConfig } from '../lib/config.js';
import { startServices } from './services.js';
import { startPlatform } from './platform.js';
import { onShutdown } from './shutdown.js';

const say = (m: string) => console.log(`[switchyard] ${m}`);

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
  say(`API:          ${platform.apiUrl} (public URL ${config.publicUrl})`);
  say(`Temporal UI:  ${services.temporalUiUrl ?? `(external Temporal at ${services.temporalAddress})`}`);
  say(`Postgres:     ${services.embedded.postgres ? 'embedded' : 'DATABASE_URL'}`);
  // A key is printed once, by the start that generated it; later starts say where it is kept.
  for (const { env, secretKey, generated } of platform.environments) if (generated) say(`${env.name} secret key: ${secretKey}`);
  if (!platform.environments.some((e) => e.generated)) say(`secret keys: configured, or kept in ${path.join(config.dataDir, 'secrets.json')}`);
  say('ready — Ctrl-C to stop');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error('[switchyard] failed to start:', err);
  process.exit(1);
});
