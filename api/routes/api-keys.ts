/**
 * @module api/routes/api-keys — an environment's API keys, at Nango's two sets of paths: the
 * published document's `POST`/`DELETE /environment/api-keys` (environment and key by numeric id, in
 * the body) and @nangohq/types 0.71.10's `/environments/{environmentUuid}/api-keys[/{keyUuid}]`.
 * A key gets `environment:*` unless `scopes` names others (a Switchyard addition, as Nango's
 * dashboard offers custom scopes). Rotating is, as in Nango, creating a key and deleting the old one.
 */
import { z } from 'zod';
import { createApiKey, deleteApiKey, getApiKey, listApiKeys, type ApiKey } from '../../features/environments/api-keys.js';
import { FULL_ENVIRONMENT_ACCESS, grantableScope } from '../../features/environments/scopes.js';
import { Conflict, NotFound } from '../../lib/errors.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';
import { environmentUuid, findEnvironmentByRef } from './environments.js';

const displayName = z.string().min(1).max(255);
const scopes = z.array(grantableScope).min(1).max(64).optional();
const numericId = z.number().int().positive().max(2_147_483_647);

const keyFields = {
  id: z.number().int(),
  uuid: z.string(),
  display_name: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
};
const createdKey = z.object({ data: z.object({ ...keyFields, secret: z.string() }) });
const listedKey = z.object({ ...keyFields, last_used_at: z.string().nullable() });
const success = z.object({ success: z.literal(true) });

function view(key: ApiKey) {
  return { id: key.id, uuid: key.uuid, display_name: key.displayName, scopes: key.scopes, created_at: key.createdAt.toISOString() };
}

async function create(deps: AppDeps, environmentId: number, name: string, granted: string[] | undefined): Promise<z.output<typeof createdKey>> {
  const key = await createApiKey(deps.db, deps.box, { environmentId, displayName: name, scopes: granted ?? [FULL_ENVIRONMENT_ACCESS] });
  if (!key) throw new Conflict('conflict', 'A key with this name already exists');
  return { data: { ...view(key), secret: key.secret } };
}

async function remove(deps: AppDeps, environmentId: number, key: { uuid: string } | { id: number }): Promise<z.output<typeof success>> {
  if (!(await deleteApiKey(deps.db, environmentId, key))) throw new NotFound('not_found', 'API key not found');
  await deps.lookups.settled();
  return { success: true };
}

export const createApiKeyByIdRoute = defineRoute({
  method: 'post',
  path: '/environment/api-keys',
  operationId: 'createEnvironmentApiKey',
  summary: 'Create an API key of an environment named by its numeric id; its secret is in the answer',
  tag: 'environments',
  auth: 'secret_key',
  scope: 'account:environments:api_keys:create',
  request: { body: z.object({ environment_id: numericId, display_name: displayName, scopes }).strict() },
  responses: { 200: createdKey },
  errors: [403, 404, 409],
}).handle(async ({ deps, body }) => {
  const env = await findEnvironmentByRef(deps.db, body.environment_id);
  return create(deps, env.id, body.display_name, body.scopes);
});

export const deleteApiKeyByIdRoute = defineRoute({
  method: 'delete',
  path: '/environment/api-keys',
  operationId: 'deleteEnvironmentApiKey',
  summary: 'Delete an API key, both named by numeric id; requests with it fail at once',
  tag: 'environments',
  auth: 'secret_key',
  scope: 'account:environments:api_keys:delete',
  request: { body: z.object({ environment_id: numericId, key_id: numericId }).strict() },
  responses: { 200: success },
  errors: [403, 404],
}).handle(async ({ deps, body }) => {
  const env = await findEnvironmentByRef(deps.db, body.environment_id);
  return remove(deps, env.id, { id: body.key_id });
});

const envParams = z.object({ environmentUuid });
const keyParams = z.object({ environmentUuid, keyUuid: environmentUuid });

export const listApiKeysRoute = defineRoute({
  method: 'get',
  path: '/environments/:environmentUuid/api-keys',
  operationId: 'listApiKeys',
  summary: "The environment's API keys (without their secrets), optionally the one of a display name",
  tag: 'environments',
  auth: 'secret_key',
  scope: 'account:environments:api_keys:list',
  request: { params: envParams, query: z.object({ display_name: displayName.optional() }).strict() },
  responses: { 200: z.object({ data: z.array(listedKey) }) },
  errors: [403, 404],
}).handle(async ({ deps, params, query }) => {
  const env = await findEnvironmentByRef(deps.db, params.environmentUuid);
  const keys = await listApiKeys(deps.db, env.id, query.display_name);
  return { data: keys.map((k) => ({ ...view(k), last_used_at: k.lastUsedAt?.toISOString() ?? null })) };
});

export const createApiKeyRoute = defineRoute({
  method: 'post',
  path: '/environments/:environmentUuid/api-keys',
  operationId: 'createApiKey',
  summary: 'Create an API key of the environment; its secret is in the answer',
  tag: 'environments',
  auth: 'secret_key',
  scope: 'account:environments:api_keys:create',
  request: { params: envParams, body: z.object({ display_name: displayName, scopes }).strict() },
  responses: { 200: createdKey },
  errors: [403, 404, 409],
}).handle(async ({ deps, params, body }) => {
  const env = await findEnvironmentByRef(deps.db, params.environmentUuid);
  return create(deps, env.id, body.display_name, body.scopes);
});

export const getApiKeyRoute = defineRoute({
  method: 'get',
  path: '/environments/:environmentUuid/api-keys/:keyUuid',
  operationId: 'getApiKey',
  summary: 'One API key of the environment, with its secret',
  tag: 'environments',
  auth: 'secret_key',
  scope: 'account:environments:api_keys:read',
  request: { params: keyParams },
  responses: { 200: z.object({ data: listedKey.extend({ secret: z.string() }) }) },
  errors: [403, 404],
}).handle(async ({ deps, params }) => {
  const env = await findEnvironmentByRef(deps.db, params.environmentUuid);
  const key = await getApiKey(deps.db, deps.box, env.id, { uuid: params.keyUuid });
  if (!key) throw new NotFound('not_found', 'API key not found');
  return { data: { ...view(key), last_used_at: key.lastUsedAt?.toISOString() ?? null, secret: key.secret } };
});

export const deleteApiKeyRoute = defineRoute({
  method: 'delete',
  path: '/environments/:environmentUuid/api-keys/:keyUuid',
  operationId: 'deleteApiKey',
  summary: 'Delete an API key; requests with it fail at once',
  tag: 'environments',
  auth: 'secret_key',
  scope: 'account:environments:api_keys:delete',
  request: { params: keyParams },
  responses: { 200: success },
  errors: [403, 404],
}).handle(async ({ deps, params }) => {
  const env = await findEnvironmentByRef(deps.db, params.environmentUuid);
  return remove(deps, env.id, { uuid: params.keyUuid });
});
