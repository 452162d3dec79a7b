/**
 * @module api/middleware/connect-session — authentication with a connect-session token (the end
 * user's browser), from `Authorization: Bearer` or `?connect_session_token=`.
 */
import type { Context } from 'hono';
import { CONNECT_SESSION_FORMAT, CONNECT_SESSION_PREFIX, findConnectSession, type ConnectSession } from '../../features/connections/connect-sessions.js';
import { environmentNameById, findEnvironmentByName, type Environment } from '../../features/environments/store.js';
import { Unauthorized } from '../../lib/errors.js';
import type { AppDeps, AppEnv } from '../context.js';
import { bearerToken, environmentForSecretKey } from './auth.js';

export async function sessionForToken(deps: AppDeps, token: string): Promise<{ session: ConnectSession; environment: Environment }> {
  if (!CONNECT_SESSION_FORMAT.test(token)) {
    throw new Unauthorized(
      'invalid_connect_session_token_format',
      `Authentication failed. The provided connect session token is not following correct format: ${CONNECT_SESSION_PREFIX}RANDOM`,
    );
  }
  const session = await findConnectSession(deps.db, token, deps.clock.now());
  if (!session)
    throw new Unauthorized(
      'unknown_connect_session_token',
      'Authentication failed. The provided connect session token does not match any account or has expired.',
    );
  const environment = await findEnvironmentByName(deps.db, (await environmentNameById(deps.db, session.environmentId))!);
  return { session, environment: environment! };
}

export async function sessionFromRequest(deps: AppDeps, c: Context<AppEnv>): Promise<{ session: ConnectSession; environment: Environment }> {
  const fromQuery = c.req.query('connect_session_token');
  if (fromQuery !== undefined) return sessionForToken(deps, fromQuery);
  return sessionForToken(deps, bearerToken(c.req.header('authorization')));
}

/** Either a secret key (full access) or a connect-session token (scoped to the session). */
export async function secretKeyOrSession(deps: AppDeps, c: Context<AppEnv>): Promise<{ environment: Environment; session: ConnectSession | null }> {
  const token = bearerToken(c.req.header('authorization'));
  if (token.startsWith(CONNECT_SESSION_PREFIX)) return sessionForToken(deps, token);
  return { environment: await environmentForSecretKey(deps, token, c.get('requiredScopes')), session: null };
}
