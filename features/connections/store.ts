/**
 * @module features/connections/store — connections with their credentials encrypted at rest. Each connection
 * keeps its own end-user copy.
 */
import { rowAad, type SecretBox } from '../../lib/crypto.js';
import type { StoredCredentials } from './credentials.js';
import type { Queryable } from '../../lib/db/pool.js';
import { pageQuery, Where } from '../../lib/db/where.js';
import { reserveRowId } from '../../lib/db/row-ids.js';

const credentialsAad = (pk: number) => rowAad('connections', 'credentials_enc', pk);

export interface EndUser {
  id: string;
  email?: string | null;
  display_name?: string | null;
  tags?: Record<string, string> | null;
  organization?: { id: string; display_name?: string | null } | null;
}

export interface ConnectionError {
  type: 'auth' | 'sync' | 'check' | 'on-event' | 'webhook';
  log_id: string;
  message?: string;
  at?: string;
  /** For `sync` errors: which sync failed (one error per sync). */
  sync?: string;
  /** For `on-event` errors: which event's scripts failed (one error per event). */
  event?: string;
}

export interface Connection {
  id: number;
  environmentId: number;
  integrationId: number;
  integrationKey: string;
  provider: string;
  connectionId: string;
  authMode: string;
  credentials: StoredCredentials;
  expiresAt: Date | null;
  connectionConfig: Record<string, unknown>;
  /**
   * The connectionConfig keys whose values the provider returned or the developer set (not typed by
   * the end user): the only ones third-party webhooks are routed by. Null: saved before this was tracked.
   */
  verifiedConfigKeys: string[] | null;
  metadata: Record<string, unknown> | null;
  tags: Record<string, string>;
  endUser: EndUser | null;
  webhookUrlOverride: string | null;
  status: string;
  errors: ConnectionError[];
  lastCheckAt: Date | null;
  lastFetchedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: number;
  environment_id: number;
  integration_id: number;
  unique_key: string;
  provider: string;
  connection_id: string;
  auth_mode: string;
  credentials_enc: string;
  expires_at: Date | null;
  connection_config: Record<string, unknown>;
  verified_config_keys: string[] | null;
  metadata: Record<string, unknown> | null;
  tags: Record<string, string>;
  end_user: EndUser | null;
  webhook_url_override: string | null;
  status: string;
  errors: ConnectionError[];
  last_check_at: Date | null;
  last_fetched_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `SELECT c.*, i.unique_key, i.provider FROM connections c JOIN integrations i ON i.id = c.integration_id`;

function fromRow(box: SecretBox, r: Row): Connection {
  return {
    id: r.id,
    environmentId: r.environment_id,
    integrationId: r.integration_id,
    integrationKey: r.unique_key,
    provider: r.provider,
    connectionId: r.connection_id,
    authMode: r.auth_mode,
    credentials: box.decryptJson<StoredCredentials>(r.credentials_enc, credentialsAad(r.id)),
    expiresAt: r.expires_at,
    connectionConfig: r.connection_config,
    verifiedConfigKeys: r.verified_config_keys,
    metadata: r.metadata,
    tags: r.tags,
    endUser: r.end_user,
    webhookUrlOverride: r.webhook_url_override,
    status: r.status,
    errors: r.errors,
    lastCheckAt: r.last_check_at,
    lastFetchedAt: r.last_fetched_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function getConnection(
  db: Queryable,
  box: SecretBox,
  environmentId: number,
  integrationKey: string,
  connectionId: string,
): Promise<Connection | null> {
  const { rows } = await db.query<Row>(`${SELECT} WHERE c.environment_id = $1 AND i.unique_key = $2 AND c.connection_id = $3`, [
    environmentId,
    integrationKey,
    connectionId,
  ]);
  return rows[0] ? fromRow(box, rows[0]) : null;
}

export async function getConnectionByPk(db: Queryable, box: SecretBox, id: number): Promise<Connection | null> {
  const { rows } = await db.query<Row>(`${SELECT} WHERE c.id = $1`, [id]);
  return rows[0] ? fromRow(box, rows[0]) : null;
}

/** The connections of an integration (by pk), or only those whose `connection_config[key]` is `value` (a provider's account id). */
export async function connectionsOfIntegration(
  db: Queryable,
  box: SecretBox,
  integrationId: number,
  where?: { configKey: string; value: string },
): Promise<Connection[]> {
  const { rows } = where
    ? await db.query<Row>(`${SELECT} WHERE c.integration_id = $1 AND c.connection_config->>$2 = $3 ORDER BY c.id`, [
        integrationId,
        where.configKey,
        where.value,
      ])
    : await db.query<Row>(`${SELECT} WHERE c.integration_id = $1 ORDER BY c.id`, [integrationId]);
  return rows.map((r) => fromRow(box, r));
}

/**
 * Merges fields the provider returned (a plugin's step after connecting) into a connection's
 * connection_config; their keys become verified (a connection of unknown provenance stays so).
 */
export async function mergeConnectionConfig(db: Queryable, pk: number, fields: Record<string, unknown>): Promise<void> {
  await db.query(
    `UPDATE connections SET connection_config = connection_config || $2::jsonb,
       verified_config_keys = CASE WHEN verified_config_keys IS NULL THEN NULL
         ELSE ARRAY(SELECT DISTINCT k FROM unnest(verified_config_keys || $3::text[]) AS k ORDER BY k) END,
       updated_at = now()
     WHERE id = $1`,
    [pk, JSON.stringify(fields), Object.keys(fields)],
  );
}

/**
 * Puts the connection's one `webhook` error (how third-party webhooks are routed to it), replacing the
 * previous one, or takes it off (null). Writes only when that changes anything.
 */
export async function setWebhookRoutingError(db: Queryable, pk: number, error: ConnectionError | null): Promise<void> {
  await db.query(
    `UPDATE connections SET
       errors = (SELECT COALESCE(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(errors) e WHERE e->>'type' <> 'webhook')
                || CASE WHEN $2::jsonb IS NULL THEN '[]'::jsonb ELSE jsonb_build_array($2::jsonb) END
     WHERE id = $1 AND CASE WHEN $2::jsonb IS NULL THEN errors @> '[{"type":"webhook"}]'::jsonb
                            ELSE NOT errors @> jsonb_build_array(jsonb_build_object('type', 'webhook', 'message', $2::jsonb->>'message')) END`,
    [pk, error ? JSON.stringify({ ...error, type: 'webhook' }) : null],
  );
}

export interface ConnectionFilters {
  connectionId?: string;
  search?: string;
  endUserId?: string;
  endUserOrganizationId?: string;
  integrationKeys?: string[];
  tags?: Record<string, string>;
  limit: number;
  page: number;
}

export async function listConnections(db: Queryable, box: SecretBox, environmentId: number, f: ConnectionFilters): Promise<Connection[]> {
  const where = new Where('c.environment_id = ?', environmentId);
  if (f.connectionId) where.and('c.connection_id = ?', f.connectionId);
  if (f.search)
    where.and(
      (n) => `(c.connection_id ILIKE ${n} OR c.end_user->>'id' ILIKE ${n} OR c.end_user->>'email' ILIKE ${n} OR c.end_user->>'display_name' ILIKE ${n})`,
      `%${f.search.replace(/[%_\\]/g, '\\$&')}%`,
    );
  if (f.endUserId) where.and((n) => `(c.end_user->>'id' = ${n} OR c.tags->>'end_user_id' = ${n})`, f.endUserId);
  if (f.endUserOrganizationId) where.and((n) => `(c.end_user->'organization'->>'id' = ${n} OR c.tags->>'organization_id' = ${n})`, f.endUserOrganizationId);
  if (f.integrationKeys?.length) where.and('i.unique_key = ANY(?)', f.integrationKeys);
  if (f.tags && Object.keys(f.tags).length) where.and('c.tags @> ?::jsonb', JSON.stringify(f.tags));
  const { rows } = await db.query<Row>(...pageQuery(SELECT, where, { orderBy: 'c.created_at, c.id', limit: f.limit, offset: f.page * f.limit }));
  return rows.map((r) => fromRow(box, r));
}

export interface NewConnection {
  environmentId: number;
  integrationId: number;
  connectionId: string;
  authMode: string;
  credentials: StoredCredentials;
  connectionConfig: Record<string, unknown>;
  /** Which connectionConfig keys the provider returned or the developer set (Connection.verifiedConfigKeys). */
  verifiedConfigKeys: string[];
  metadata?: Record<string, unknown> | null;
  tags: Record<string, string>;
  endUser: EndUser | null;
  webhookUrlOverride?: string | null;
}

function expiryOf(credentials: StoredCredentials): string | null {
  if (credentials.type === 'CUSTOM') {
    // The earlier of the installation token's and (when it can be renewed) the user token's.
    const dates = [credentials.app.expires_at, credentials.user?.refresh_token ? credentials.user.expires_at : undefined].filter(
      (d): d is string => typeof d === 'string',
    );
    return dates.sort((a, b) => Date.parse(a) - Date.parse(b))[0] ?? null;
  }
  const expiring =
    credentials.type === 'BILL' ||
    credentials.type === 'OAUTH2' ||
    credentials.type === 'OAUTH2_CC' ||
    credentials.type === 'TWO_STEP' ||
    credentials.type === 'JWT' ||
    credentials.type === 'APP';
  return expiring && typeof credentials.expires_at === 'string' ? credentials.expires_at : null;
}

/**
 * Inserts, or overrides an existing connection with the same id ("override"). The credentials are
 * sealed for the row they land in: the existing row's id, else a reserved one.
 */
export async function upsertConnection(db: Queryable, box: SecretBox, c: NewConnection): Promise<{ pk: number; created: boolean }> {
  const existing = await db.query<{ id: number }>('SELECT id FROM connections WHERE integration_id = $1 AND connection_id = $2', [
    c.integrationId,
    c.connectionId,
  ]);
  const pk = existing.rows[0]?.id ?? (await reserveRowId(db, 'connections'));
  const { rows } = await db.query<{ id: number; created: boolean }>(
    `INSERT INTO connections (environment_id, integration_id, connection_id, auth_mode, credentials_enc, expires_at, connection_config, metadata, tags, end_user, webhook_url_override, id, verified_config_keys)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (integration_id, connection_id) DO UPDATE SET
       auth_mode = EXCLUDED.auth_mode, credentials_enc = EXCLUDED.credentials_enc, expires_at = EXCLUDED.expires_at,
       connection_config = EXCLUDED.connection_config, verified_config_keys = EXCLUDED.verified_config_keys,
       metadata = COALESCE(EXCLUDED.metadata, connections.metadata),
       tags = CASE WHEN EXCLUDED.tags = '{}'::jsonb THEN connections.tags ELSE EXCLUDED.tags END,
       end_user = COALESCE(EXCLUDED.end_user, connections.end_user),
       webhook_url_override = COALESCE(EXCLUDED.webhook_url_override, connections.webhook_url_override),
       status = 'unknown', errors = '[]', updated_at = now()
     RETURNING id, (xmax = 0) AS created`,
    [
      c.environmentId,
      c.integrationId,
      c.connectionId,
      c.authMode,
      box.encryptJson(c.credentials, credentialsAad(pk)),
      expiryOf(c.credentials),
      JSON.stringify(c.connectionConfig),
      c.metadata ? JSON.stringify(c.metadata) : null,
      JSON.stringify(c.tags),
      c.endUser ? JSON.stringify(c.endUser) : null,
      c.webhookUrlOverride ?? null,
      pk,
      [...new Set(c.verifiedConfigKeys)].filter((k) => Object.hasOwn(c.connectionConfig, k)).sort(),
    ],
  );
  const landed = rows[0]!;
  // A concurrent create of the same connection won the insert: seal again for its row.
  if (landed.id !== pk) await saveCredentials(db, box, landed.id, c.credentials);
  return { pk: landed.id, created: landed.created };
}

export async function saveCredentials(db: Queryable, box: SecretBox, pk: number, credentials: StoredCredentials): Promise<void> {
  await db.query('UPDATE connections SET credentials_enc = $2, expires_at = $3, updated_at = now() WHERE id = $1', [
    pk,
    box.encryptJson(credentials, credentialsAad(pk)),
    expiryOf(credentials),
  ]);
}

export async function patchConnection(
  db: Queryable,
  pk: number,
  patch: { tags?: Record<string, string>; endUser?: EndUser | null; webhookUrlOverride?: string | null },
): Promise<void> {
  await db.query(
    `UPDATE connections SET
       tags = CASE WHEN $2::boolean THEN $3::jsonb ELSE tags END,
       end_user = CASE WHEN $4::boolean THEN $5::jsonb ELSE end_user END,
       webhook_url_override = CASE WHEN $6::boolean THEN $7 ELSE webhook_url_override END,
       updated_at = now()
     WHERE id = $1`,
    [
      pk,
      patch.tags !== undefined,
      JSON.stringify(patch.tags ?? {}),
      patch.endUser !== undefined,
      patch.endUser ? JSON.stringify(patch.endUser) : null,
      patch.webhookUrlOverride !== undefined,
      patch.webhookUrlOverride || null,
    ],
  );
}

export async function setMetadata(db: Queryable, pks: number[], metadata: Record<string, unknown>, merge: boolean): Promise<void> {
  await db.query(
    merge
      ? `UPDATE connections SET metadata = COALESCE(metadata, '{}'::jsonb) || $2::jsonb, updated_at = now() WHERE id = ANY($1)`
      : `UPDATE connections SET metadata = $2::jsonb, updated_at = now() WHERE id = ANY($1)`,
    [pks, JSON.stringify(metadata)],
  );
}

export async function markFetched(db: Queryable, pk: number): Promise<void> {
  await db.query('UPDATE connections SET last_fetched_at = now() WHERE id = $1', [pk]);
}

export async function recordCheck(db: Queryable, pk: number, ok: boolean, error: ConnectionError | null): Promise<void> {
  await db.query(
    `UPDATE connections SET status = $2, last_check_at = now(),
       errors = CASE WHEN $3::jsonb IS NULL THEN (SELECT COALESCE(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(errors) e WHERE e->>'type' NOT IN ('auth', 'check'))
                ELSE (SELECT COALESCE(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(errors) e WHERE e->>'type' <> $4) || jsonb_build_array($3::jsonb) END
     WHERE id = $1`,
    [pk, ok ? 'ok' : 'failing', error ? JSON.stringify(error) : null, error?.type ?? 'check'],
  );
}

/**
 * A failed sync run puts one `{type: 'sync'}` error per sync on the connection (replacing that
 * sync's previous one); its next successful run (`error` null) takes it off. Status is untouched.
 */
export async function setSyncError(db: Queryable, pk: number, syncName: string, error: ConnectionError | null): Promise<void> {
  await db.query(
    `UPDATE connections SET
       errors = (SELECT COALESCE(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(errors) e WHERE NOT (e->>'type' = 'sync' AND e->>'sync' = $2))
                || CASE WHEN $3::jsonb IS NULL THEN '[]'::jsonb ELSE jsonb_build_array($3::jsonb) END
     WHERE id = $1 AND (errors @> jsonb_build_array(jsonb_build_object('type', 'sync', 'sync', $2::text)) OR $3::jsonb IS NOT NULL)`,
    [pk, syncName, error ? JSON.stringify({ ...error, sync: syncName }) : null],
  );
}

/** An on-event script failed: one `{type: 'on-event'}` error per event, replacing the previous one. */
export async function setOnEventError(db: Queryable, pk: number, event: string, error: ConnectionError): Promise<void> {
  await db.query(
    `UPDATE connections SET
       errors = (SELECT COALESCE(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(errors) e WHERE NOT (e->>'type' = 'on-event' AND e->>'event' = $2))
                || jsonb_build_array($3::jsonb)
     WHERE id = $1`,
    [pk, event, JSON.stringify({ ...error, type: 'on-event', event })],
  );
}

export async function deleteConnection(db: Queryable, pk: number): Promise<void> {
  await db.query('DELETE FROM connections WHERE id = $1', [pk]);
}

/** The connection's own webhook URL, replacing the environment's (null when it has none or does not exist). */
export async function webhookUrlOverrideOf(db: Queryable, environmentId: number, integrationKey: string, connectionId: string): Promise<string | null> {
  const { rows } = await db.query<{ webhook_url_override: string | null }>(
    `SELECT c.webhook_url_override FROM connections c JOIN integrations i ON i.id = c.integration_id
      WHERE c.environment_id = $1 AND i.unique_key = $2 AND c.connection_id = $3`,
    [environmentId, integrationKey, connectionId],
  );
  return rows[0]?.webhook_url_override ?? null;
}

/** The row id of a connection, by its integration's unique key and its connection id; null when there is none. */
export async function findConnectionPk(db: Queryable, environmentId: number, integrationKey: string, connectionId: string): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT c.id FROM connections c JOIN integrations i ON i.id = c.integration_id
     WHERE c.environment_id = $1 AND i.environment_id = $1 AND i.unique_key = $2 AND c.connection_id = $3`,
    [environmentId, integrationKey, connectionId],
  );
  return rows[0]?.id ?? null;
}

/** The row id of a connection of an integration (by the integration's row id); null when there is none. */
export async function findConnectionPkOfIntegration(db: Queryable, integrationId: number, connectionId: string): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM connections WHERE integration_id = $1 AND connection_id = $2', [integrationId, connectionId]);
  return rows[0]?.id ?? null;
}

/** Sets the end user on every connection of the environment that has this end user (the pre-2025-09-08 behaviour). */
export async function setEndUserOfAllConnections(db: Queryable, environmentId: number, endUser: EndUser): Promise<void> {
  await db.query(`UPDATE connections SET end_user = $3::jsonb, updated_at = now() WHERE environment_id = $1 AND end_user->>'id' = $2`, [
    environmentId,
    endUser.id,
    JSON.stringify(endUser),
  ]);
}
