/**
 * `npm run reencrypt`: re-encrypts every secret at rest with SWITCHYARD_ENCRYPTION_KEY, reading old
 * values with SWITCHYARD_PREVIOUS_ENCRYPTION_KEYS (see features/encryption/rotation.ts for the procedure).
 */
import { ConfigError, loadConfig } from '../lib/config.js';
import { countStale, reencryptAll } from '../features/encryption/rotation.js';
import { createPool } from '../lib/db/pool.js';
import { loadSecretBox } from './secrets.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.DATABASE_URL) throw new ConfigError(['DATABASE_URL is required (for the embedded setup, run it while `npm start` is up, with the URL it uses)']);
  const db = createPool(config.DATABASE_URL, 2);
  try {
    const box = await loadSecretBox(config, false);
    const report = await reencryptAll(db, box);
    console.log(JSON.stringify({ ...report, staleLeft: await countStale(db, box) }));
  } finally {
    await db.end();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
