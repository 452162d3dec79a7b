/**
 * @module connections/create — saving a new or re-authorized connection: verification of API-key
 * and basic credentials, the upsert, and the `auth` event.
 */
import { getConnectionByPk, upsertConnection, type Connection, type EndUser } from '../db/connections.js';
import { emitEvent } from '../webhooks/emit.js';
import type { Integration } from '../db/integrations.js';
import type { Environment } from '../db/environments.js';
import { BadRequest } from '../errors.js';
import type { StoredCredentials } from '../../integrations/credentials.js';
import type { Provider } from '../../integrations/providers.js';
import { verifyCredentials, type ConnectionDeps } from './service.js';

export interface SaveConnectionInput {
  environment: Environment;
  integration: Integration;
  provider: Provider;
  connectionId: string;
  credentials: StoredCredentials;
  connectionConfig: Record<string, unknown>;
  metadata?: Record<string, unknown> | null;
  tags: Record<string, string>;
  endUser: EndUser | null;
  webhookUrlOverride?: string | null;
}

export function checkConnectionConfig(provider: Provider, config: Record<string, unknown>): void {
  for (const [key, field] of Object.entries(provider.connectionConfig)) {
    const value = config[key];
    if (field.required && (value === undefined || value === null || value === '')) {
      throw new BadRequest('missing_connection_config', `connection_config.${key} is required: ${field.description}`);
    }
    if (value !== undefined && field.pattern && !field.pattern.test(String(value))) {
      throw new BadRequest('invalid_connection_config', `connection_config.${key} is not valid: ${field.description}`);
    }
  }
}

/**
 * Verifies (API_KEY, BASIC), saves, and records the auth event. Nothing is saved when the
 * verification fails, so a failed attempt leaves no half-created connection.
 */
export async function saveConnection(deps: ConnectionDeps, input: SaveConnectionInput): Promise<{ connection: Connection; created: boolean }> {
  if (input.credentials.type !== input.provider.authMode) {
    throw new BadRequest('invalid_auth_mode', `Provider ${input.provider.authMode} does not support ${input.credentials.type} auth`);
  }
  checkConnectionConfig(input.provider, input.connectionConfig);
  if (input.credentials.type === 'API_KEY' || input.credentials.type === 'BASIC') {
    const result = await verifyCredentials(
      deps,
      { provider: input.provider, integration: input.integration, connectionConfig: input.connectionConfig, credentials: input.credentials },
      { environmentId: input.environment.id, integration: input.integration.uniqueKey, connectionId: input.connectionId, kind: 'auth' },
    );
    if (!result.ok)
      throw new BadRequest('connection_test_failed', `The credentials did not work against ${input.provider.displayName}: ${result.reason ?? 'refused'}`);
  }
  const { pk, created } = await upsertConnection(deps.db, deps.box, {
    environmentId: input.environment.id,
    integrationId: input.integration.id,
    connectionId: input.connectionId,
    authMode: input.provider.authMode,
    credentials: input.credentials,
    connectionConfig: input.connectionConfig,
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
