/**
 * @module api/middleware/authenticate — the middleware of every auth kind a route declares. The
 * route declaration (api/route.ts) attaches it from `auth`; no handler authenticates. Each sets
 * what it proved on the context: `environment`, and `connectSession`, `agentSession` or
 * `providerWebhook` for the kinds that have one.
 */
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { AGENT_SESSION_PREFIX, findAgentSession } from '../../features/agent-sessions/store.js';
import { CONNECT_SESSION_PREFIX } from '../../features/connections/connect-sessions.js';
import { Unauthorized } from '../../lib/errors.js';
import { annotate } from '../../lib/otel/attributes.js';
import type { AppDeps, AppEnv } from '../context.js';
import { verifyProviderWebhook } from '../provider-webhooks.js';
import { params } from '../validate.js';
import { bearerToken, environmentForSecretKey, requireSecretKey } from './auth.js';
import { sessionForToken, sessionFromRequest } from './connect-session.js';

/** How a caller proves who it is. */
export const AUTH_KINDS = [
  'secret_key',
  'secret_key_or_connect_session',
  'secret_key_or_agent_session',
  'agent_session',
  'connect_session',
  'webhook_secret',
  'none',
] as const;
export type Auth = (typeof AUTH_KINDS)[number];

/** The end user's connect session: `?connect_session_token=` (Nango's clients, the connect flows) or `Authorization: Bearer`. */
const connectSession =
  (deps: AppDeps): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const { session, environment } = await sessionFromRequest(deps, c);
    c.set('connectSession', session);
    c.set('environment', environment);
    await next();
  };

/** A secret key (full access) or a connect session (scoped to it): the query's token when there is no Authorization header. */
const secretKeyOrConnectSession =
  (deps: AppDeps): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const fromQuery = c.req.header('authorization') === undefined ? c.req.query('connect_session_token') || undefined : undefined;
    const token = fromQuery ?? bearerToken(c.req.header('authorization'));
    if (fromQuery !== undefined || token.startsWith(CONNECT_SESSION_PREFIX)) {
      const { session, environment } = await sessionForToken(deps, token);
      c.set('connectSession', session);
      c.set('environment', environment);
    } else {
      c.set('connectSession', null);
      c.set('environment', await environmentForSecretKey(deps, token, c.get('requiredScopes')));
    }
    await next();
  };

/** The live agent session of a token; 401 naming why when there is none. */
async function liveAgentSession(deps: AppDeps, token: string) {
  const found = await findAgentSession(deps.db, token, deps.clock.now());
  if ('refused' in found) {
    const why = { unknown: 'unknown', expired: 'has expired', revoked: 'was revoked' }[found.refused];
    throw new Unauthorized(`agent_session_${found.refused}`, `Authentication failed. The agent session ${why}.`);
  }
  annotate({ environment: found.environment.name });
  return found;
}

/** An agent session's token only (`/session/:id/mcp`): which session the path names is the handler's to check. */
const agentSession =
  (deps: AppDeps): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    c.set('agentSession', await liveAgentSession(deps, bearerToken(c.req.header('authorization'))));
    await next();
  };

/** A secret key, or an agent session (`/mcp`): which connections the session may use is the handler's to check. */
const secretKeyOrAgentSession =
  (deps: AppDeps): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const token = bearerToken(c.req.header('authorization'));
    if (token.startsWith(AGENT_SESSION_PREFIX)) {
      c.set('agentSession', await liveAgentSession(deps, token));
    } else {
      const env = await environmentForSecretKey(deps, token, c.get('requiredScopes'));
      c.set('agentSession', null);
      c.set('environment', env);
      annotate({ environment: env.name });
    }
    await next();
  };

const webhookPath = z.object({ environmentUuid: z.uuid(), providerConfigKey: z.string().min(1).max(255), token: z.string().max(255).optional() });

/** A third party's webhook, proven by its provider's signature or the integration's secret (a signature header or the URL's token). */
const webhookSecret =
  (deps: AppDeps): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const { environmentUuid, providerConfigKey, token } = params(c, webhookPath);
    c.set(
      'providerWebhook',
      await verifyProviderWebhook(deps, { environmentUuid, providerConfigKey, token, header: (name) => c.req.header(name), body: () => c.req.arrayBuffer() }),
    );
    await next();
  };

const MIDDLEWARE: Record<Auth, ((deps: AppDeps) => MiddlewareHandler<AppEnv>) | null> = {
  secret_key: requireSecretKey,
  secret_key_or_connect_session: secretKeyOrConnectSession,
  secret_key_or_agent_session: secretKeyOrAgentSession,
  agent_session: agentSession,
  connect_session: connectSession,
  webhook_secret: webhookSecret,
  none: null,
};

/** The middleware of an auth kind (none for `none`). */
export function authenticate(kind: Auth, deps: AppDeps): MiddlewareHandler<AppEnv> | null {
  return MIDDLEWARE[kind]?.(deps) ?? null;
}
