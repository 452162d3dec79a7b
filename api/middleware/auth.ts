/**
 * @module api/middleware/auth — bearer secret-key authentication. A secret key is a UUID v4 and
 * selects one environment: its default secret key (full access) or one of its API keys, which
 * must hold a scope the route asks for (api/route.ts `scope`), else 403 naming it.
 */
import type { MiddlewareHandler } from 'hono';
import { UUID_V4 } from '../../lib/crypto.js';
import type { Environment } from '../../features/environments/store.js';
import type { KeyHolder } from '../../features/environments/keys.js';
import { touchApiKey } from '../../features/environments/api-keys.js';
import { FULL_ENVIRONMENT_ACCESS, grants } from '../../features/environments/scopes.js';
import { Forbidden, Unauthorized } from '../../lib/errors.js';
import type { AppDeps, AppEnv } from '../context.js';
import { annotate } from '../../lib/otel/attributes.js';

/** An API key's use is written at most this often per key and process. */
const TOUCH_EVERY_MS = 60_000;
const touched = new Map<number, number>();

export function bearerToken(header: string | undefined): string {
  if (!header) throw new Unauthorized('missing_auth_header', 'Authentication failed. The request is missing the Authorization header.');
  const token = /^Bearer\s+(.*)$/i.exec(header.trim())?.[1]?.trim();
  if (!token) throw new Unauthorized('malformed_auth_header', 'Authentication failed. The Authorization header is malformed.');
  return token;
}

/** 403 naming the scope unless `granted` holds one of `required`. */
export function assertGranted(granted: readonly string[], required: readonly string[]): void {
  // None required: any key of the environment (Nango's routes without a scope, e.g. GET /providers).
  if (required.length === 0 || required.some((scope) => grants(granted, scope))) return;
  const named = required.length === 1 ? required[0] : `one of: ${required.join(' or ')}`;
  throw new Forbidden('forbidden', `Insufficient scope. Required: ${named}`, { required_scopes: required });
}

/** Who a secret key is, when it holds one of `required` (a route's: `c.get('requiredScopes')`, set by api/route.ts). */
export async function keyHolderForToken(
  deps: Pick<AppDeps, 'lookups' | 'db' | 'log'>,
  token: string,
  required: readonly string[] = [FULL_ENVIRONMENT_ACCESS],
): Promise<KeyHolder> {
  if (!UUID_V4.test(token)) throw new Unauthorized('invalid_secret_key_format', 'Authentication failed. The provided secret key is not a UUID v4.');
  const holder = await deps.lookups.keyHolder(token);
  if (!holder) throw new Unauthorized('unknown_account', 'Authentication failed. The provided authorization header does not match any account.');
  assertGranted(holder.scopes, required);
  if (holder.apiKeyId !== null) noteUse(deps, holder.apiKeyId);
  return holder;
}

export async function environmentForSecretKey(
  deps: Pick<AppDeps, 'lookups' | 'db' | 'log'>,
  token: string,
  required: readonly string[] = [FULL_ENVIRONMENT_ACCESS],
): Promise<Environment> {
  return (await keyHolderForToken(deps, token, required)).environment;
}

function noteUse(deps: Pick<AppDeps, 'db' | 'log'>, keyId: number): void {
  const now = Date.now();
  if (now - (touched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
  touched.set(keyId, now);
  touchApiKey(deps.db, keyId).catch((err: unknown) => deps.log.warn({ err, keyId }, 'could not record an API key use'));
}

export function requireSecretKey(deps: Pick<AppDeps, 'lookups' | 'db' | 'log'>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const holder = await keyHolderForToken(deps, bearerToken(c.req.header('authorization')), c.get('requiredScopes'));
    const env = holder.environment;
    c.set('environment', env);
    c.set('grantedScopes', holder.scopes);
    annotate({ environment: env.name }); // the request's span (when tracing), inherited by its children
    await next();
  };
}
