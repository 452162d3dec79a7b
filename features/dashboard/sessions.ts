/**
 * @module features/dashboard/sessions — the dashboard_sessions rows. Signing in with an environment's
 * secret key creates one (the cookie holds a random id, the table only its SHA-256, never the key),
 * bound to that environment and its current key, with an absolute expiry and a per-session CSRF
 * token. The cookies themselves are api/dashboard/session.ts.
 */
import { constantTimeEqual, randomToken, sha256Hex } from '../../lib/crypto.js';
import type { Queryable } from '../../lib/db/pool.js';
import type { Environment } from '../environments/store.js';

export const SESSION_TTL_SECONDS = 12 * 60 * 60;
const SESSION_ID = /^[0-9a-f]{64}$/;
/** A session is live until it expires, is signed out (its row deleted) or its environment gets another key. */
const LIVE = 's.expires_at > now() AND s.secret_key_hash = e.secret_key_hash';

export interface DashboardSession {
  idHash: string;
  environment: Environment;
  csrfToken: string;
  expiresAt: Date;
}

export async function createSession(db: Queryable, env: Environment): Promise<{ id: string; expiresAt: Date }> {
  const id = randomToken(32);
  const { rows } = await db.query<{ expires_at: Date }>(
    `INSERT INTO dashboard_sessions (id_hash, environment_id, secret_key_hash, csrf_token, expires_at)
     SELECT $1, e.id, e.secret_key_hash, $2, now() + make_interval(secs => $3) FROM environments e WHERE e.id = $4
     RETURNING expires_at`,
    [sha256Hex(id), randomToken(32), SESSION_TTL_SECONDS, env.id],
  );
  if (!rows[0]) throw new Error(`environment ${env.name} vanished during sign-in`);
  // Expired rows of anyone: sign-in is rare enough to do the sweeping.
  await db.query('DELETE FROM dashboard_sessions WHERE expires_at < now()');
  return { id, expiresAt: rows[0].expires_at };
}

/** The live session of this id in the named environment: expired, revoked or re-keyed ones are null. */
export async function findSession(db: Queryable, id: string | undefined, envName: string): Promise<DashboardSession | null> {
  if (!id || !SESSION_ID.test(id)) return null;
  const idHash = sha256Hex(id);
  const { rows } = await db.query<{ id_hash: string; csrf_token: string; expires_at: Date; env_id: number; uuid: string; name: string }>(
    `SELECT s.id_hash, s.csrf_token, s.expires_at, e.id AS env_id, e.uuid, e.name
       FROM dashboard_sessions s JOIN environments e ON e.id = s.environment_id
      WHERE s.id_hash = $1 AND e.name = $2 AND ${LIVE}`,
    [idHash, envName],
  );
  const r = rows[0];
  if (!r || !constantTimeEqual(r.id_hash, idHash)) return null;
  return { idHash, environment: { id: r.env_id, uuid: r.uuid, name: r.name }, csrfToken: r.csrf_token, expiresAt: r.expires_at };
}

/** Whether a session found earlier is still live: a stream that outlasts its request asks again. */
export async function sessionIsLive(db: Queryable, session: DashboardSession): Promise<boolean> {
  const { rowCount } = await db.query(`SELECT 1 FROM dashboard_sessions s JOIN environments e ON e.id = s.environment_id WHERE s.id_hash = $1 AND ${LIVE}`, [
    session.idHash,
  ]);
  return rowCount === 1;
}

export async function deleteSession(db: Queryable, session: DashboardSession): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [session.idHash]);
}
