/**
 * @module features/integrations/store — integrations (credentials encrypted) and their activated endpoints.
 */
import { rowAad, type SecretBox } from '../../lib/crypto.js';
import type { IntegrationConfig } from '../providers/providers.js';
import type { IntegrationCredentials } from '../connections/credentials.js';
import type { Queryable } from '../../lib/db/pool.js';
import { reserveRowId } from '../../lib/db/row-ids.js';

const credentialsAad = (id: number) => rowAad('integrations', 'credentials_enc', id);

export interface Integration {
  id: number;
  environmentId: number;
  uniqueKey: string;
  provider: string;
  displayName: string | null;
  credentials: IntegrationCredentials | null;
  integrationConfig: IntegrationConfig;
  custom: Record<string, string> | null;
  forwardWebhooks: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: number;
  environment_id: number;
  unique_key: string;
  provider: string;
  display_name: string | null;
  credentials_enc: string | null;
  integration_config: IntegrationConfig;
  custom: Record<string, string> | null;
  forward_webhooks: boolean;
  created_at: Date;
  updated_at: Date;
}

function fromRow(box: SecretBox, r: Row): Integration {
  return {
    id: r.id,
    environmentId: r.environment_id,
    uniqueKey: r.unique_key,
    provider: r.provider,
    displayName: r.display_name,
    credentials: r.credentials_enc ? box.decryptJson<IntegrationCredentials>(r.credentials_enc, credentialsAad(r.id)) : null,
    integrationConfig: r.integration_config,
    custom: r.custom,
    forwardWebhooks: r.forward_webhooks,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function listIntegrations(db: Queryable, box: SecretBox, environmentId: number): Promise<Integration[]> {
  const { rows } = await db.query<Row>('SELECT * FROM integrations WHERE environment_id = $1 ORDER BY created_at, id', [environmentId]);
  return rows.map((r) => fromRow(box, r));
}

export async function getIntegration(db: Queryable, box: SecretBox, environmentId: number, uniqueKey: string): Promise<Integration | null> {
  const { rows } = await db.query<Row>('SELECT * FROM integrations WHERE environment_id = $1 AND unique_key = $2', [environmentId, uniqueKey]);
  return rows[0] ? fromRow(box, rows[0]) : null;
}

export async function getIntegrationById(db: Queryable, box: SecretBox, id: number): Promise<Integration | null> {
  const { rows } = await db.query<Row>('SELECT * FROM integrations WHERE id = $1', [id]);
  return rows[0] ? fromRow(box, rows[0]) : null;
}

export interface IntegrationInput {
  uniqueKey: string;
  provider: string;
  displayName?: string | null;
  credentials?: IntegrationCredentials | null;
  integrationConfig?: IntegrationConfig;
  custom?: Record<string, string> | null;
  forwardWebhooks?: boolean;
}

/** Returns null when the unique key is taken. */
export async function insertIntegration(db: Queryable, box: SecretBox, environmentId: number, input: IntegrationInput): Promise<Integration | null> {
  const id = await reserveRowId(db, 'integrations');
  const { rows } = await db.query<Row>(
    `INSERT INTO integrations (environment_id, unique_key, provider, display_name, credentials_enc, integration_config, custom, forward_webhooks, id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (environment_id, unique_key) DO NOTHING RETURNING *`,
    [
      environmentId,
      input.uniqueKey,
      input.provider,
      input.displayName ?? null,
      input.credentials ? box.encryptJson(input.credentials, credentialsAad(id)) : null,
      JSON.stringify(input.integrationConfig ?? {}),
      input.custom ? JSON.stringify(input.custom) : null,
      input.forwardWebhooks ?? true,
      id,
    ],
  );
  return rows[0] ? fromRow(box, rows[0]) : null;
}

export async function updateIntegration(db: Queryable, box: SecretBox, current: Integration, patch: Partial<IntegrationInput>): Promise<Integration | null> {
  const next = {
    uniqueKey: patch.uniqueKey ?? current.uniqueKey,
    displayName: patch.displayName !== undefined ? patch.displayName : current.displayName,
    credentials: patch.credentials !== undefined ? patch.credentials : current.credentials,
    integrationConfig: patch.integrationConfig ?? current.integrationConfig,
    custom: patch.custom !== undefined ? patch.custom : current.custom,
    forwardWebhooks: patch.forwardWebhooks ?? current.forwardWebhooks,
  };
  try {
    const { rows } = await db.query<Row>(
      `UPDATE integrations SET unique_key = $2, display_name = $3, credentials_enc = $4, integration_config = $5, custom = $6, forward_webhooks = $7, updated_at = now()
       WHERE id = $1 RETURNING *`,
      [
        current.id,
        next.uniqueKey,
        next.displayName,
        next.credentials ? box.encryptJson(next.credentials, credentialsAad(current.id)) : null,
        JSON.stringify(next.integrationConfig),
        next.custom ? JSON.stringify(next.custom) : null,
        next.forwardWebhooks,
      ],
    );
    return rows[0] ? fromRow(box, rows[0]) : null;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return null;
    throw err;
  }
}

/**
 * Sets the integration's client when it has none (a client registered on its first connection, MCP_OAUTH2):
 * of two registering at once, the first stored wins, and both go on with it.
 */
export async function setCredentialsIfNone(
  db: Queryable,
  box: SecretBox,
  id: number,
  credentials: IntegrationCredentials,
): Promise<IntegrationCredentials | null> {
  await db.query('UPDATE integrations SET credentials_enc = $2, updated_at = now() WHERE id = $1 AND credentials_enc IS NULL', [
    id,
    box.encryptJson(credentials, credentialsAad(id)),
  ]);
  return (await getIntegrationById(db, box, id))?.credentials ?? null;
}

export async function deleteIntegration(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM integrations WHERE id = $1', [id]);
}

export interface EndpointState {
  method: string;
  path: string;
  enabled: boolean;
}

export async function endpointStates(db: Queryable, integrationId: number): Promise<EndpointState[]> {
  const { rows } = await db.query<EndpointState>('SELECT method, path, enabled FROM integration_endpoints WHERE integration_id = $1', [integrationId]);
  return rows;
}

export async function setEndpointStates(db: Queryable, integrationId: number, states: EndpointState[]): Promise<void> {
  for (const s of states) {
    await db.query(
      `INSERT INTO integration_endpoints (integration_id, method, path, enabled) VALUES ($1, $2, $3, $4)
       ON CONFLICT (integration_id, method, path) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
      [integrationId, s.method, s.path, s.enabled],
    );
  }
}

/** How many integrations of the environment use this provider. */
export async function countIntegrationsOfProvider(db: Queryable, environmentId: number, provider: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM integrations WHERE environment_id = $1 AND provider = $2', [
    environmentId,
    provider,
  ]);
  return Number(rows[0]!.n);
}

/** How many connections each integration of the environment has, by unique key. */
export async function connectionCounts(db: Queryable, environmentId: number): Promise<Map<string, number>> {
  const { rows } = await db.query<{ key: string; n: string }>(
    `SELECT i.unique_key AS key, count(c.id) AS n FROM integrations i LEFT JOIN connections c ON c.integration_id = i.id
     WHERE i.environment_id = $1 GROUP BY i.unique_key`,
    [environmentId],
  );
  return new Map(rows.map((r) => [r.key, Number(r.n)]));
}
