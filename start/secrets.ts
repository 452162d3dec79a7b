/**
 * @module start/secrets — the encryption key and the environments' secret keys. Configured values
 * win; in the embedded (dev) setup, generated values are kept in the data folder so that every
 * start can print the dev key and decrypt what the last one stored.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from '../lib/config.js';
import { newSecretKey, parseKey, SecretBox } from '../lib/crypto.js';
import {
  createEnvironmentIfMissing,
  DEFAULT_ENVIRONMENTS,
  findEnvironmentByName,
  upsertEnvironmentKey,
  type Environment,
} from '../features/environments/store.js';
import type { Db } from '../lib/db/pool.js';

interface LocalSecrets {
  encryptionKey?: string;
  secretKeys?: Record<string, string>;
}

function secretsFile(config: Config): string {
  return path.join(config.dataDir, 'secrets.json');
}

async function readLocal(config: Config): Promise<LocalSecrets> {
  const file = secretsFile(config);
  return existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as LocalSecrets) : {};
}

async function writeLocal(config: Config, secrets: LocalSecrets): Promise<void> {
  await mkdir(config.dataDir, { recursive: true });
  await writeFile(secretsFile(config), JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
}

/**
 * The key that encrypts credentials. Without SWITCHYARD_ENCRYPTION_KEY one is generated and kept
 * in the data folder only when `allowLocal` (the embedded setup); production must configure it.
 */
export async function loadSecretBox(config: Config, allowLocal: boolean): Promise<SecretBox> {
  const previous = config.SWITCHYARD_PREVIOUS_ENCRYPTION_KEYS.map(parseKey);
  if (config.SWITCHYARD_ENCRYPTION_KEY) return new SecretBox(parseKey(config.SWITCHYARD_ENCRYPTION_KEY), previous);
  if (!allowLocal) throw new Error('SWITCHYARD_ENCRYPTION_KEY is required when DATABASE_URL is set (32 bytes, 64 hex characters)');
  const local = await readLocal(config);
  if (!local.encryptionKey) {
    local.encryptionKey = randomBytes(32).toString('hex');
    await writeLocal(config, local);
  }
  return new SecretBox(parseKey(local.encryptionKey), previous);
}

export interface EnvironmentKey {
  env: Environment;
  /** Known only when configured, kept locally, or generated on this start. */
  secretKey: string | null;
  generated: boolean;
}

/**
 * Creates dev and prod at first start and applies SWITCHYARD_SECRET_KEY_DEV/_PROD. Only a process
 * that runs the API calls this: it is the one that shows the keys it generates.
 */
export async function ensureEnvironments(db: Db, config: Config, keepLocally: boolean): Promise<EnvironmentKey[]> {
  const local = keepLocally ? await readLocal(config) : {};
  const out: EnvironmentKey[] = [];
  let changed = false;
  for (const name of DEFAULT_ENVIRONMENTS) {
    const configured = name === 'dev' ? config.SWITCHYARD_SECRET_KEY_DEV : config.SWITCHYARD_SECRET_KEY_PROD;
    if (configured) {
      out.push({ env: await upsertEnvironmentKey(db, name, configured), secretKey: configured, generated: false });
      continue;
    }
    const remembered = local.secretKeys?.[name];
    const key = remembered ?? newSecretKey();
    const { env, created } = await createEnvironmentIfMissing(db, name, key);
    if (created && keepLocally) {
      local.secretKeys = { ...local.secretKeys, [name]: key };
      changed = true;
    }
    out.push({ env, secretKey: created || remembered ? key : null, generated: created });
  }
  if (changed) await writeLocal(config, local);
  return out;
}

/**
 * For a process without the API (the worker alone): the environments must exist already. Were it to
 * create them, keys would be generated that nobody sees (a worker's output is not where people look).
 */
export async function requireEnvironments(db: Db): Promise<EnvironmentKey[]> {
  const out: EnvironmentKey[] = [];
  const missing: string[] = [];
  for (const name of DEFAULT_ENVIRONMENTS) {
    const env = await findEnvironmentByName(db, name);
    if (env) out.push({ env, secretKey: null, generated: false });
    else missing.push(name);
  }
  if (missing.length > 0) {
    throw new ConfigError([
      `environment ${missing.join(', ')} does not exist yet: only the API creates environments (with SWITCHYARD_SECRET_KEY_DEV/_PROD, or with keys it generates and prints once). Start the API (npm run api) first, then the worker.`,
    ]);
  }
  return out;
}
