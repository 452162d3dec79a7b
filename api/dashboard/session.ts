/**
 * @module api/dashboard/session — dashboard sign-ins. Signing in with an environment's secret key
 * creates a session row (the cookie holds a random id, the table only its SHA-256, never the key)
 * bound to that environment, with an absolute expiry and a per-session CSRF token that every form
 * of the session carries. One session per environment: each has its own cookie.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { constantTimeEqual, randomToken, sha256Hex } from '../../lib/crypto.js';
import type { Environment } from '../../features/environments/store.js';
import type { Queryable } from '../../lib/db/pool.js';

export const SESSION_TTL_SECONDS = 12 * 60 * 60;
export const COOKIE_PATH = '/dashboard';
/** The double-submit token of the sign-in form (there is no session yet to hold one). */
export const PRE_SESSION_COOKIE = 'sy_dash_signin';
export const ENV_NAME = /^[a-z0-9_-]{1,64}$/;
const SESSION_ID = /^[0-9a-f]{64}$/;

export interface DashboardSession {
  idHash: string;
  environment: Environment;
  csrfToken: string;
  expiresAt: Date;
}

export function sessionCookieName(envName: string): string {
  return `sy_dash_${envName}`;
}

/** Cookies are Secure whenever the dashboard is reached over https (directly or per the public URL). */
export function secureCookies(c: Context, publicUrl: string): boolean {
  return new URL(c.req.url).protocol === 'https:' || publicUrl.startsWith('https:') || c.req.header('x-forwarded-proto') === 'https';
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
      WHERE s.id_hash = $1 AND e.name = $2 AND s.expires_at > now() AND s.secret_key_hash = e.secret_key_hash`,
    [idHash, envName],
  );
  const r = rows[0];
  if (!r || !constantTimeEqual(r.id_hash, idHash)) return null;
  return { idHash, environment: { id: r.env_id, uuid: r.uuid, name: r.name }, csrfToken: r.csrf_token, expiresAt: r.expires_at };
}

export async function deleteSession(db: Queryable, session: DashboardSession): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [session.idHash]);
}

export function csrfMatches(expected: string, given: unknown): boolean {
  return typeof given === 'string' && given.length > 0 && constantTimeEqual(given, expected);
}

export function setSessionCookie(c: Context, envName: string, id: string, secure: boolean): void {
  setCookie(c, sessionCookieName(envName), id, { path: COOKIE_PATH, httpOnly: true, sameSite: 'Strict', secure, maxAge: SESSION_TTL_SECONDS });
}

export function clearSessionCookie(c: Context, envName: string, secure: boolean): void {
  deleteCookie(c, sessionCookieName(envName), { path: COOKIE_PATH, httpOnly: true, sameSite: 'Strict', secure });
}

export function sessionCookie(c: Context, envName: string): string | undefined {
  return getCookie(c, sessionCookieName(envName));
}

/** The sign-in form's token: the cookie's value, set when missing. */
export function preSessionToken(c: Context, secure: boolean): string {
  const existing = getCookie(c, PRE_SESSION_COOKIE);
  if (existing && /^[0-9a-f]{64}$/.test(existing)) return existing;
  const token = randomToken(32);
  setCookie(c, PRE_SESSION_COOKIE, token, { path: COOKIE_PATH, httpOnly: true, sameSite: 'Strict', secure, maxAge: 60 * 60 });
  return token;
}
