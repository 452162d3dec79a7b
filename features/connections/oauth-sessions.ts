/**
 * @module features/connections/oauth-sessions — OAuth authorizations in flight. The id is the `state` parameter and
 * can be consumed exactly once, before it expires.
 */
import type { Queryable } from '../../lib/db/pool.js';

export const OAUTH_SESSION_TTL_MS = 15 * 60 * 1000;

export interface OAuthSession {
  id: string;
  environmentId: number;
  integrationId: number;
  connectSessionId: number | null;
  connectionId: string;
  connectionConfig: Record<string, unknown>;
  codeVerifierEnc: string | null;
  redirectUri: string;
  wsClientId: string | null;
}

interface Row {
  id: string;
  environment_id: number;
  integration_id: number;
  connect_session_id: number | null;
  connection_id: string;
  connection_config: Record<string, unknown>;
  code_verifier_enc: string | null;
  redirect_uri: string;
  ws_client_id: string | null;
}

export async function createOAuthSession(db: Queryable, s: OAuthSession, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO oauth_sessions (id, environment_id, integration_id, connect_session_id, connection_id, connection_config, code_verifier_enc, redirect_uri, ws_client_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      s.id,
      s.environmentId,
      s.integrationId,
      s.connectSessionId,
      s.connectionId,
      JSON.stringify(s.connectionConfig),
      s.codeVerifierEnc,
      s.redirectUri,
      s.wsClientId,
      new Date(now.getTime() + OAUTH_SESSION_TTL_MS),
    ],
  );
}

/** Marks the session used and returns it; null when unknown, expired or already used. */
export async function consumeOAuthSession(db: Queryable, id: string, now: Date): Promise<OAuthSession | null> {
  const { rows } = await db.query<Row>('UPDATE oauth_sessions SET consumed_at = $2 WHERE id = $1 AND consumed_at IS NULL AND expires_at > $2 RETURNING *', [
    id,
    now,
  ]);
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id,
    environmentId: r.environment_id,
    integrationId: r.integration_id,
    connectSessionId: r.connect_session_id,
    connectionId: r.connection_id,
    connectionConfig: r.connection_config,
    codeVerifierEnc: r.code_verifier_enc,
    redirectUri: r.redirect_uri,
    wsClientId: r.ws_client_id,
  };
}
