/**
 * @module api/middleware/auth — bearer secret-key authentication. A secret key is a UUID v4 and
 * selects one environment.
 */
import type { MiddlewareHandler } from 'hono';
import { UUID_V4 } from '../../lib/crypto.js';
import type { Environment } from '../../features/environments/store.js';
import { Unauthorized } from '../../lib/errors.js';
import type { AppDeps, AppEnv } from '../context.js';
import { annotate } from '../../lib/otel/attributes.js';

export function bearerToken(header: string | undefined): string {
  if (!header) throw new Unauthorized('missing_auth_header', 'Authentication failed. The request is missing the Authorization header.');
  const token = /^Bearer\s+(.*)$/i.exec(header.trim())?.[1]?.trim();
  if (!token) throw new Unauthorized('malformed_auth_header', 'Authentication failed. The Authorization header is malformed.');
  return token;
}

export async function environmentForSecretKey(deps: Pick<AppDeps, 'lookups'>, token: string): Promise<Environment> {
  if (!UUID_V4.test(token)) throw new Unauthorized('invalid_secret_key_format', 'Authentication failed. The provided secret key is not a UUID v4.');
  const env = await deps.lookups.environmentBySecretKey(token);
  if (!env) throw new Unauthorized('unknown_account', 'Authentication failed. The provided authorization header does not match any account.');
  return env;
}

export function requireSecretKey(deps: Pick<AppDeps, 'lookups'>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const env = await environmentForSecretKey(deps, bearerToken(c.req.header('authorization')));
    c.set('environment', env);
    annotate({ environment: env.name }); // the request's span (when tracing), inherited by its children
    await next();
  };
}
