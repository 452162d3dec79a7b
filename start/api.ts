/**
 * `npm run api`: the HTTP API alone, against configured DATABASE_URL and TEMPORAL_ADDRESS.
 */
import { ConfigError, loadConfig } from '../lib/config.js';
import { startPlatform } from './platform.js';
import { onShutdown } from './shutdown.js';

const say = (m: string) => console.log(`[switchyard api] ${m}`);

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new ConfigError(['DATABASE_URL and TEMPORAL_ADDRESS are required for `npm run api` (use `npm start` for the embedded setup)']);
  }
  const platform = await startPlatform({
    config,
    databaseUrl: config.DATABASE_URL,
    temporalAddress: config.TEMPORAL_ADDRESS,
    runApi: true,
    runWorker: false,
    keepSecretsLocally: false,
  });
  onShutdown(platform.stop, say);
  for (const { env, secretKey, generated } of platform.environments) if (generated) say(`${env.name} secret key (shown once): ${secretKey}`);
  say(`listening on ${platform.apiUrl}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
