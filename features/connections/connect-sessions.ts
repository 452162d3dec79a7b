/**
 * @module features/connections/connect-sessions — short-lived sessions that let an end user's browser create a
 * connection. The token is shown once; only its hash is stored.
 */
import { randomBytes } from 'node:crypto';
import { constantTimeEqual, rowAad, sha256Hex, type SecretBox } from '../../lib/crypto.js';
import type { EndUser } from './store.js';
import type { Queryable } from '../../lib/db/pool.js';

export const CONNECT_SESSION_PREFIX = 'nango_connect_session_';
export const CONNECT_SESSION_FORMAT = /^nango_connect_session_[a-f0-9]{64}$/;
export const CONNECT_SESSION_TTL_MS = 30 * 60 * 1000;

export interface IntegrationDefaults {
  user_scopes?: string;
  authorization_params?: Record<string, string>;
  connection_config?: Record<string, unknown>;
}

export interface ConnectSession {
  id: number;
  environmentId: number;
  endUser: EndUser | null;
  organization: { id: string; display_name?: string | null } | null;
  tags: Record<string, string>;
  allowedIntegrations: string[] | null;
  integrationsConfigDefaults: Record<string, IntegrationDefaults> | null;
  webhookUrlOverride: string | null;
  reconnectConnectionPk: number | null;
  /** Nango's `overrides`: per integration, the docs link the connect flow shows. */
  overrides: Record<string, { docs_connect?: string }> | null;
  /** The OAuth client secrets the session overrides, by integration key, sealed (clientSecretOverrides reads them). */
  clientSecretOverridesEnc: string | null;
  expiresAt: Date;
}

interface Row {
  id: number;
  environment_id: number;
  token_hash: string;
  end_user: EndUser | null;
  organization: ConnectSession['organization'];
  tags: Record<string, string>;
  allowed_integrations: string[] | null;
  integrations_config_defaults: Record<string, IntegrationDefaults> | null;
  webhook_url_override: string | null;
  reconnect_connection_id: number | null;
  overrides: ConnectSession['overrides'];
  client_secret_overrides_enc: string | null;
  expires_at: Date;
}

function fromRow(r: Row): ConnectSession {
  return {
    id: r.id,
    environmentId: r.environment_id,
    endUser: r.end_user,
    organization: r.organization,
    tags: r.tags,
    allowedIntegrations: r.allowed_integrations,
    integrationsConfigDefaults: r.integrations_config_defaults,
    webhookUrlOverride: r.webhook_url_override,
    reconnectConnectionPk: r.reconnect_connection_id,
    overrides: r.overrides,
    clientSecretOverridesEnc: r.client_secret_overrides_enc,
    expiresAt: r.expires_at,
  };
}

export type NewConnectSession = Omit<ConnectSession, 'id' | 'expiresAt' | 'clientSecretOverridesEnc'> & {
  /** By integration key; sealed with the row's id once it has one. */
  clientSecretOverrides: Record<string, string> | null;
};

const secretsAad = (id: number) => rowAad('connect_sessions', 'client_secret_overrides_enc', id);

export async function createConnectSession(
  db: Queryable,
  box: SecretBox,
  s: NewConnectSession,
  now: Date,
): Promise<{ token: string; session: ConnectSession }> {
  const token = CONNECT_SESSION_PREFIX + randomBytes(32).toString('hex');
  const { rows } = await db.query<Row>(
    `INSERT INTO connect_sessions (environment_id, token_hash, end_user, organization, tags, allowed_integrations, integrations_config_defaults, webhook_url_override, reconnect_connection_id, overrides, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [
      s.environmentId,
      sha256Hex(token),
      s.endUser ? JSON.stringify(s.endUser) : null,
      s.organization ? JSON.stringify(s.organization) : null,
      JSON.stringify(s.tags),
      s.allowedIntegrations,
      s.integrationsConfigDefaults ? JSON.stringify(s.integrationsConfigDefaults) : null,
      s.webhookUrlOverride,
      s.reconnectConnectionPk,
      s.overrides ? JSON.stringify(s.overrides) : null,
      new Date(now.getTime() + CONNECT_SESSION_TTL_MS),
    ],
  );
  const row = rows[0]!;
  if (s.clientSecretOverrides && Object.keys(s.clientSecretOverrides).length) {
    row.client_secret_overrides_enc = box.encrypt(JSON.stringify(s.clientSecretOverrides), secretsAad(row.id));
    await db.query('UPDATE connect_sessions SET client_secret_overrides_enc = $2 WHERE id = $1', [row.id, row.client_secret_overrides_enc]);
  }
  return { token, session: fromRow(row) };
}

/** The OAuth client secrets a session overrides, by integration key (none: {}). */
export function clientSecretOverrides(box: SecretBox, session: ConnectSession): Record<string, string> {
  if (!session.clientSecretOverridesEnc) return {};
  return JSON.parse(box.decrypt(session.clientSecretOverridesEnc, secretsAad(session.id))) as Record<string, string>;
}

/** The session for a token, or null when unknown or expired. */
export async function findConnectSession(db: Queryable, token: string, now: Date): Promise<ConnectSession | null> {
  const hash = sha256Hex(token);
  const { rows } = await db.query<Row>('SELECT * FROM connect_sessions WHERE token_hash = $1', [hash]);
  const row = rows[0];
  if (!row || !constantTimeEqual(row.token_hash, hash) || row.expires_at.getTime() <= now.getTime()) return null;
  return fromRow(row);
}

export async function deleteConnectSession(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM connect_sessions WHERE id = $1', [id]);
}

/** A session by its row id, expired or not; null when deleted. */
export async function getConnectSessionById(db: Queryable, id: number): Promise<ConnectSession | null> {
  const { rows } = await db.query<Row>('SELECT * FROM connect_sessions WHERE id = $1', [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}
