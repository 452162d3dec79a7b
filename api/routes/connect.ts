/**
 * @module api/routes/connect — connect sessions and the end user's flows: OAuth 2 authorization
 * code (popup, state, PKCE), API key and basic credentials.
 */
import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { checkConnectionConfig, saveConnection } from '../../features/connections/create.js';
import { authorizeUrl, exchangeCode, OAuthError, pkcePair, tokenMetadata } from '../../features/connections/oauth.js';
import { pluginFor } from '../../integrations/plugins.js';
import { endUserSchema, organizationSchema, tagsFrom, tagsSchema } from '../../features/connections/tags.js';
import { providerOf } from '../../features/connections/service.js';
import { rowAad } from '../../lib/crypto.js';
import { getConnectionByPk } from '../../features/connections/store.js';
import { CONNECT_SESSION_TTL_MS, createConnectSession, deleteConnectSession, type ConnectSession } from '../../features/connections/connect-sessions.js';
import type { Environment } from '../../features/environments/store.js';
import { getIntegration, getIntegrationById, type Integration } from '../../features/integrations/store.js';
import { consumeOAuthSession, createOAuthSession } from '../../features/connections/oauth-sessions.js';
import { BadRequest, NotFound, SwitchyardError, ValidationFailed, type FieldProblem } from '../../lib/errors.js';
import type { StoredCredentials } from '../../features/connections/credentials.js';
import type { AppDeps, AppEnv } from '../context.js';
import { requireSecretKey } from '../middleware/auth.js';
import { sessionForToken, sessionFromRequest } from '../middleware/connect-session.js';
import { describeRoute } from '../openapi.js';
import { body, parseQuery, query } from '../validate.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';
import { callbackPage } from './oauth-callback-page.js';

const integrationDefaults = z
  .object({
    user_scopes: z.string().max(2048).optional(),
    authorization_params: z.record(z.string(), z.string()).optional(),
    connection_config: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const sessionBody = z
  .object({
    end_user: endUserSchema.optional(),
    organization: organizationSchema.optional(),
    tags: tagsSchema.optional(),
    allowed_integrations: z.array(uniqueKeySchema).max(100).optional(),
    integrations_config_defaults: z.record(uniqueKeySchema, integrationDefaults).optional(),
    overrides: z.record(uniqueKeySchema, z.object({ docs_connect: z.url().optional() }).strict()).optional(),
    webhook_url_override: z.url({ protocol: /^https?$/ }).optional(),
  })
  .strict()
  .refine((b) => b.end_user !== undefined || b.tags !== undefined, { message: 'end_user is required unless tags are given', path: ['end_user'] });

const reconnectBody = z
  .object({
    connection_id: connectionIdSchema,
    integration_id: uniqueKeySchema,
    end_user: endUserSchema.optional(),
    organization: organizationSchema.optional(),
    tags: tagsSchema.optional(),
    integrations_config_defaults: z.record(uniqueKeySchema, integrationDefaults).optional(),
    webhook_url_override: z.url({ protocol: /^https?$/ }).optional(),
  })
  .strict();

const sessionResponse = z.object({ data: z.object({ token: z.string(), connect_link: z.string(), expires_at: z.string() }) });

const apiKeyBody = z.object({ apiKey: z.string().min(1).max(1024) }).strict();
const basicBody = z.object({ username: z.string().max(1024), password: z.string().max(1024) }).strict();
/** OAuth 2 client credentials of the end user's own client; none: the integration's. */
const clientCredentialsBody = z.object({ client_id: z.string().min(1).max(255).optional(), client_secret: z.string().min(1).max(2048).optional() }).strict();

/** Query of the frontend auth routes: the session token plus connection config in `params[...]`. */
const flowQuery = z
  .object({
    connect_session_token: z.string(),
    connection_id: connectionIdSchema.optional(),
    params: z.record(z.string(), z.string()).optional(),
    user_scope: z.string().max(2048).optional(),
    authorization_params: z.record(z.string(), z.string()).optional(),
    ws_client_id: z.string().max(128).optional(),
    credentials: z.record(z.string(), z.string()).optional(),
    hmac: z.string().optional(),
    public_key: z.string().optional(),
  })
  .strict();

async function checkIntegrationIds(deps: AppDeps, env: Environment, keys: { path: (string | number)[]; key: string }[]): Promise<void> {
  const problems: FieldProblem[] = [];
  for (const { path, key } of keys) {
    if (!(await getIntegration(deps.db, deps.box, env.id, key))) problems.push({ code: 'invalid_value', message: 'Integration does not exist', path });
  }
  if (problems.length) throw new ValidationFailed('invalid_body', problems);
}

function sessionOut(deps: AppDeps, token: string, session: ConnectSession) {
  return { data: { token, connect_link: `${deps.config.publicUrl}/connect-ui/?session_token=${token}`, expires_at: session.expiresAt.toISOString() } };
}

interface FlowTarget {
  environment: Environment;
  session: ConnectSession;
  integration: Integration;
  connectionId: string;
  connectionConfig: Record<string, unknown>;
}

/** Resolves and checks what an end user's flow is about, before anything is saved. */
async function flowTarget(deps: AppDeps, c: Context<AppEnv>, providerConfigKey: string): Promise<FlowTarget & { q: z.infer<typeof flowQuery> }> {
  const q = query(c, flowQuery);
  const { session, environment } = await sessionForToken(deps, q.connect_session_token);
  if (session.allowedIntegrations && !session.allowedIntegrations.includes(providerConfigKey)) {
    throw new BadRequest('integration_not_allowed', `Integration ${providerConfigKey} is not allowed by this connect session`);
  }
  let integration: Integration | null;
  let connectionId: string;
  if (session.reconnectConnectionPk) {
    const existing = await getConnectionByPk(deps.db, deps.box, session.reconnectConnectionPk);
    if (!existing) throw new BadRequest('invalid_connection', 'The connection this session reconnects no longer exists');
    integration = await getIntegrationById(deps.db, deps.box, existing.integrationId);
    if (integration?.uniqueKey !== providerConfigKey) throw new BadRequest('integration_not_allowed', 'This reconnect session is for another integration');
    connectionId = existing.connectionId;
  } else {
    if (q.connection_id !== undefined) throw new BadRequest('invalid_query_params', 'connection_id cannot be chosen with a connect session; one is generated');
    integration = await getIntegration(deps.db, deps.box, environment.id, providerConfigKey);
    connectionId = randomUUID();
  }
  if (!integration) throw new NotFound('unknown_provider_config', `Integration ${providerConfigKey} does not exist`);
  const defaults = session.integrationsConfigDefaults?.[providerConfigKey]?.connection_config ?? {};
  const connectionConfig: Record<string, unknown> = { ...defaults, ...q.params };
  delete connectionConfig.webhook_url;
  checkConnectionConfig(await providerOf(deps.db, environment.id, integration.provider), connectionConfig, deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS);
  return { environment, session, integration, connectionId, connectionConfig, q };
}

async function finishConnection(deps: AppDeps, t: FlowTarget, credentials: StoredCredentials) {
  const { connection, created } = await saveConnection(deps, {
    environment: t.environment,
    integration: t.integration,
    provider: await providerOf(deps.db, t.environment.id, t.integration.provider),
    connectionId: t.connectionId,
    credentials,
    connectionConfig: t.connectionConfig,
    tags: tagsFrom(t.session.endUser, t.session.tags),
    endUser: t.session.endUser ? { ...t.session.endUser, organization: t.session.endUser.organization ?? t.session.organization ?? null } : null,
    webhookUrlOverride: t.session.webhookUrlOverride,
  });
  await deps.lifecycle.connectionSaved(t.environment, connection, { created });
  return connection;
}

export function connectRoutes(deps: AppDeps) {
  const auth = requireSecretKey(deps);
  describeRoute({
    method: 'post',
    path: '/connect/sessions',
    summary: 'Create a connect session for an end user (30-minute token)',
    tag: 'connect',
    body: sessionBody,
    response: sessionResponse,
    status: 201,
  });
  describeRoute({
    method: 'post',
    path: '/connect/sessions/reconnect',
    summary: 'Create a session that re-authorizes an existing connection',
    tag: 'connect',
    body: reconnectBody,
    status: 201,
  });
  describeRoute({
    method: 'get',
    path: '/connect/session',
    summary: 'The current connect session (connect-session token)',
    tag: 'connect',
    auth: 'connect_session',
  });
  describeRoute({
    method: 'get',
    path: '/oauth/connect/:providerConfigKey',
    summary: 'Start the OAuth 2 flow (redirects to the provider)',
    tag: 'connect',
    auth: 'connect_session',
    query: flowQuery,
  });
  describeRoute({
    method: 'get',
    path: '/oauth/callback',
    summary: 'OAuth 2 callback: exchanges the code and reports to the opener',
    tag: 'connect',
    auth: 'none',
  });
  describeRoute({
    method: 'post',
    path: '/api-auth/api-key/:providerConfigKey',
    summary: 'Connect with an API key',
    tag: 'connect',
    auth: 'connect_session',
    query: flowQuery,
    body: apiKeyBody,
  });
  describeRoute({
    method: 'post',
    path: '/api-auth/basic/:providerConfigKey',
    summary: 'Connect with username and password',
    tag: 'connect',
    auth: 'connect_session',
    query: flowQuery,
    body: basicBody,
  });
  describeRoute({
    method: 'post',
    path: '/oauth2/auth/:providerConfigKey',
    summary: 'Connect with OAuth 2 client credentials (the token is fetched at once)',
    tag: 'connect',
    auth: 'connect_session',
    query: flowQuery,
    body: clientCredentialsBody,
  });
  describeRoute({
    method: 'post',
    path: '/auth/unauthenticated/:providerConfigKey',
    summary: 'Connect a provider that needs no credentials',
    tag: 'connect',
    auth: 'connect_session',
    query: flowQuery,
  });

  return new Hono<AppEnv>()
    .post('/connect/sessions', auth, async (c) => {
      const env = c.get('environment');
      const input = await body(c, sessionBody);
      await checkIntegrationIds(deps, env, [
        ...(input.allowed_integrations ?? []).map((key, i) => ({ key, path: ['allowed_integrations', i] })),
        ...Object.keys(input.integrations_config_defaults ?? {}).map((key) => ({ key, path: ['integrations_config_defaults', key] })),
      ]);
      const { token, session } = await createConnectSession(
        deps.db,
        {
          environmentId: env.id,
          endUser: input.end_user ?? null,
          organization: input.organization ?? null,
          tags: tagsFrom(input.end_user ? { ...input.end_user, organization: input.end_user.organization ?? input.organization } : null, input.tags),
          allowedIntegrations: input.allowed_integrations ?? null,
          integrationsConfigDefaults: input.integrations_config_defaults ?? null,
          webhookUrlOverride: input.webhook_url_override ?? null,
          reconnectConnectionPk: null,
        },
        deps.clock.now(),
      );
      return c.json(sessionOut(deps, token, session), 201);
    })
    .post('/connect/sessions/reconnect', auth, async (c) => {
      const env = c.get('environment');
      const input = await body(c, reconnectBody);
      const integration = await getIntegration(deps.db, deps.box, env.id, input.integration_id);
      if (!integration)
        throw new ValidationFailed('invalid_body', [{ code: 'invalid_value', message: 'Integration does not exist', path: ['integration_id'] }]);
      const { rows } = await deps.db.query<{ id: number }>('SELECT id FROM connections WHERE integration_id = $1 AND connection_id = $2', [
        integration.id,
        input.connection_id,
      ]);
      if (!rows[0]) throw new ValidationFailed('invalid_body', [{ code: 'invalid_value', message: 'Connection does not exist', path: ['connection_id'] }]);
      const { token, session } = await createConnectSession(
        deps.db,
        {
          environmentId: env.id,
          endUser: input.end_user ?? null,
          organization: input.organization ?? null,
          tags: tagsFrom(input.end_user ?? null, input.tags),
          allowedIntegrations: [integration.uniqueKey],
          integrationsConfigDefaults: input.integrations_config_defaults ?? null,
          webhookUrlOverride: input.webhook_url_override ?? null,
          reconnectConnectionPk: rows[0].id,
        },
        deps.clock.now(),
      );
      return c.json(sessionOut(deps, token, session), 201);
    })
    .get('/connect/session', async (c) => {
      const { session } = await sessionFromRequest(deps, c);
      return c.json({
        data: {
          endUser: session.endUser
            ? {
                id: session.endUser.id,
                display_name: session.endUser.display_name ?? null,
                email: session.endUser.email ?? null,
                tags: session.endUser.tags ?? null,
                organization: session.endUser.organization ?? session.organization ?? null,
              }
            : null,
          tags: session.tags,
          allowed_integrations: session.allowedIntegrations ?? undefined,
          integrations_config_defaults: session.integrationsConfigDefaults ?? undefined,
          isReconnecting: session.reconnectConnectionPk !== null,
          expires_at: session.expiresAt.toISOString(),
          connectUISettings: { theme: { light: { primary: '#2255cc' }, dark: { primary: '#7aa2ff' } }, showWatermark: false },
        },
      });
    })
    .delete('/connect/session', async (c) => {
      const { session } = await sessionFromRequest(deps, c);
      await deleteConnectSession(deps.db, session.id);
      return c.body(null, 204);
    })
    .post('/api-auth/api-key/:providerConfigKey', async (c) => {
      const target = await flowTarget(deps, c, c.req.param('providerConfigKey'));
      const input = await body(c, apiKeyBody);
      const connection = await finishConnection(deps, target, { type: 'API_KEY', apiKey: input.apiKey });
      return c.json({ connectionId: connection.connectionId, providerConfigKey: target.integration.uniqueKey });
    })
    .post('/api-auth/basic/:providerConfigKey', async (c) => {
      const target = await flowTarget(deps, c, c.req.param('providerConfigKey'));
      const input = await body(c, basicBody);
      const connection = await finishConnection(deps, target, { type: 'BASIC', username: input.username, password: input.password });
      return c.json({ connectionId: connection.connectionId, providerConfigKey: target.integration.uniqueKey });
    })
    .post('/oauth2/auth/:providerConfigKey', async (c) => {
      const target = await flowTarget(deps, c, c.req.param('providerConfigKey'));
      const input = await body(c, clientCredentialsBody);
      const connection = await finishConnection(deps, target, { type: 'OAUTH2_CC', ...input });
      return c.json({ connectionId: connection.connectionId, providerConfigKey: target.integration.uniqueKey });
    })
    .post('/auth/unauthenticated/:providerConfigKey', async (c) => {
      const target = await flowTarget(deps, c, c.req.param('providerConfigKey'));
      const connection = await finishConnection(deps, target, { type: 'NONE' });
      return c.json({ connectionId: connection.connectionId, providerConfigKey: target.integration.uniqueKey });
    })
    .get('/oauth/connect/:providerConfigKey', async (c) => {
      const pck = c.req.param('providerConfigKey');
      const wsClientId = typeof parseQuery(c.req.url).ws_client_id === 'string' ? (parseQuery(c.req.url).ws_client_id as string) : null;
      try {
        const target = await flowTarget(deps, c, pck);
        const provider = await providerOf(deps.db, target.environment.id, target.integration.provider);
        if (provider.authMode !== 'OAUTH2')
          throw new BadRequest('invalid_auth_mode', `${provider.displayName} does not use OAuth; use the ${provider.authMode} flow`);
        if (!target.integration.credentials)
          throw new BadRequest('missing_credentials', `Integration ${pck} has no OAuth client id and secret (its Authorization tab)`);
        const state = randomUUID();
        const pkce = provider.pkce ? pkcePair() : null;
        const redirectUri = `${deps.config.publicUrl}/oauth/callback`;
        const defaults = target.session.integrationsConfigDefaults?.[pck];
        await createOAuthSession(
          deps.db,
          {
            id: state,
            environmentId: target.environment.id,
            integrationId: target.integration.id,
            connectSessionId: target.session.id,
            connectionId: target.connectionId,
            connectionConfig: target.connectionConfig,
            codeVerifierEnc: pkce ? deps.box.encrypt(pkce.verifier, rowAad('oauth_sessions', 'code_verifier_enc', state)) : null,
            redirectUri,
            wsClientId,
          },
          deps.clock.now(),
        );
        return c.redirect(
          authorizeUrl({
            provider,
            integrationConfig: target.integration.integrationConfig,
            credentials: target.integration.credentials,
            redirectUri,
            state,
            codeChallenge: pkce?.challenge,
            userScopes: target.q.user_scope ?? defaults?.user_scopes,
            extraParams: { ...defaults?.authorization_params, ...target.q.authorization_params },
            connectionConfig: target.connectionConfig,
          }),
          302,
        );
      } catch (err) {
        const { type, message } = describeFailure(err);
        deps.authSockets.publish(wsClientId, { message_type: 'error', provider_config_key: pck, connection_id: '', error_type: type, error_desc: message });
        return c.html(callbackPage({ ok: false, errorType: type, message }), 400);
      }
    })
    .get('/oauth/callback', async (c) => {
      const q = parseQuery(c.req.url);
      const state = typeof q.state === 'string' ? q.state : '';
      const session = /^[0-9a-f-]{36}$/i.test(state) ? await consumeOAuthSession(deps.db, state, deps.clock.now()) : null;
      if (!session) {
        return c.html(
          callbackPage({
            ok: false,
            errorType: 'invalid_state',
            message: 'This authorization is unknown, expired or was already used. Start the connection again.',
          }),
          400,
        );
      }
      const integration = await getIntegrationById(deps.db, deps.box, session.integrationId);
      const pck = integration?.uniqueKey ?? '';
      const fail = (type: string, message: string) => {
        deps.authSockets.publish(session.wsClientId, {
          message_type: 'error',
          provider_config_key: pck,
          connection_id: session.connectionId,
          error_type: type,
          error_desc: message,
        });
        return c.html(callbackPage({ ok: false, errorType: type, message }), 400);
      };
      if (typeof q.error === 'string')
        return fail('provider_error', `The provider answered: ${typeof q.error_description === 'string' ? q.error_description : q.error}`);
      if (typeof q.code !== 'string' || !integration?.credentials) return fail('missing_code', 'The provider did not return an authorization code');
      try {
        const provider = await providerOf(deps.db, session.environmentId, integration.provider);
        const { rows } = await deps.db.query<{ name: string; uuid: string }>('SELECT name, uuid FROM environments WHERE id = $1', [session.environmentId]);
        const environment: Environment = { id: session.environmentId, name: rows[0]!.name, uuid: rows[0]!.uuid };
        const { credentials, raw } = await exchangeCode({
          http: deps.http,
          provider,
          integrationConfig: integration.integrationConfig,
          credentials: integration.credentials,
          code: q.code,
          redirectUri: session.redirectUri,
          codeVerifier: session.codeVerifierEnc
            ? deps.box.decrypt(session.codeVerifierEnc, rowAad('oauth_sessions', 'code_verifier_enc', session.id))
            : undefined,
          connectionConfig: session.connectionConfig,
          now: deps.clock.now(),
          context: { environmentId: session.environmentId, integration: integration.uniqueKey, connectionId: session.connectionId, kind: 'auth' },
        });
        const connectSession = session.connectSessionId ? await loadConnectSession(deps, session.connectSessionId) : null;
        const connection = await finishConnection(
          deps,
          {
            environment,
            session: connectSession ?? emptySession(session.environmentId),
            integration,
            connectionId: session.connectionId,
            connectionConfig: { ...session.connectionConfig, ...tokenMetadata(provider, raw) },
          },
          credentials,
        );
        // The provider's step after connecting (its plugin's afterConnect), before the end user is told it is done.
        await pluginFor(connection.provider)?.afterConnect?.(deps, connection);
        deps.authSockets.publish(session.wsClientId, {
          message_type: 'success',
          provider_config_key: pck,
          connection_id: connection.connectionId,
          is_pending: false,
        });
        return c.html(callbackPage({ ok: true, providerConfigKey: pck, connectionId: connection.connectionId }));
      } catch (err) {
        const { type, message } = describeFailure(err);
        return fail(type, message);
      }
    });
}

function describeFailure(err: unknown): { type: string; message: string } {
  if (err instanceof SwitchyardError || err instanceof OAuthError) return { type: err.code, message: err.message };
  return { type: 'unknown_error', message: 'The connection could not be completed' };
}

async function loadConnectSession(deps: AppDeps, id: number): Promise<ConnectSession | null> {
  const { rows } = await deps.db.query<{
    end_user: ConnectSession['endUser'];
    organization: ConnectSession['organization'];
    tags: Record<string, string>;
    webhook_url_override: string | null;
    environment_id: number;
    expires_at: Date;
  }>('SELECT * FROM connect_sessions WHERE id = $1', [id]);
  const r = rows[0];
  if (!r) return null;
  return {
    id,
    environmentId: r.environment_id,
    endUser: r.end_user,
    organization: r.organization,
    tags: r.tags,
    allowedIntegrations: null,
    integrationsConfigDefaults: null,
    webhookUrlOverride: r.webhook_url_override,
    reconnectConnectionPk: null,
    expiresAt: r.expires_at,
  };
}

function emptySession(environmentId: number): ConnectSession {
  return {
    id: 0,
    environmentId,
    endUser: null,
    organization: null,
    tags: {},
    allowedIntegrations: null,
    integrationsConfigDefaults: null,
    webhookUrlOverride: null,
    reconnectConnectionPk: null,
    expiresAt: new Date(Date.now() + CONNECT_SESSION_TTL_MS),
  };
}
