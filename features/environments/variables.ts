/**
 * @module features/environments/variables — an environment's variables: names and values its
 * scripts read with `getEnvironmentVariables()` (API keys of a service they call, feature flags).
 * Values are secrets: encrypted at rest, never logged.
 */
import { rowAad, type SecretBox } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';

export interface EnvironmentVariable {
  name: string;
  value: string;
}

const aad = (environmentId: number) => rowAad('environment_variables', 'variables_enc', environmentId);

export async function getEnvironmentVariables(db: Queryable, box: SecretBox, environmentId: number): Promise<EnvironmentVariable[]> {
  const { rows } = await db.query<{ variables_enc: string }>('SELECT variables_enc FROM environment_variables WHERE environment_id = $1', [environmentId]);
  return rows[0] ? box.decryptJson<EnvironmentVariable[]>(rows[0].variables_enc, aad(environmentId)) : [];
}

/** Replaces all the environment's variables (an empty list removes them). */
export async function setEnvironmentVariables(db: Queryable, box: SecretBox, environmentId: number, variables: EnvironmentVariable[]): Promise<void> {
  if (variables.length === 0) {
    await db.query('DELETE FROM environment_variables WHERE environment_id = $1', [environmentId]);
    return;
  }
  await db.query(
    `INSERT INTO environment_variables (environment_id, variables_enc) VALUES ($1, $2)
     ON CONFLICT (environment_id) DO UPDATE SET variables_enc = EXCLUDED.variables_enc, updated_at = now()`,
    [environmentId, box.encryptJson(variables, aad(environmentId))],
  );
}
