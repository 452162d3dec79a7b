/**
 * @module api/dashboard/session — dashboard sign-ins. Signing in with an environment's secret key
 * creates a session row (the cookie holds a random id, the table only its SHA-256, never the key)
 * bound to that environment, with an absolute expiry and a per-session CSRF token that every form
 * of the session carries. One session per environment: each has its own cookie. The rows are
 * features/dashboard/sessions.ts; this module holds the cookies and the CSRF check.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { constantTimeEqual, randomToken } from '../../lib/crypto.js';
import { SESSION_TTL_SECONDS } from '../../features/dashboard/sessions.js';

export const COOKIE_PATH = '/dashboard';
/** The double-submit token of the sign-in form (there is no session yet to hold one). */
export const PRE_SESSION_COOKIE = 'sy_dash_signin';
export const ENV_NAME = /^[a-z0-9_-]{1,255}$/;

export function sessionCookieName(envName: string): string {
  return `sy_dash_${envName}`;
}

/** Cookies are Secure whenever the dashboard is reached over https (directly or per the public URL). */
export function secureCookies(c: Context, publicUrl: string): boolean {
  return new URL(c.req.url).protocol === 'https:' || publicUrl.startsWith('https:') || c.req.header('x-forwarded-proto') === 'https';
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
