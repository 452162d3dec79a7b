/**
 * @module api/routes/connections — import, list, read (with refresh), patch, delete, metadata.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { freshConnection, providerOf } from '../../features/connections/target.js';
import { saveConnection } from '../../features/connections/create.js';
import { endUserSchema, tagsFrom, tagsSchema } from '../../features/connections/tags.js';
import { requireConnection, requireIntegration } from '../../features/connections/resolve.js';
import { getConnectionByPk, listConnections, markFetched, setMetadata } from '../../features/connections/store.js';
import type { Environment } from '../../features/environments/store.js';
import { BadRequest, Forbidden, NotFound } from '../../lib/errors.js';
import { grants } from '../../features/environments/scopes.js';
import { connectionCredentials, type StoredCredentials } from '../../features/connections/credentials.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';
import { stringBool } from '../validate.js';
import { connectionListItem, fullConnection, fullConnectionShape, listItem } from './connection-shapes.js';
import { uniqueKeySchema } from './integrations.js';

export const connectionIdSchema = z
  .string()
  .regex(/^[a-zA-Z0-9,.;:=+~[\]|@${}"'\\/_ -]+$/, 'not a valid connection id')
  .max(255);
const metadataSchema = z.record(z.string(), z.unknown());

const webhookUrlOverride = z.union([z.literal(''), z.url({ protocol: /^https?$/ })]);

const createBody = z
  .object({
    provider_config_key: uniqueKeySchema,
    connection_id: connectionIdSchema.optional(),
    metadata: metadataSchema.optional(),
    connection_config: z.record(z.string(), z.unknown()).optional(),
    webhook_url_override: webhookUrlOverride.optional(),
    tags: tagsSchema.optional(),
    end_user: endUserSchema.optional(),
    credentials: connectionCredentials,
  })
  .strict();

const listQuery = z
  .object({
    connectionId: connectionIdSchema.optional(),
    search: z.string().max(255).optional(),
    endUserId: z.string().max(255).optional(),
    endUserOrganizationId: z.string().max(255).optional(),
    integrationId: z.string().max(4096).optional(),
    tags: z.record(z.string(), z.string()).optional(),
    limit: z.coerce.number().int().min(1).max(2000).optional(),
    page: z.coerce.number().int().min(0).max(1_000_000).optional(),
  })
  .strict();

const getQuery = z
  .object({
    provider_config_key: uniqueKeySchema,
    force_refresh: stringBool.optional(),
    refresh_token: stringBool.optional(),
    refresh_github_app_jwt_token: stringBool.optional(),
  })
  .strict();

const pckQuery = z.object({ provider_config_key: uniqueKeySchema }).strict();
const idParam = z.object({ connectionId: connectionIdSchema });

const patchBody = z.object({ end_user: endUserSchema.optional(), tags: tagsSchema.optional(), webhook_url_override: webhookUrlOverride.optional() }).strict();

const metadataBody = z
  .object({
    connection_id: z.union([connectionIdSchema, z.array(connectionIdSchema).min(1).max(1000)]),
    provider_config_key: uniqueKeySchema,
    metadata: metadataSchema,
  })
  .strict();

function toStored(creds: z.infer<typeof connectionCredentials>): StoredCredentials {
  if (
    creds.type === 'OAUTH2' ||
    creds.type === 'OAUTH2_CC' ||
    creds.type === 'TWO_STEP' ||
    creds.type === 'JWT' ||
    creds.type === 'APP' ||
    creds.type === 'BILL'
  )
    return { ...creds, expires_at: creds.expires_at?.toISOString() };
  if (creds.type === 'CUSTOM')
    return {
      ...creds,
      app: { ...creds.app, expires_at: creds.app.expires_at?.toISOString() },
      user: creds.user && { ...creds.user, expires_at: creds.user.expires_at?.toISOString() },
    };
  return creds;
}

async function applyMetadata(deps: AppDeps, env: Environment, input: z.output<typeof metadataBody>, merge: boolean) {
  const ids = Array.isArray(input.connection_id) ? input.connection_id : [input.connection_id];
  const pks: number[] = [];
  for (const id of ids) {
    const conn = await deps.lookups.connection(env.id, input.provider_config_key, id);
    if (!conn) {
      throw new NotFound(
        'unknown_connection',
        `Connection with connection id ${id} and provider config key ${input.provider_config_key} not found.${ids.length > 1 ? ' No actions were taken on any of the connections as a result of this failure.' : ''}`,
      );
    }
    pks.push(conn.id);
  }
  await setMetadata(deps.db, pks, input.metadata, merge);
  return input;
}

const success = z.object({ success: z.literal(true) });

export const createConnection = defineRoute({
  method: 'post',
  path: '/connections',
  operationId: 'createConnection',
  summary: 'Import a connection that already has credentials',
  tag: 'connections',
  auth: 'secret_key',
  scope: 'environment:connections:create',
  request: { query: z.object({}).strict(), body: createBody },
  responses: { 201: fullConnectionShape },
  errors: [404],
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
  const integration = await requireIntegration(deps.lookups, env, input.provider_config_key, 'integration');
  await deps.connections.checkWebhookUrl(input.webhook_url_override, ['webhook_url_override']);
  const { connection, created } = await saveConnection(deps, {
    environment: env,
    integration,
    provider: await providerOf(deps.db, env.id, integration.provider),
    connectionId: input.connection_id ?? randomUUID(),
    credentials: toStored(input.credentials),
    connectionConfig: input.connection_config ?? {},
    // Set with the secret key: every value is the developer's.
    verifiedConfigKeys: Object.keys(input.connection_config ?? {}),
    metadata: input.metadata,
    tags: tagsFrom(input.end_user, input.tags),
    endUser: input.end_user ?? null,
    webhookUrlOverride: input.webhook_url_override || null,
  });
  await deps.lifecycle.connectionSaved(env, connection, { created });
  return fullConnection(connection, { style: 'Z', includeRefreshToken: true });
});

export const listConnectionsRoute = defineRoute({
  method: 'get',
  path: '/connections',
  operationId: 'listConnections',
  summary: 'List connections',
  tag: 'connections',
  auth: 'secret_key',
  scope: ['environment:connections:list', 'environment:connections:list_credentials'],
  request: { query: listQuery },
  responses: { 200: z.object({ connections: z.array(connectionListItem) }) },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  const env = c.get('environment');
  const connections = await listConnections(deps.db, deps.box, env.id, {
    connectionId: q.connectionId,
    search: q.search,
    endUserId: q.endUserId,
    endUserOrganizationId: q.endUserOrganizationId,
    integrationKeys: q.integrationId?.split(',').filter(Boolean),
    tags: q.tags ? Object.fromEntries(Object.entries(q.tags).map(([k, v]) => [k.toLowerCase(), v])) : undefined,
    limit: q.limit ?? 10_000,
    page: q.page ?? 0,
  });
  return { connections: connections.map(listItem) };
});

export const replaceConnectionMetadata = defineRoute({
  method: 'post',
  path: '/connections/metadata',
  operationId: 'replaceConnectionMetadata',
  summary: 'Replace metadata of one or many connections (all or nothing)',
  tag: 'connections',
  auth: 'secret_key',
  scope: 'environment:connections:update',
  request: { body: metadataBody },
  responses: { 201: metadataBody },
  errors: [404],
}).handle(async ({ deps, body: input }, c) => applyMetadata(deps, c.get('environment'), input, false));

export const mergeConnectionMetadata = defineRoute({
  method: 'patch',
  path: '/connections/metadata',
  operationId: 'mergeConnectionMetadata',
  summary: 'Merge metadata into one or many connections (all or nothing)',
  tag: 'connections',
  auth: 'secret_key',
  scope: 'environment:connections:update',
  request: { body: metadataBody },
  responses: { 200: metadataBody },
  errors: [404],
}).handle(async ({ deps, body: input }, c) => applyMetadata(deps, c.get('environment'), input, true));

const READ_CONNECTION_CREDENTIALS = 'environment:connections:read_credentials';

export const getConnectionRoute = defineRoute({
  method: 'get',
  path: '/connections/:connectionId',
  operationId: 'getConnection',
  summary: 'Get a connection with credentials (refreshing OAuth tokens that expire within 15 minutes)',
  description:
    'The refresh token is in the answer only with `refresh_token=true`. A refresh that fails answers 400 invalid_credentials with `payload.connection` (the connection, its recorded error, no credentials), as Nango does. An unknown integration answers 400 unknown_provider_config, as Nango does; an unknown connection 404.',
  tag: 'connections',
  auth: 'secret_key',
  scope: ['environment:connections:read', READ_CONNECTION_CREDENTIALS],
  request: { params: idParam, query: getQuery },
  responses: { 200: fullConnectionShape },
  errors: [403, 404],
}).handle(async ({ deps, params, query: q }, c) => {
  const env = c.get('environment');
  const withCredentials = grants(c.get('grantedScopes'), READ_CONNECTION_CREDENTIALS);
  if (!withCredentials && (q.refresh_token === true || q.force_refresh === true)) {
    throw new Forbidden('forbidden', `Credential and refresh options require the ${READ_CONNECTION_CREDENTIALS} scope`, {
      required_scopes: [READ_CONNECTION_CREDENTIALS],
    });
  }
  let { connection } = await requireConnection(deps.lookups, env, q.provider_config_key, params.connectionId, 'connection');
  await markFetched(deps.db, connection.id);
  // As Nango: a key that may read the connection but not its credentials sees it as stored, unrefreshed, credentials empty.
  if (!withCredentials) return { ...fullConnection(connection, { style: '+00:00', includeRefreshToken: false }), credentials: {} };
  try {
    connection = await freshConnection(deps, connection, { force: q.force_refresh ?? false });
  } catch (err) {
    if (!(err instanceof BadRequest && err.code === 'invalid_credentials')) throw err;
    // What the caller's users see about it: the connection with the error just recorded, and no credentials.
    const current = (await getConnectionByPk(deps.db, deps.box, connection.id)) ?? connection;
    throw new BadRequest(err.code, err.message, {
      connection: { ...fullConnection(current, { style: '+00:00', includeRefreshToken: false }), credentials: {} },
    });
  }
  return fullConnection(connection, { style: '+00:00', includeRefreshToken: q.refresh_token === true });
});

export const updateConnection = defineRoute({
  method: 'patch',
  path: '/connections/:connectionId',
  operationId: 'updateConnection',
  summary: 'Update end user, tags, webhook URL override',
  description: 'An unknown integration answers 400 unknown_provider_config, as Nango does; an unknown connection 404.',
  tag: 'connections',
  auth: 'secret_key',
  scope: 'environment:connections:update',
  request: { params: idParam, query: pckQuery, body: patchBody },
  responses: { 200: success },
  errors: [404],
}).handle(async ({ deps, params, query: q, body: input }, c) => {
  await deps.connections.update(
    c.get('environment'),
    { integrationKey: q.provider_config_key, connectionId: params.connectionId },
    { endUser: input.end_user, tags: input.tags, webhookUrlOverride: input.webhook_url_override },
  );
  return { success: true as const };
});

export const deleteConnectionRoute = defineRoute({
  method: 'delete',
  path: '/connections/:connectionId',
  operationId: 'deleteConnection',
  summary: 'Delete a connection and its schedules',
  description: 'An unknown connection answers 400 unknown_connection, as Nango does.',
  tag: 'connections',
  auth: 'secret_key',
  scope: 'environment:connections:delete',
  request: { params: idParam, query: pckQuery },
  responses: { 200: success },
  errors: [],
}).handle(async ({ deps, params, query: q }, c) => {
  await deps.connections.remove(c.get('environment'), { integrationKey: q.provider_config_key, connectionId: params.connectionId });
  return { success: true as const };
});
