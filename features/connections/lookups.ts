/**
 * @module features/connections/lookups — what every proxied call and records read looks up first
 * (the secret key's environment, the integration, the connection with its decrypted credentials, the
 * provider's definition),
 * kept in memory by the API process and dropped when Postgres says the row changed (lib/db/change-feed.ts,
 * migration 018): a rotated secret key, a deleted connection or refreshed credentials are not used
 * again once the change's notice arrives. Bounded LRU caches; while the LISTEN connection is down
 * every read goes to the database.
 */
import type { SecretBox } from '../../lib/crypto.js';
import { sha256Hex } from '../../lib/crypto.js';
import { NotifiedCache, type ChangeFeed } from '../../lib/db/change-feed.js';
import type { Queryable } from '../../lib/db/pool.js';
import { keyHolderForSecret, type KeyHolder } from '../environments/keys.js';
import { getIntegration, type Integration } from '../integrations/store.js';
import type { Provider } from '../providers/providers.js';
import { findProvider } from '../providers/store.js';
import { getConnection, type Connection } from './store.js';

export interface Lookups {
  /** The environment and scopes of a secret key (an environment's default key or one of its API keys). */
  keyHolder(secretKey: string): Promise<KeyHolder | null>;
  integration(environmentId: number, uniqueKey: string): Promise<Integration | null>;
  connection(environmentId: number, integrationKey: string, connectionId: string): Promise<Connection | null>;
  /** The provider of this name as the environment sees it (its own definition, else the catalogue's). */
  provider(environmentId: number, name: string): Promise<Provider | null>;
  /** Resolves once the changes committed so far (this process's own writes included) have reached the caches. */
  settled(): Promise<void>;
}

export interface LookupLimits {
  environments?: number;
  integrations?: number;
  connections?: number;
  providers?: number;
}

/** Lookups straight from the database (processes without a change feed: the worker, tools). */
export function uncachedLookups(db: Queryable, box: SecretBox): Lookups {
  return {
    keyHolder: (secretKey) => keyHolderForSecret(db, secretKey),
    integration: (environmentId, uniqueKey) => getIntegration(db, box, environmentId, uniqueKey),
    connection: (environmentId, integrationKey, connectionId) => getConnection(db, box, environmentId, integrationKey, connectionId),
    provider: async (environmentId, name) => (await findProvider(db, environmentId, name)) ?? null,
    settled: async () => undefined,
  };
}

export function cachedLookups(db: Queryable, box: SecretBox, feed: ChangeFeed, limits: LookupLimits = {}): Lookups {
  const direct = uncachedLookups(db, box);
  // Few keys; a key that no longer matches must fail at once, so any environment or key change empties it.
  const keys = new NotifiedCache<KeyHolder>(feed, {
    max: limits.environments ?? 256,
    affected: (c) => (c.table === 'environments' || c.table === 'api_keys' ? 'all' : null),
  });
  // An integration's unique key or provider is part of the connection entries too: an integration change empties both.
  const integrations = new NotifiedCache<Integration>(feed, { max: limits.integrations ?? 1000, affected: (c) => (c.table === 'integrations' ? 'all' : null) });
  const connections = new NotifiedCache<Connection>(feed, {
    max: limits.connections ?? 10_000,
    affected: (c) => {
      if (c.table === 'integrations' || c.table === 'environments') return 'all';
      if (c.table === 'connections') return (v) => v.id === c.id;
      return null;
    },
  });
  // A user-defined provider's update or delete sends a notice; a new one cannot take a name in use
  // (the catalogue's, or another of its environment's: features/providers/store.ts), so no insert changes a kept answer.
  const providers = new NotifiedCache<Provider>(feed, {
    max: limits.providers ?? 1000,
    affected: (c) => (c.table === 'providers' || c.table === 'environments' ? 'all' : null),
  });
  return {
    keyHolder: (secretKey) => keys.get(sha256Hex(secretKey), () => direct.keyHolder(secretKey)),
    integration: (environmentId, uniqueKey) => integrations.get(`${environmentId}\0${uniqueKey}`, () => direct.integration(environmentId, uniqueKey)),
    connection: (environmentId, integrationKey, connectionId) =>
      connections.get(`${environmentId}\0${integrationKey}\0${connectionId}`, () => direct.connection(environmentId, integrationKey, connectionId)),
    provider: (environmentId, name) => providers.get(`${environmentId}\0${name}`, () => direct.provider(environmentId, name)),
    settled: () => feed.barrier(),
  };
}
