/**
 * @module features/agent-sessions/store — agent sessions: a token an AI agent uses on /mcp, limited
 * to some connections (and optionally some tools), expiring, revocable. The token is shown once;
 * only its SHA-256 is stored, as for secret keys and connect sessions.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { constantTimeEqual, sha256Hex } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';
import type { Environment } from '../environments/store.js';

export const AGENT_SESSION_PREFIX = 'switchyard_agent_session_';
export const AGENT_SESSION_FORMAT = /^switchyard_agent_session_[a-f0-9]{64}$/;
export const AGENT_SESSION_DEFAULT_TTL_S = 3600;

export interface AgentSessionConnection {
  providerConfigKey: string;
  connectionId: string;
  /**
   * The connection's row when the session was created: a connection deleted and created again
   * under the same id is another row, not the session's. Absent only on sessions created before
   * rows were bound whose connection was re-created since (migration 021), which reach nothing.
   */
  connectionPk?: number;
}

export interface AgentSession {
  id: string;
  environmentId: number;
  endUser: Record<string, unknown>;
  connections: AgentSessionConnection[];
  /** Tool names (`<provider_config_key>__<action>`) it may use; null: every tool of its connections. */
  tools: string[] | null;
  expiresAt: Date;
  revokedAt: Date | null;
  createdAt: Date;
}

interface Row {
  id: string;
  environment_id: number;
  token_hash: string;
  end_user: Record<string, unknown>;
  connections: AgentSessionConnection[];
  tools: string[] | null;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

function fromRow(r: Row): AgentSession {
  return {
    id: r.id,
    environmentId: r.environment_id,
    endUser: r.end_user,
    connections: r.connections,
    tools: r.tools,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    createdAt: r.created_at,
  };
}

export type NewAgentSession = Pick<AgentSession, 'environmentId' | 'endUser' | 'connections' | 'tools' | 'expiresAt'>;

export async function createAgentSession(db: Queryable, s: NewAgentSession): Promise<{ token: string; session: AgentSession }> {
  const token = AGENT_SESSION_PREFIX + randomBytes(32).toString('hex');
  const { rows } = await db.query<Row>(
    `INSERT INTO agent_sessions (id, environment_id, token_hash, end_user, connections, tools, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [
      randomUUID(),
      s.environmentId,
      sha256Hex(token),
      JSON.stringify(s.endUser),
      JSON.stringify(s.connections),
      s.tools ? JSON.stringify(s.tools) : null,
      s.expiresAt,
    ],
  );
  return { token, session: fromRow(rows[0]!) };
}

/** Why a token does not authenticate, or its session. */
export type AgentSessionLookup = { session: AgentSession; environment: Environment } | { refused: 'unknown' | 'expired' | 'revoked' };

export async function findAgentSession(db: Queryable, token: string, now: Date): Promise<AgentSessionLookup> {
  if (!AGENT_SESSION_FORMAT.test(token)) return { refused: 'unknown' };
  const hash = sha256Hex(token);
  const { rows } = await db.query<Row & { env_uuid: string; env_name: string }>(
    `SELECT s.*, e.uuid AS env_uuid, e.name AS env_name FROM agent_sessions s JOIN environments e ON e.id = s.environment_id WHERE s.token_hash = $1`,
    [hash],
  );
  const row = rows[0];
  if (!row || !constantTimeEqual(row.token_hash, hash)) return { refused: 'unknown' };
  if (row.revoked_at) return { refused: 'revoked' };
  if (row.expires_at.getTime() <= now.getTime()) return { refused: 'expired' };
  return { session: fromRow(row), environment: { id: row.environment_id, uuid: row.env_uuid, name: row.env_name } };
}

/** Revokes a session of the environment; false when it has none with this id. */
export async function revokeAgentSession(db: Queryable, environmentId: number, id: string): Promise<boolean> {
  return (await endAgentSession(db, environmentId, id)) !== null;
}

/**
 * Ends a session of the environment (Nango's DELETE /sessions/:id): when it ended and why, also for
 * one that had already ended; null when the environment has no session with this id.
 */
export async function endAgentSession(db: Queryable, environmentId: number, id: string): Promise<{ endedAt: Date; reason: 'terminated' | 'expired' } | null> {
  const { rows } = await db.query<{ revoked_at: Date; expires_at: Date }>(
    `UPDATE agent_sessions SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND environment_id = $2 RETURNING revoked_at, expires_at`,
    [id, environmentId],
  );
  const row = rows[0];
  if (!row) return null;
  return row.expires_at.getTime() <= row.revoked_at.getTime()
    ? { endedAt: row.expires_at, reason: 'expired' }
    : { endedAt: row.revoked_at, reason: 'terminated' };
}
