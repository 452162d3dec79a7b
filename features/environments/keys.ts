/**
 * @module features/environments/keys — who a secret key is: an environment's default secret key
 * (full access, account scopes included) or one of its API keys (its own scopes).
 */
import { findApiKeyBySecret } from './api-keys.js';
import { DEFAULT_KEY_SCOPES } from './scopes.js';
import { findEnvironmentById, findEnvironmentBySecretKey, type Environment } from './store.js';
import type { Queryable } from '../../lib/db/pool.js';

export interface KeyHolder {
  environment: Environment;
  scopes: readonly string[];
  /** The API key's id; null for the environment's default secret key. */
  apiKeyId: number | null;
}

export async function keyHolderForSecret(db: Queryable, secret: string): Promise<KeyHolder | null> {
  const environment = await findEnvironmentBySecretKey(db, secret);
  if (environment) return { environment, scopes: DEFAULT_KEY_SCOPES, apiKeyId: null };
  const key = await findApiKeyBySecret(db, secret);
  if (!key) return null;
  const owner = await findEnvironmentById(db, key.environmentId);
  return owner ? { environment: owner, scopes: key.scopes, apiKeyId: key.id } : null;
}
