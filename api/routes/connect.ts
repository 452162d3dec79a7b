/**
 * @module api/routes/connect — connect sessions and the end user's flows: OAuth 2 authorization
 * code (popup, state, PKCE), OAuth 1.0a (request token, authorization, verifier), API key, basic,
 * client, TWO_STEP, TBA, SIGNATURE and BILL credentials; a GitHub App's installation (APP, CUSTOM).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { z } from 'zod';
import { saveConnection, verifiedConfigKeys } from '../../features/connections/create.js';
import { authorizeUrl, exchangeCode, OAuthError, pkcePair } from '../../features/connections/oauth.js';
import { authorizationClient, callbackClient } from '../../features/connections/mcp.js';
import {
  CLIENT_ID_OVERRIDE,
  CLIENT_SECRET_OVERRIDE,
  overriddenClient,
  SCOPES_OVERRIDE,
  sessionClientOverride,
  sessionScopesOverride,
  withoutClientOverrides,
  withoutClientSecrets,
} from '../../features/connections/client-override.js';
import { accessToken, authorizationUrl, requestToken, type RequestToken } from '../../features/connections/oauth1.js';
import { constantTimeEqual } from '../../lib/crypto.js';
import { pluginFor } from '../../integrations/plugins.js';
import { authorizationCodeModes, linkUrl } from '../../features/providers/definition.js';
import { endUserSchema, organizationSchema, tagsFrom, tagsSchema } from '../../features/connections/tags.js';
import { endpoints as endpointsOfConfig, endpointsFor, providerOf, type Endpoints } from '../../features/connections/target.js';
import { configAfterAuthorization } from '../../features/connections/post-authorization.js';
import { withConfigDefaults } from '../../features/providers/connection-config.js';
import { rowAad } from '../../lib/crypto.js';
import { findConnectionPkOfIntegration, getConnectionByPk } from '../../features/connections/store.js';
import {
  CONNECT_SESSION_TTL_MS,
  createConnectSession,
  deleteConnectSession,
  getConnectSessionById,
  type ConnectSession,
  type NewConnectSession,
} from '../../features/connections/connect-sessions.js';
import { environmentNameById, findEnvironmentByName, type Environment } from '../../features/environments/store.js';
import { getIntegrationById, type Integration } from '../../features/integrations/store.js';
import { consumeOAuthSession, createOAuthSession } from '../../features/connections/oauth-sessions.js';
import { BadRequest, NotFound, SwitchyardError, ValidationFailed, type FieldProblem } from '../../lib/errors.js';
import { billCredentials, githubAppKey, oauth2CcCredentials, type StoredCredentials } from '../../features/connections/credentials.js';
import { appAndUserCredentials } from '../../features/connections/github-app.js';
import type { AppDeps, AppEnv } from '../context.js';
import { defineRoute, html, redirect } from '../route.js';
import { body, parseQuery, query } from '../validate.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';
import { callbackPage } from './oauth-callback-page.js';

const integrationDefaults = z
  .object({
    user_scopes: z.string().max(2048).optional(),
    authorization_params: z.record(z.string(), z.string()).optional(),
    connection_config: z
      .object({
        [SCOPES_OVERRIDE]: z
          .string()
          .max(2048)
          .regex(/^[^\s,]+(,[^\s,]+)*$/, 'comma-separated scopes')
          .optional()
          .describe('The scopes the OAuth flow asks for instead of the integration’s (comma-separated)'),
        [CLIENT_ID_OVERRIDE]: z.string().min(1).max(255).optional().describe('The OAuth client id the flow and the connection’s refreshes use'),
        [CLIENT_SECRET_OVERRIDE]: z
          .string()
          .min(1)
          .max(2048)
          .optional()
          .describe('Its secret: kept encrypted, never returned (GET /connect/session leaves it out)'),
      })
      .catchall(z.unknown())
      .optional(),
  })
  .strict();
const overridesSchema = z.record(uniqueKeySchema, z.object({ docs_connect: linkUrl.optional() }).strict());

const sessionBody = z
  .object({
    end_user: endUserSchema.optional(),
    organization: organizationSchema.optional(),
    tags: tagsSchema.optional(),
    allowed_integrations: z.array(uniqueKeySchema).max(100).optional(),
    integrations_config_defaults: z.record(uniqueKeySchema, integrationDefaults).optional(),
    overrides: overridesSchema.optional(),
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
    overrides: overridesSchema.optional(),
    webhook_url_override: z.url({ protocol: /^https?$/ }).optional(),
  })
  .strict();

const sessionResponse = z.object({ data: z.object({ token: z.string(), connect_link: z.string(), expires_at: z.string() }) });

const apiKeyBody = z.object({ apiKey: z.string().min(1).max(1024) }).strict();
const basicBody = z.object({ username: z.string().max(1024), password: z.string().max(1024) }).strict();
/** OAuth 2 client credentials of the end user's own client; none: the integration's. */
const clientCredentialsBody = oauth2CcCredentials.pick({ client_id: true, client_secret: true, client_certificate: true, client_private_key: true }).strict();

/** TWO_STEP: the fields the definition's `credentials` declares, flat (Nango's frontend sends `type` with them). */
const twoStepBody = z
  .object({ type: z.literal('TWO_STEP').optional() })
  .catchall(z.string().max(4096))
  .refine((b) => Object.keys(b).length <= 33, { message: 'at most 32 fields' });

/** TBA (Nango's body): the token the end user created, and optionally their own integration record's consumer key and secret. */
const tbaBody = z
  .object({
    token_id: z.string().min(1).max(1024),
    token_secret: z.string().min(1).max(1024),
    oauth_client_id_override: z.string().min(1).max(1024).optional(),
    oauth_client_secret_override: z.string().min(1).max(1024).optional(),
  })
  .strict();

/** SIGNATURE (Nango's body): the API user name and secret; Nango's frontend sends `type` with them. */
const signatureBody = z
  .object({ type: z.literal('SIGNATURE').optional(), username: z.string().min(1).max(1024), password: z.string().min(1).max(1024) })
  .strict();

/** BILL (Nango's body): Bill's sign-in fields; the login's session is the credential. */
const billBody = billCredentials.pick({ username: true, password: true, organization_id: true, dev_key: true }).strict();

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
    if (!(await deps.lookups.integration(env.id, key))) problems.push({ code: 'invalid_value', message: 'Integration does not exist', path });
  }
  if (problems.length) throw new ValidationFailed('invalid_body', problems);
}

function sessionOut(deps: AppDeps, token: string, session: ConnectSession) {
  return { data: { token, connect_link: `${deps.config.publicUrl}/connect-ui/?session_token=${token}`, expires_at: session.expiresAt.toISOString() } };
}

/** A connect session from the fields the create and reconnect bodies share, and its answer. */
async function openSession(
  deps: AppDeps,
  env: Environment,
  input: Pick<z.infer<typeof reconnectBody>, 'end_user' | 'organization' | 'integrations_config_defaults' | 'overrides' | 'webhook_url_override'>,
  scope: Pick<NewConnectSession, 'tags' | 'allowedIntegrations' | 'reconnectConnectionPk'>,
) {
  const { defaults, secrets } = withoutClientSecrets(input.integrations_config_defaults);
  const { token, session } = await createConnectSession(
    deps.db,
    deps.box,
    {
      environmentId: env.id,
      endUser: input.end_user ?? null,
      organization: input.organization ?? null,
      integrationsConfigDefaults: defaults,
      clientSecretOverrides: secrets,
      overrides: input.overrides ?? null,
      webhookUrlOverride: input.webhook_url_override ?? null,
      ...scope,
    },
    deps.clock.now(),
  );
  return sessionOut(deps, token, session);
}

export interface FlowTarget {
  environment: Environment;
  session: ConnectSession;
  integration: Integration;
  connectionId: string;
  connectionConfig: Record<string, unknown>;
  /** The connectionConfig keys the developer or the provider set (not the end user): store.ts Connection.verifiedConfigKeys. */
  verifiedConfigKeys: string[];
}

/**
 * What the developer set on the connect session, with what the end user adds: a value the end user
 * sends for a key the developer set must be the developer's (400 naming it otherwise).
 */
function withDefaults<T>(fixed: Record<string, T> | undefined, given: Record<string, string> | undefined, field: string | null): Record<string, T | string> {
  const out: Record<string, T | string> = { ...fixed };
  for (const [key, value] of Object.entries(given ?? {})) {
    if (fixed && Object.hasOwn(fixed, key) && String(fixed[key]) !== value) {
      throw new ValidationFailed('invalid_query_params', [
        { code: 'invalid_value', message: 'was set by the developer on the connect session and cannot be changed', path: field ? [field, key] : [key] },
      ]);
    }
    out[key] = value;
  }
  return out;
}

/** Resolves and checks what an end user's flow is about, before anything is saved. */
async function flowTarget(
  deps: AppDeps,
  c: Context<AppEnv>,
  q: z.output<typeof flowQuery>,
  providerConfigKey: string,
): Promise<FlowTarget & { endpoints: Endpoints; q: z.output<typeof flowQuery> }> {
  const session = c.get('connectSession')!;
  const environment = c.get('environment');
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
    integration = await deps.lookups.integration(environment.id, providerConfigKey);
    connectionId = randomUUID();
  }
  if (!integration) throw new NotFound('unknown_provider_config', `Integration ${providerConfigKey} does not exist`);
  // The client overrides go to the credentials (client-override.ts), not the connection config; the end user sets neither.
  const given: Record<string, unknown> = withoutClientOverrides(
    withDefaults(session.integrationsConfigDefaults?.[providerConfigKey]?.connection_config, q.params, 'params'),
  );
  delete given.webhook_url;
  const provider = await providerOf(deps.db, environment.id, integration.provider);
  // The provider's defaults where neither the session nor the end user gave a value (a region's usual host).
  const connectionConfig = withConfigDefaults(provider, given);
  const endpoints = endpointsOfConfig(deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS, provider, integration, connectionConfig);
  endpoints.check();
  const verified = verifiedConfigKeys(connectionConfig, session.integrationsConfigDefaults?.[providerConfigKey]?.connection_config ?? {});
  return { environment, session, integration, connectionId, connectionConfig, verifiedConfigKeys: verified, endpoints, q };
}

export async function finishConnection(deps: AppDeps, t: FlowTarget, credentials: StoredCredentials) {
  const { connection, created } = await saveConnection(deps, {
    environment: t.environment,
    integration: t.integration,
    provider: await providerOf(deps.db, t.environment.id, t.integration.provider),
    connectionId: t.connectionId,
    credentials,
    connectionConfig: t.connectionConfig,
    verifiedConfigKeys: t.verifiedConfigKeys,
    tags: tagsFrom(t.session.endUser, t.session.tags),
    endUser: t.session.endUser ? { ...t.session.endUser, organization: t.session.endUser.organization ?? t.session.organization ?? null } : null,
    webhookUrlOverride: t.session.webhookUrlOverride,
  });
  await deps.lifecycle.connectionSaved(t.environment, connection, { created });
  return connection;
}

const sessionDataShape = z.object({
  endUser: z
    .object({
      id: z.string(),
      display_name: z.string().nullable(),
      email: z.string().nullable(),
      tags: z.record(z.string(), z.string()).nullable(),
      organization: z.object({ id: z.string(), display_name: z.string().nullable().optional() }).nullable(),
    })
    .nullable(),
  tags: z.record(z.string(), z.string()),
  allowed_integrations: z.array(z.string()).optional(),
  integrations_config_defaults: z.record(z.string(), integrationDefaults).optional(),
  overrides: overridesSchema.optional(),
  isReconnecting: z.boolean(),
  expires_at: z.string(),
  connectUISettings: z.object({
    theme: z.object({ light: z.object({ primary: z.string() }), dark: z.object({ primary: z.string() }) }),
    defaultTheme: z.enum(['light', 'dark', 'system']),
    showWatermark: z.boolean(),
  }),
});
const connectedResponse = z.object({ connectionId: z.string(), providerConfigKey: z.string() });
const pckParam = z.object({ providerConfigKey: z.string() });
const callbackQuery = z.object({
  state: z.string().optional(),
  code: z.string().optional(),
  /** OAuth 1.0a: the authorized request token and its verifier. */
  oauth_token: z.string().optional(),
  /** A GitHub App with user authorization (CUSTOM): the installation, and `install`, `update` or `request`. */
  installation_id: z.string().optional(),
  setup_action: z.string().optional(),
  oauth_verifier: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});
const FLOW_NOTE = 'Authenticated by the connect-session token in `?connect_session_token=`.';

export const createSession = defineRoute({
  method: 'post',
  path: '/connect/sessions',
  operationId: 'createConnectSession',
  summary: 'Create a connect session for an end user (30-minute token)',
  tag: 'connect',
  auth: 'secret_key',
  scope: 'environment:connect_sessions:write',
  request: { body: sessionBody },
  responses: { 201: sessionResponse },
  errors: [],
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
  await checkIntegrationIds(deps, env, [
    ...(input.allowed_integrations ?? []).map((key, i) => ({ key, path: ['allowed_integrations', i] })),
    ...Object.keys(input.integrations_config_defaults ?? {}).map((key) => ({ key, path: ['integrations_config_defaults', key] })),
  ]);
  return openSession(deps, env, input, {
    tags: tagsFrom(input.end_user ? { ...input.end_user, organization: input.end_user.organization ?? input.organization } : null, input.tags),
    allowedIntegrations: input.allowed_integrations ?? null,
    reconnectConnectionPk: null,
  });
});

export const createReconnectSession = defineRoute({
  method: 'post',
  path: '/connect/sessions/reconnect',
  operationId: 'createReconnectSession',
  summary: 'Create a session that re-authorizes an existing connection',
  tag: 'connect',
  auth: 'secret_key',
  scope: 'environment:connect_sessions:write',
  request: { body: reconnectBody },
  responses: { 201: sessionResponse },
  errors: [],
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
  const integration = await deps.lookups.integration(env.id, input.integration_id);
  if (!integration) throw new ValidationFailed('invalid_body', [{ code: 'invalid_value', message: 'Integration does not exist', path: ['integration_id'] }]);
  const connectionPk = await findConnectionPkOfIntegration(deps.db, integration.id, input.connection_id);
  if (connectionPk === null)
    throw new ValidationFailed('invalid_body', [{ code: 'invalid_value', message: 'Connection does not exist', path: ['connection_id'] }]);
  return openSession(deps, env, input, {
    tags: tagsFrom(input.end_user ?? null, input.tags),
    allowedIntegrations: [integration.uniqueKey],
    reconnectConnectionPk: connectionPk,
  });
});

export const getSession = defineRoute({
  method: 'get',
  path: '/connect/session',
  operationId: 'getConnectSession',
  summary: 'The current connect session (connect-session token)',
  tag: 'connect',
  auth: 'connect_session',
  responses: { 200: z.object({ data: sessionDataShape }) },
  errors: [],
}).handle(async (_input, c) => {
  const session = c.get('connectSession')!;
  return {
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
      overrides: session.overrides ?? undefined,
      isReconnecting: session.reconnectConnectionPk !== null,
      expires_at: session.expiresAt.toISOString(),
      connectUISettings: { theme: { light: { primary: '#2255cc' }, dark: { primary: '#7aa2ff' } }, defaultTheme: 'system', showWatermark: false },
    },
  };
});

export const deleteSession = defineRoute({
  method: 'delete',
  path: '/connect/session',
  operationId: 'deleteConnectSession',
  summary: 'End the current connect session (connect-session token)',
  tag: 'connect',
  auth: 'connect_session',
  responses: { 204: { description: 'Ended' } },
  errors: [],
}).handle(async ({ deps }, c) => {
  const session = c.get('connectSession')!;
  await deleteConnectSession(deps.db, session.id);
  return c.body(null, 204);
});

/** The connect flows that take the credentials in a JSON body (API key, Basic, client credentials): one shape, three routes. */
function credentialsFlow<S extends z.ZodType>(spec: {
  path: string;
  operationId: string;
  summary: string;
  body: S;
  credentials: (input: z.output<S>) => StoredCredentials;
}) {
  return defineRoute({
    method: 'post',
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: FLOW_NOTE,
    tag: 'connect',
    auth: 'connect_session',
    request: { params: pckParam, query: flowQuery },
    // Read after the session is checked: a bad token is 401 whatever the body.
    handlerParses: { body: spec.body },
    responses: { 200: connectedResponse },
    errors: [404],
  }).handle(async ({ deps, params, query: q }, c) => {
    const target = await flowTarget(deps, c, q, params.providerConfigKey);
    const connection = await finishConnection(deps, target, spec.credentials(await body(c, spec.body)));
    return { connectionId: connection.connectionId, providerConfigKey: target.integration.uniqueKey };
  });
}

export const connectWithApiKey = credentialsFlow({
  path: '/api-auth/api-key/:providerConfigKey',
  operationId: 'connectWithApiKey',
  summary: 'Connect with an API key',
  body: apiKeyBody,
  credentials: (input) => ({ type: 'API_KEY', apiKey: input.apiKey }),
});

export const connectWithBasic = credentialsFlow({
  path: '/api-auth/basic/:providerConfigKey',
  operationId: 'connectWithBasic',
  summary: 'Connect with username and password',
  body: basicBody,
  credentials: (input) => ({ type: 'BASIC', username: input.username, password: input.password }),
});

export const connectWithClientCredentials = credentialsFlow({
  path: '/oauth2/auth/:providerConfigKey',
  operationId: 'connectWithClientCredentials',
  summary: 'Connect with OAuth 2 client credentials (the token is fetched at once)',
  body: clientCredentialsBody,
  credentials: (input) => ({ type: 'OAUTH2_CC', ...input }),
});

export const connectWithTwoStep = credentialsFlow({
  path: '/auth/two-step/:providerConfigKey',
  operationId: 'connectWithTwoStep',
  summary: 'Connect with the fields a TWO_STEP provider asks (exchanged for a token at once)',
  body: twoStepBody,
  credentials: (input) => ({ ...input, type: 'TWO_STEP' }),
});

export const connectWithTba = credentialsFlow({
  path: '/auth/tba/:providerConfigKey',
  operationId: 'connectWithTba',
  summary: 'Connect with a NetSuite token id and secret (token-based authentication)',
  body: tbaBody,
  credentials: (input) => ({
    type: 'TBA',
    token_id: input.token_id,
    token_secret: input.token_secret,
    ...((input.oauth_client_id_override || input.oauth_client_secret_override) && {
      config_override: {
        ...(input.oauth_client_id_override && { client_id: input.oauth_client_id_override }),
        ...(input.oauth_client_secret_override && { client_secret: input.oauth_client_secret_override }),
      },
    }),
  }),
});

export const connectWithSignature = credentialsFlow({
  path: '/auth/signature/:providerConfigKey',
  operationId: 'connectWithSignature',
  summary: 'Connect with the user name and secret each request is signed with (WSSE)',
  body: signatureBody,
  credentials: (input) => ({ type: 'SIGNATURE', username: input.username, password: input.password }),
});

export const connectWithBill = credentialsFlow({
  path: '/auth/bill/:providerConfigKey',
  operationId: 'connectWithBill',
  summary: "Connect with Bill's sign-in fields (username, password, organization id, developer key)",
  body: billBody,
  credentials: (input) => ({ type: 'BILL', ...input }),
});

export const connectUnauthenticated = defineRoute({
  method: 'post',
  path: '/auth/unauthenticated/:providerConfigKey',
  operationId: 'connectUnauthenticated',
  summary: 'Connect a provider that needs no credentials',
  description: FLOW_NOTE,
  tag: 'connect',
  auth: 'connect_session',
  request: { params: pckParam, query: flowQuery },
  responses: { 200: connectedResponse },
  errors: [404],
}).handle(async ({ deps, params, query: q }, c) => {
  const target = await flowTarget(deps, c, q, params.providerConfigKey);
  const connection = await finishConnection(deps, target, { type: 'NONE' });
  return { connectionId: connection.connectionId, providerConfigKey: target.integration.uniqueKey };
});

export const startOAuth = defineRoute({
  method: 'get',
  path: '/oauth/connect/:providerConfigKey',
  operationId: 'startOAuth',
  summary: 'Start the OAuth 2 or OAuth 1.0a flow (redirects to the provider)',
  description: `${FLOW_NOTE} Failures answer an HTML page that reports to the opener (and to the ws_client_id socket).`,
  tag: 'connect',
  auth: 'connect_session',
  refuse: (err, c, deps) => oauthStartFailure(deps, c, err),
  handlerParses: { query: flowQuery },
  responses: { 302: redirect("The provider's authorization page"), 400: html('The flow could not start (HTML page that reports to the opener)') },
  errors: [],
}).handle(async ({ deps }, c) => {
  const pck = c.req.param('providerConfigKey') ?? '';
  const wsClientId = typeof parseQuery(c.req.url).ws_client_id === 'string' ? (parseQuery(c.req.url).ws_client_id as string) : null;
  try {
    const target = await flowTarget(deps, c, query(c, flowQuery), pck);
    const provider = target.endpoints.provider;
    const appInstallation = provider.authMode === 'APP' || provider.authMode === 'CUSTOM';
    if (!authorizationCodeModes.includes(provider.authMode) && !appInstallation && provider.authMode !== 'OAUTH1')
      throw new BadRequest('invalid_auth_mode', `${provider.displayName} does not use OAuth; use the ${provider.authMode} flow`);
    const redirectUri = `${deps.config.publicUrl}/oauth/callback`;
    const state = randomUUID();
    // The popup's socket gets this flow's outcome only once this session has claimed it (api/ws.ts).
    const claimedSocket = wsClientId && deps.authSockets.claim(wsClientId, target.session.id) ? wsClientId : null;
    if (appInstallation) return c.redirect(await startAppInstallation(deps, target, state, claimedSocket), 302);
    if (provider.authMode === 'OAUTH1') {
      const client = target.integration.credentials;
      if (!client) throw new BadRequest('missing_credentials', `Integration ${pck} has no OAuth consumer key and secret (its Authorization tab)`);
      // Nango's way: the state rides on the callback, which the provider calls back unchanged.
      const callbackUrl = `${redirectUri}?state=${state}`;
      const context = { environmentId: target.environment.id, integration: pck, connectionId: target.connectionId, kind: 'auth' } as const;
      const token = await requestToken({ http: deps.http, endpoints: target.endpoints, client, callbackUrl, context });
      // The request token and its secret, kept encrypted where an OAuth 2 flow keeps its PKCE verifier.
      await createOAuthSession(
        deps.db,
        {
          id: state,
          environmentId: target.environment.id,
          integrationId: target.integration.id,
          connectSessionId: target.session.id,
          connectionId: target.connectionId,
          connectionConfig: target.connectionConfig,
          codeVerifierEnc: deps.box.encrypt(JSON.stringify(token), rowAad('oauth_sessions', 'code_verifier_enc', state)),
          redirectUri,
          wsClientId: claimedSocket,
        },
        deps.clock.now(),
      );
      return c.redirect(authorizationUrl({ endpoints: target.endpoints, client, token, callbackUrl }), 302);
    }
    const { client, connectionConfig, endpoints } = await authorizationClient(mcpDeps(deps), target.endpoints, {
      redirectUri,
      state,
      environmentName: target.environment.name,
      context: { environmentId: target.environment.id, integration: pck, connectionId: target.connectionId, kind: 'auth' },
    });
    const pkce = provider.pkce ? pkcePair() : null;
    const defaults = target.session.integrationsConfigDefaults?.[pck];
    const overridden = overriddenClient(client, provider.authMode === 'OAUTH2' ? sessionClientOverride(deps.box, target.session, pck) : undefined)!;
    const scopes = sessionScopesOverride(target.session, pck);
    const userScope = (value?: string) => (value === undefined ? undefined : { user_scope: value });
    const { user_scope: userScopes } = withDefaults(userScope(defaults?.user_scopes), userScope(target.q.user_scope), null);
    await createOAuthSession(
      deps.db,
      {
        id: state,
        environmentId: target.environment.id,
        integrationId: target.integration.id,
        connectSessionId: target.session.id,
        connectionId: target.connectionId,
        connectionConfig,
        codeVerifierEnc: pkce ? deps.box.encrypt(pkce.verifier, rowAad('oauth_sessions', 'code_verifier_enc', state)) : null,
        redirectUri,
        wsClientId: claimedSocket,
      },
      deps.clock.now(),
    );
    return c.redirect(
      authorizeUrl({
        endpoints,
        credentials: scopes === undefined || overridden.type === 'APP' || overridden.type === 'CUSTOM' ? overridden : { ...overridden, scopes },
        redirectUri,
        state,
        codeChallenge: pkce?.challenge,
        userScopes,
        extraParams: withDefaults(defaults?.authorization_params, target.q.authorization_params, 'authorization_params'),
      }),
      302,
    );
  } catch (err) {
    return oauthStartFailure(deps, c, err);
  }
});

/** A flow that could not start: the page that reports to the opener, and the same to the ws_client_id socket. */
function oauthStartFailure(deps: AppDeps, c: Context<AppEnv>, err: unknown): Response {
  const { type, message } = describeFailure(err);
  const wsClientId = parseQuery(c.req.url).ws_client_id;
  deps.authSockets.publish(typeof wsClientId === 'string' ? wsClientId : null, {
    message_type: 'error',
    provider_config_key: c.req.param('providerConfigKey') ?? '',
    connection_id: '',
    error_type: type,
    error_desc: message,
  });
  return c.html(callbackPage({ ok: false, errorType: type, message }), 400) as Response;
}

export const oauthCallback = defineRoute({
  method: 'get',
  path: '/oauth/callback',
  operationId: 'oauthCallback',
  summary: 'OAuth callback: exchanges the code (OAuth 2) or the verifier (OAuth 1.0a) and reports to the opener',
  tag: 'connect',
  auth: 'none',
  handlerParses: { query: callbackQuery },
  responses: { 200: html('Connected (HTML page that reports to the opener)'), 400: html('The connection failed (HTML page that reports to the opener)') },
  errors: [],
}).handle(async ({ deps }, c) => {
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
  const fail = flowFailure(deps, c, session, pck);
  if (typeof q.error === 'string')
    return fail('provider_error', `The provider answered: ${typeof q.error_description === 'string' ? q.error_description : q.error}`);
  if (!integration) return fail('missing_credentials', 'The integration this authorization was started for no longer exists');
  try {
    const endpoints = await endpointsFor(deps, session.environmentId, integration, session.connectionConfig);
    const provider = endpoints.provider;
    const started = session.connectSessionId ? await getConnectSessionById(deps.db, session.connectSessionId) : null;
    const sessionOverride = started && provider.authMode === 'OAUTH2' ? sessionClientOverride(deps.box, started, pck) : undefined;
    const fromCallback = callbackClient(deps.box, endpoints, session);
    const given = fromCallback.connectionConfig;
    const override = fromCallback.override ?? sessionOverride;
    const client = overriddenClient(fromCallback.client, sessionOverride);
    if (!client) return fail('missing_credentials', `Integration ${pck} has no OAuth client id and secret`);
    let startConfig = given;
    const context = { environmentId: session.environmentId, integration: integration.uniqueKey, connectionId: session.connectionId, kind: 'auth' } as const;
    const environment = (await findEnvironmentByName(deps.db, (await environmentNameById(deps.db, session.environmentId))!))!;
    const secret = session.codeVerifierEnc ? deps.box.decrypt(session.codeVerifierEnc, rowAad('oauth_sessions', 'code_verifier_enc', session.id)) : undefined;
    let exchanged: { credentials: StoredCredentials; raw: Record<string, unknown> };
    if (provider.authMode === 'OAUTH1') {
      const token = JSON.parse(secret ?? '{}') as RequestToken;
      if (typeof q.oauth_verifier !== 'string' || typeof q.oauth_token !== 'string')
        return fail('missing_code', 'The provider did not return an oauth_token and oauth_verifier');
      if (!constantTimeEqual(q.oauth_token, token.token))
        return fail('invalid_state', 'The provider returned another request token than this authorization asked for');
      exchanged = await accessToken({ http: deps.http, endpoints, client, token, verifier: q.oauth_verifier, context });
    } else if (provider.authMode === 'CUSTOM') {
      // A GitHub App with user authorization: GitHub's redirect after the installation brings its id with the user's code.
      const installation = installationOf(q);
      if (typeof installation !== 'string') return fail(installation.type, installation.message);
      if (typeof q.code !== 'string' && q.setup_action !== 'update') return fail('missing_code', 'GitHub did not return an authorization code');
      startConfig = { ...startConfig, installation_id: installation, app_id: githubAppKey(client)?.appId };
      exchanged = await appAndUserCredentials({
        http: deps.http,
        endpoints: endpointsOfConfig(deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS, provider, integration, startConfig),
        code: typeof q.code === 'string' ? q.code : undefined,
        redirectUri: session.redirectUri,
        now: deps.clock.now(),
        context,
      });
    } else {
      if (typeof q.code !== 'string') return fail('missing_code', 'The provider did not return an authorization code');
      exchanged = await exchangeCode({
        http: deps.http,
        endpoints,
        credentials: client,
        code: q.code,
        redirectUri: session.redirectUri,
        codeVerifier: secret,
        now: deps.clock.now(),
        context,
      });
    }
    const { credentials, raw } = exchanged;
    const connectionConfig = await configAfterAuthorization({
      http: deps.http,
      endpointsOf: (config) => endpointsOfConfig(deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS, provider, integration, config),
      config: startConfig,
      redirectQuery: q,
      tokenResponse: raw,
      credentials,
      context,
    });
    const connectSession = started && withoutFlowSettings(started);
    // Values the provider gave server to server (token response, post-connection call), not the end user or the redirect: webhook routing trusts only these.
    const redirected = new Set([...(provider.redirectUriMetadata ?? []), ...(provider.authMode === 'CUSTOM' ? ['installation_id'] : [])]);
    const fromProvider = Object.fromEntries(
      Object.entries(connectionConfig).filter(([k]) => !Object.hasOwn(session.connectionConfig, k) && !redirected.has(k)),
    );
    const connection = await finishConnection(
      deps,
      {
        environment,
        session: connectSession ?? emptySession(session.environmentId),
        integration,
        connectionId: session.connectionId,
        connectionConfig,
        verifiedConfigKeys: verifiedConfigKeys(connectionConfig, started?.integrationsConfigDefaults?.[pck]?.connection_config ?? {}, fromProvider),
      },
      // A connection's own client (MCP_OAUTH2_GENERIC's, or the one its connect session overrode) is kept encrypted with its tokens.
      credentials.type === 'OAUTH2' && override ? { ...credentials, config_override: override } : credentials,
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

/**
 * A GitHub App's flow starts on its installation page (the definition's `authorization_url`, from the
 * integration's app link as `appPublicLink`) with only `state`: GitHub sends the browser back to the
 * app's Setup URL (GET /app-auth/connect, app-auth.ts) with the installation id and this state.
 */
async function startAppInstallation(deps: AppDeps, target: Awaited<ReturnType<typeof flowTarget>>, state: string, wsClientId: string | null) {
  const app = target.integration.credentials;
  if (app?.type !== target.endpoints.provider.authMode || (app.type !== 'APP' && app.type !== 'CUSTOM'))
    throw new BadRequest('missing_credentials', `Integration ${target.integration.uniqueKey} has no GitHub App id, link and private key`);
  const connectionConfig = { ...target.connectionConfig, appPublicLink: app.app_link };
  const page = endpointsOfConfig(
    deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS,
    target.endpoints.provider,
    target.integration,
    connectionConfig,
  ).authorizationUrl(app.client_id);
  if (!page) throw new OAuthError('invalid_auth_mode', `${target.endpoints.provider.name} has no installation page`);
  await createOAuthSession(
    deps.db,
    {
      id: state,
      environmentId: target.environment.id,
      integrationId: target.integration.id,
      connectSessionId: target.session.id,
      connectionId: target.connectionId,
      connectionConfig,
      codeVerifierEnc: null,
      // CUSTOM: GitHub sends the browser to the app's callback URL (user authorization during installation), else to its Setup URL.
      redirectUri: app.type === 'CUSTOM' ? `${deps.config.publicUrl}/oauth/callback` : `${deps.config.publicUrl}/app-auth/connect`,
      wsClientId,
    },
    deps.clock.now(),
  );
  const url = new URL(page);
  url.searchParams.set('state', state);
  return url.toString();
}

/** The installation id GitHub's redirect brings (CUSTOM), or why there is none to use. */
export function installationOf(q: Record<string, unknown>): string | { type: string; message: string } {
  if (q.setup_action === 'request')
    return { type: 'wrong_auth_mode', message: 'The installation waits for an organization owner to approve it: connect again once it is approved' };
  if (typeof q.installation_id !== 'string' || !q.installation_id)
    return { type: 'missing_installation_id', message: 'GitHub did not send the installation id' };
  if (!/^\d{1,20}$/.test(q.installation_id)) return { type: 'invalid_installation_id', message: 'installation_id: the numeric installation id' };
  return q.installation_id;
}

function mcpDeps(deps: AppDeps) {
  return { http: deps.http, db: deps.db, box: deps.box, allowedPrivateHosts: deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS };
}

/** How a callback reports a failed flow: to the popup's socket, and as the HTML page that tells the opener. */
export function flowFailure(deps: AppDeps, c: Context, session: { wsClientId: string | null; connectionId: string }, pck: string) {
  return (type: string, message: string) => {
    deps.authSockets.publish(session.wsClientId, {
      message_type: 'error',
      provider_config_key: pck,
      connection_id: session.connectionId,
      error_type: type,
      error_desc: message,
    });
    return c.html(callbackPage({ ok: false, errorType: type, message }), 400);
  };
}

export function describeFailure(err: unknown): { type: string; message: string } {
  if (err instanceof SwitchyardError || err instanceof OAuthError) return { type: err.code, message: err.message };
  return { type: 'unknown_error', message: 'The connection could not be completed' };
}

/** The connect session an OAuth flow started from, without its allow-list, defaults or reconnect target (used up by then). */
export function withoutFlowSettings(session: ConnectSession): ConnectSession {
  return { ...session, allowedIntegrations: null, integrationsConfigDefaults: null, reconnectConnectionPk: null };
}

export function emptySession(environmentId: number): ConnectSession {
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
    overrides: null,
    clientSecretOverridesEnc: null,
    expiresAt: new Date(Date.now() + CONNECT_SESSION_TTL_MS),
  };
}
