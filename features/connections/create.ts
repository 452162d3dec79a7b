/**
 * @module features/connections/create — saving a new or re-authorized connection: verification of API-key
 * and basic credentials, the integration's validate-connection scripts, the upsert, and the `auth`
 * event.
 */
import { randomUUID } from 'node:crypto';
import { getConnectionByPk, upsertConnection, type Connection, type NewConnection } from './store.js';
import { emitEvent } from '../webhooks/emit.js';
import type { Integration } from '../integrations/store.js';
import type { Environment } from '../environments/store.js';
import { BadRequest } from '../../lib/errors.js';
import { ON_EVENT_TIMEOUT_MS, OnEventScriptFailed, runOnEventScripts } from '../scripts/on-event.js';
import { withConfigDefaults } from '../providers/connection-config.js';
import type { Provider } from '../providers/providers.js';
import { verifyCredentials, type ConnectionDeps } from './service.js';
import { clientCredentialsToken, OAuthError } from './oauth.js';
import { endpoints as endpointsOf } from './target.js';
import { billLogin } from './bill.js';
import { installationToken } from './github-app.js';
import { jwtToken } from './jwt.js';
import { twoStepToken } from './two-step.js';

/** A new connection's fields (store.ts `NewConnection`), with its environment, integration and provider instead of their ids. */
export interface SaveConnectionInput extends Omit<NewConnection, 'environmentId' | 'integrationId' | 'authMode'> {
  environment: Environment;
  integration: Integration;
  provider: Provider;
}

/**
 * The keys of `config` whose value is the one a trusted source gave it (the developer's connect-session
 * defaults, the provider's token response): the connection's verified keys, by which third-party
 * webhooks may be routed. A value the end user typed over a trusted one is not verified.
 */
export function verifiedConfigKeys(config: Record<string, unknown>, ...trusted: Record<string, unknown>[]): string[] {
  const keys = new Set<string>();
  for (const source of trusted)
    for (const [key, value] of Object.entries(source)) {
      if (Object.hasOwn(config, key) && JSON.stringify(config[key]) === JSON.stringify(value)) keys.add(key);
    }
  return [...keys].sort();
}

/**
 * Runs the integration's validate-connection scripts against the connection about to be saved (not
 * in the database yet: its context reaches the provider with the new credentials; metadata and
 * records calls have nothing to act on). A script that throws refuses the connection.
 */
async function validateConnection(deps: ConnectionDeps, input: SaveConnectionInput): Promise<void> {
  const now = deps.clock.now();
  const pending: Connection = {
    id: 0,
    environmentId: input.environment.id,
    integrationId: input.integration.id,
    integrationKey: input.integration.uniqueKey,
    provider: input.integration.provider,
    connectionId: input.connectionId,
    authMode: input.provider.authMode,
    credentials: input.credentials,
    expiresAt: null,
    connectionConfig: input.connectionConfig,
    verifiedConfigKeys: input.verifiedConfigKeys,
    metadata: input.metadata ?? null,
    tags: input.tags,
    endUser: input.endUser,
    webhookUrlOverride: input.webhookUrlOverride ?? null,
    status: 'unknown',
    errors: [],
    lastCheckAt: null,
    lastFetchedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await runOnEventScripts(deps, pending, input.integration, 'validate-connection', {
      runId: `validate-${randomUUID()}`,
      timeoutMs: ON_EVENT_TIMEOUT_MS,
      log: () => undefined,
    });
  } catch (err) {
    if (!(err instanceof OnEventScriptFailed)) throw err;
    const cause = err.cause instanceof Error ? err.cause.message : String(err.cause);
    throw new BadRequest('connection_validation_failed', `The connection was refused by the validate-connection script ${err.script}: ${cause}`);
  }
}

/** The credentials an auth mode's connections keep: an MCP server's are OAuth 2 tokens (Nango's too). */
function storedCredentialType(authMode: string): string {
  return authMode === 'MCP_OAUTH2' || authMode === 'MCP_OAUTH2_GENERIC' ? 'OAUTH2' : authMode;
}

/**
 * Verifies (API_KEY, BASIC), runs the validate-connection scripts, saves, and records the auth
 * event. Nothing is saved when the verification or a validation fails, so a failed attempt leaves
 * no half-created connection.
 */
export async function saveConnection(deps: ConnectionDeps, input: SaveConnectionInput): Promise<{ connection: Connection; created: boolean }> {
  if (input.credentials.type !== storedCredentialType(input.provider.authMode)) {
    throw new BadRequest('invalid_auth_mode', `Provider ${input.provider.authMode} does not support ${input.credentials.type} auth`);
  }
  input = { ...input, connectionConfig: withConfigDefaults(input.provider, input.connectionConfig) };
  const endpoints = endpointsOf(deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS, input.provider, input.integration, input.connectionConfig);
  endpoints.check();
  const context = { environmentId: input.environment.id, integration: input.integration.uniqueKey, connectionId: input.connectionId, kind: 'auth' } as const;
  if (input.credentials.type === 'OAUTH2_CC' && !input.credentials.token) {
    // A client-credentials connection given only its client id and secret (or none: the integration's) gets its first token now.
    try {
      input = {
        ...input,
        credentials: await clientCredentialsToken({ http: deps.http, endpoints, connectionCredentials: input.credentials, now: deps.clock.now(), context }),
      };
    } catch (err) {
      if (err instanceof OAuthError) throw new BadRequest('connection_test_failed', `Fetching a client-credentials token failed: ${err.message}`);
      throw err;
    }
  }
  if (input.credentials.type === 'TWO_STEP' && !input.credentials.token) {
    // The entered fields are exchanged for the first token now; a refusal is the end user's to correct.
    try {
      input = { ...input, credentials: await twoStepToken({ http: deps.http, endpoints, credentials: input.credentials, now: deps.clock.now(), context }) };
    } catch (err) {
      if (err instanceof OAuthError) throw new BadRequest('connection_test_failed', `Fetching a token with these credentials failed: ${err.message}`);
      throw err;
    }
  }
  if (input.credentials.type === 'JWT') {
    // The entered key signs the first token now; a key that cannot sign is the end user's to correct.
    try {
      input = { ...input, credentials: jwtToken({ endpoints, credentials: input.credentials, now: deps.clock.now() }) };
    } catch (err) {
      if (err instanceof OAuthError) throw new BadRequest('connection_test_failed', `Signing a token with these credentials failed: ${err.message}`);
      throw err;
    }
  }
  if (input.credentials.type === 'APP' && !input.credentials.access_token) {
    // A GitHub App installation gets its first installation token now; a refusal names what GitHub said.
    try {
      input = {
        ...input,
        credentials: await installationToken({ http: deps.http, endpoints, config: input.connectionConfig, now: deps.clock.now(), context }),
      };
    } catch (err) {
      if (err instanceof OAuthError) throw new BadRequest('connection_test_failed', `Fetching an installation token failed: ${err.message}`);
      throw err;
    }
  }
  if (input.credentials.type === 'BILL' && !input.credentials.session_id) {
    // Bill's login is the check: a refusal (BDC_1101: wrong username or password) names what Bill said.
    try {
      input = { ...input, credentials: await billLogin({ http: deps.http, endpoints, credentials: input.credentials, now: deps.clock.now(), context }) };
    } catch (err) {
      if (err instanceof OAuthError) throw new BadRequest('connection_test_failed', `Signing in to ${input.provider.displayName} failed: ${err.message}`);
      throw err;
    }
  }
  if (input.credentials.type !== 'OAUTH2' && input.credentials.type !== 'APP' && input.credentials.type !== 'CUSTOM') {
    const result = await verifyCredentials(deps, endpoints, input.credentials, context);
    if (!result.ok)
      throw new BadRequest('connection_test_failed', `The credentials did not work against ${input.provider.displayName}: ${result.reason ?? 'refused'}`);
  }
  await validateConnection(deps, input);
  const { pk, created } = await upsertConnection(deps.db, deps.box, {
    environmentId: input.environment.id,
    integrationId: input.integration.id,
    connectionId: input.connectionId,
    authMode: input.provider.authMode,
    credentials: input.credentials,
    connectionConfig: input.connectionConfig,
    verifiedConfigKeys: input.verifiedConfigKeys,
    metadata: input.metadata,
    tags: input.tags,
    endUser: input.endUser,
    webhookUrlOverride: input.webhookUrlOverride,
  });
  const connection = (await getConnectionByPk(deps.db, deps.box, pk))!;
  await emitEvent(deps, {
    environmentId: input.environment.id,
    type: 'auth',
    integration: input.integration.uniqueKey,
    connectionId: input.connectionId,
    payload: {
      from: 'switchyard',
      type: 'auth',
      operation: created ? 'creation' : 'override',
      connectionId: input.connectionId,
      providerConfigKey: input.integration.uniqueKey,
      authMode: input.provider.authMode,
      provider: input.provider.name,
      environment: input.environment.name,
      success: true,
      tags: connection.tags,
      ...(connection.endUser
        ? {
            endUser: {
              endUserId: connection.endUser.id,
              endUserEmail: connection.endUser.email ?? null,
              organizationId: connection.endUser.organization?.id ?? null,
              tags: connection.endUser.tags ?? {},
            },
          }
        : {}),
    },
  });
  return { connection, created };
}
