/**
 * @module api/dashboard/context — what the dashboard's signed-in handlers reach: the session, the
 * (CSRF-checked) form, the page context, and the fixed notices shown after a redirect.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../context.js';
import type { Notice, PageContext } from './layout.js';
import type { DashboardSession } from '../../features/dashboard/sessions.js';

export type FormValue = string | File | (string | File)[];

export interface DashEnv {
  Variables: AppEnv['Variables'] & {
    session: DashboardSession;
    form: Record<string, FormValue>;
    page: PageContext;
  };
}

export type DashContext = Context<DashEnv>;

/** The first string value of a form field, trimmed ('' when absent). */
export function field(c: DashContext, name: string): string {
  const v = c.get('form')[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first.trim() : '';
}

/** Every string value of a repeated form field (checkbox groups). */
export function fields(c: DashContext, name: string): string[] {
  const v = c.get('form')[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string');
}

/** Notices after a redirect are looked up by code, so a link cannot make the dashboard say anything else. */
const NOTICES: Record<string, string> = {
  'integration-created': 'Integration created.',
  'provider-created': 'Provider created.',
  'provider-created-with-warnings': 'Provider created. Some keys are unknown to Switchyard: they are kept but not used.',
  'provider-deleted': 'Provider deleted.',
  'credentials-saved': 'Credentials saved.',
  'endpoints-saved': 'Endpoints saved.',
  'sync-paused': 'Sync paused.',
  'sync-started': 'Sync started; a run was requested.',
  'sync-triggered': 'Run requested.',
  'frequency-saved': 'Frequency saved.',
  'settings-saved': 'Webhook settings saved.',
  'key-rotated': 'Signing key rotated. The previous key keeps signing for 24 hours.',
  'webhook-secret-rotated': 'Webhook secret rotated. Webhooks proven with the previous secret are refused from now on.',
  replayed: 'Delivery replayed as a new delivery.',
  'signed-out': 'Signed out.',
};

export function noticeFrom(c: Context): Notice | null {
  const code = c.req.query('notice');
  const text = code ? NOTICES[code] : undefined;
  return text ? { kind: 'ok', text } : null;
}

export function redirectWith(c: Context, path: string, notice: keyof typeof NOTICES | string, hash = ''): Response {
  const sep = path.includes('?') ? '&' : '?';
  return c.redirect(`${path}${sep}notice=${encodeURIComponent(notice)}${hash}`, 303);
}

/** A user-facing message for an error a form caused. */
export function messageOf(err: unknown): string {
  if (err && typeof err === 'object' && 'errors' in err && Array.isArray((err as { errors: unknown }).errors)) {
    const problems = (err as { errors: { message: string; path: (string | number)[] }[] }).errors;
    if (problems.length) return problems.map((p) => (p.path.length ? `${p.path.join('.')}: ${p.message}` : p.message)).join('; ');
  }
  return err instanceof Error ? err.message : String(err);
}
