/**
 * @module features/environments/provision — an environment made at run time (POST /environments):
 * its row and, as in Nango, a full-access API key "Default - Full access" whose secret its owner
 * reads with GET /environments/{uuid}/api-keys/{keyUuid}.
 */
import type { SecretBox } from '../../lib/crypto.js';
import { withTransaction, type Db } from '../../lib/db/pool.js';
import { createApiKey } from './api-keys.js';
import { FULL_ENVIRONMENT_ACCESS } from './scopes.js';
import { createEnvironment, type Environment } from './store.js';

export const DEFAULT_KEY_NAME = 'Default - Full access';

/** Null when the name is taken. */
export async function provisionEnvironment(db: Db, box: SecretBox, input: { name: string; isProduction: boolean }): Promise<Environment | null> {
  return withTransaction(db, async (client) => {
    const env = await createEnvironment(client, input);
    if (env) await createApiKey(client, box, { environmentId: env.id, displayName: DEFAULT_KEY_NAME, scopes: [FULL_ENVIRONMENT_ACCESS] });
    return env;
  });
}
