/**
 * @module api/routes/integrations — integrations: the Authorization tab (credentials, stored
 * encrypted) and the Endpoints tab (activate the endpoints the integration's scripts declare).
 */
import { z } from 'zod';
import {
  deleteIntegration,
  endpointStates,
  insertIntegration,
  listIntegrations,
  setEndpointStates,
  updateIntegration,
  type Integration,
} from '../../features/integrations/store.js';
import type { Environment } from '../../features/environments/store.js';
import { requireIntegration } from '../../features/connections/resolve.js';
import { BadRequest, ValidationFailed } from '../../lib/errors.js';
import { integrationCredentials } from '../../features/connections/credentials.js';
import { integrationConfigSchema, type Provider } from '../../features/providers/providers.js';
import { findProvider } from '../../features/providers/store.js';
import { publicIntegration } from '../../features/integrations/present.js';
import { grants } from '../../features/environments/scopes.js';
import { endpointKey } from '../../features/scripts/prebuilt.js';
import { activationKeys, BY_NAME, scriptsOf } from '../../features/scripts/catalog.js';
import { SCRIPT_NAME } from '../../features/scripts/manifest.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';

export const uniqueKeySchema = z
  .string()
  .regex(/^[a-zA-Z0-9~:.@ _-]+$/, 'letters, digits and ~:.@ _-')
  .max(255);

const createBody = z
  .object({
    provider: z.string().min(1),
    unique_key: uniqueKeySchema,
    display_name: z.string().min(1).max(255).optional(),
    forward_webhooks: z.boolean().optional(),
    credentials: integrationCredentials.optional(),
    integration_config: integrationConfigSchema.optional(),
    custom: z.record(z.string(), z.string()).optional(),
  })
  .strict();

const patchBody = createBody.omit({ provider: true }).partial().strict();

const includeQuery = z.object({ include: z.union([z.enum(['webhook', 'credentials']), z.array(z.enum(['webhook', 'credentials']))]).optional() }).strict();

const endpointItem = z.union([
  z.object({ method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']), path: z.string().startsWith('/'), enabled: z.boolean() }).strict(),
  // A function that declares no endpoint is activated by its name (the row's path).
  z.object({ method: z.literal(BY_NAME), path: z.string().regex(SCRIPT_NAME), enabled: z.boolean() }).strict(),
]);
const endpointsPatch = z.object({ endpoints: z.array(endpointItem).min(1).max(500) }).strict();
export const keyParam = z.object({ uniqueKey: uniqueKeySchema });

export const integrationResponse = z.object({
  unique_key: z.string(),
  provider: z.string(),
  display_name: z.string(),
  logo: z.string(),
  forward_webhooks: z.boolean(),
  integration_config: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  webhook_url: z.string().optional(),
  credentials: z.unknown().optional(),
});

function mask(secret: string): string {
  return secret.length <= 4 ? '****' : `${'*'.repeat(Math.min(12, secret.length - 4))}${secret.slice(-4)}`;
}

async function present(deps: AppDeps, env: Environment, i: Integration, include: string[]): Promise<z.infer<typeof integrationResponse>> {
  return publicIntegration(deps, env, i, include);
}

/** The Authorization tab never shows secrets back in full except on an explicit include. */
export function credentialsSummary(i: Integration): Record<string, unknown> | null {
  if (!i.credentials) return null;
  return {
    type: i.credentials.type,
    client_id: i.credentials.client_id,
    client_secret: mask(i.credentials.client_secret),
    scopes: i.credentials.scopes ?? '',
    webhook_secret: i.credentials.webhook_secret ? mask(i.credentials.webhook_secret) : null,
  };
}

/** Auth modes that take an OAuth 2 client id and secret (an MCP server's, when the developer registered it). */
const OAUTH2_CLIENT_MODES = new Set(['OAUTH2_CC', 'MCP_OAUTH2', 'MCP_OAUTH2_GENERIC']);

function checkCompatible(provider: Provider, credentials: z.infer<typeof integrationCredentials> | undefined | null): void {
  if (credentials && credentials.type !== provider.authMode && !(credentials.type === 'OAUTH2' && OAUTH2_CLIENT_MODES.has(provider.authMode))) {
    throw new ValidationFailed('invalid_body', [
      {
        code: 'invalid_credentials',
        message: `incompatible credentials auth type ${credentials.type} and provider auth ${provider.authMode}`,
        path: ['credentials', 'type'],
      },
    ]);
  }
}

export async function integrationOr404(deps: AppDeps, env: Environment, uniqueKey: string): Promise<Integration> {
  return requireIntegration(deps.lookups, env, uniqueKey, 'integration');
}

export interface EndpointRow {
  method: string;
  path: string;
  script: string;
  type: 'sync' | 'action';
  enabled: boolean;
}

export async function endpointsOf(deps: AppDeps, integration: Integration): Promise<EndpointRow[]> {
  const states = new Map((await endpointStates(deps.db, integration.id)).map((s) => [endpointKey(s), s.enabled]));
  return (await scriptsOf(deps, integration)).flatMap(([name, script]) =>
    script.type === 'on-event'
      ? []
      : activationKeys(script).map((e) => ({ method: e.method, path: e.path, script: name, type: script.type, enabled: states.get(endpointKey(e)) ?? false })),
  );
}

const endpointRow = z.object({ method: z.string(), path: z.string(), script: z.string(), type: z.enum(['sync', 'action']), enabled: z.boolean() });
const endpointsResponse = z.object({ data: z.array(endpointRow) });
const oneIntegration = z.object({ data: integrationResponse });
const success = z.object({ success: z.literal(true) });

export const listIntegrationsRoute = defineRoute({
  method: 'get',
  path: '/integrations',
  operationId: 'listIntegrations',
  summary: 'List integrations (secret key or connect session)',
  tag: 'integrations',
  auth: 'secret_key_or_connect_session',
  scope: ['environment:integrations:list', 'environment:integrations:list_credentials'],
  responses: { 200: z.object({ data: z.array(integrationResponse) }) },
  errors: [],
}).handle(async ({ deps }, c) => {
  const environment = c.get('environment');
  const session = c.get('connectSession');
  let list = await listIntegrations(deps.db, deps.box, environment.id);
  if (session?.allowedIntegrations) list = list.filter((i) => session.allowedIntegrations!.includes(i.uniqueKey));
  return { data: await Promise.all(list.map((i) => present(deps, environment, i, []))) };
});

export const createIntegration = defineRoute({
  method: 'post',
  path: '/integrations',
  operationId: 'createIntegration',
  summary: 'Create an integration',
  tag: 'integrations',
  auth: 'secret_key',
  scope: 'environment:integrations:create',
  request: { body: createBody },
  responses: { 200: oneIntegration },
  errors: [],
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
  checkCompatible(await providerOrInvalid(deps, env, input.provider), input.credentials);
  return { data: await create(deps, env, input) };
});

async function providerOrInvalid(deps: AppDeps, env: Environment, name: string): Promise<Provider> {
  const provider = await findProvider(deps.db, env.id, name);
  if (provider) return provider;
  throw new ValidationFailed('invalid_body', [
    {
      code: 'invalid_string',
      message: `Invalid provider: ${name} is neither in the catalogue (GET /providers) nor defined in this environment`,
      path: ['provider'],
    },
  ]);
}

async function create(deps: AppDeps, env: Environment, input: z.output<typeof createBody>) {
  const created = await insertIntegration(deps.db, deps.box, env.id, {
    uniqueKey: input.unique_key,
    provider: input.provider,
    displayName: input.display_name,
    credentials: input.credentials,
    integrationConfig: input.integration_config,
    custom: input.custom,
    forwardWebhooks: input.forward_webhooks,
  });
  if (!created) throw new ValidationFailed('invalid_body', [{ code: 'invalid_string', message: 'Unique key already exists', path: ['unique_key'] }]);
  return present(deps, env, created, []);
}

export const createQuickstartIntegration = defineRoute({
  method: 'post',
  path: '/integrations/quickstart',
  operationId: 'createQuickstartIntegration',
  summary: 'Create an integration without a developer app of your own (providers whose auth needs none)',
  description:
    "Nango's quickstart lends a Nango-owned developer app; Switchyard has none to lend. A provider whose auth needs no developer app (API key, basic, none, …) gets its integration created, as POST /integrations would; one that needs an OAuth client answers 400 quickstart_unavailable: create it with POST /integrations and your own client credentials.",
  tag: 'integrations',
  auth: 'secret_key',
  scope: 'environment:integrations:create',
  request: { body: createBody.pick({ unique_key: true, provider: true, display_name: true, forward_webhooks: true }).strict() },
  responses: { 200: z.object({ data: z.array(integrationResponse) }) },
  errors: [],
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
  const provider = await providerOrInvalid(deps, env, input.provider);
  // OAuth 2 needs a developer app (the integration's OAuth client), which Nango's quickstart lends; client-credentials
  // connections bring their own client, and the other modes need none.
  if (provider.authMode === 'OAUTH2') {
    throw new BadRequest(
      'quickstart_unavailable',
      `${input.provider} (${provider.authMode}) needs a developer app, and Switchyard has no shared one to lend: create the integration with POST /integrations and your own OAuth client credentials`,
    );
  }
  return { data: [await create(deps, env, input)] };
});

export const getIntegrationRoute = defineRoute({
  method: 'get',
  path: '/integrations/:uniqueKey',
  operationId: 'getIntegration',
  summary: 'Get an integration',
  tag: 'integrations',
  auth: 'secret_key',
  scope: ['environment:integrations:read', 'environment:integrations:read_credentials'],
  request: { params: keyParam, query: includeQuery },
  responses: { 200: oneIntegration },
  errors: [404],
}).handle(async ({ deps, params, query: q }, c) => {
  const env = c.get('environment');
  const asked = q.include === undefined ? [] : Array.isArray(q.include) ? q.include : [q.include];
  // As Nango: credentials only for a key that may read them; asked for without it, they are left out.
  const inc = grants(c.get('grantedScopes'), 'environment:integrations:read_credentials') ? asked : asked.filter((i) => i !== 'credentials');
  const integration = await integrationOr404(deps, env, params.uniqueKey);
  return { data: await present(deps, env, integration, inc) };
});

export const updateIntegrationRoute = defineRoute({
  method: 'patch',
  path: '/integrations/:uniqueKey',
  operationId: 'updateIntegration',
  summary: 'Update an integration (Authorization tab)',
  tag: 'integrations',
  auth: 'secret_key',
  scope: 'environment:integrations:update',
  request: { params: keyParam, body: patchBody },
  responses: { 200: oneIntegration },
  errors: [404],
}).handle(async ({ deps, params, body: input }, c) => {
  const env = c.get('environment');
  const current = await integrationOr404(deps, env, params.uniqueKey);
  const provider = await findProvider(deps.db, env.id, current.provider);
  if (provider) checkCompatible(provider, input.credentials);
  const updated = await updateIntegration(deps.db, deps.box, current, {
    uniqueKey: input.unique_key,
    displayName: input.display_name,
    credentials: input.credentials,
    integrationConfig: input.integration_config,
    custom: input.custom,
    forwardWebhooks: input.forward_webhooks,
  });
  if (!updated) throw new ValidationFailed('invalid_body', [{ code: 'invalid_string', message: 'Unique key already exists', path: ['unique_key'] }]);
  return { data: await present(deps, env, updated, []) };
});

export const deleteIntegrationRoute = defineRoute({
  method: 'delete',
  path: '/integrations/:uniqueKey',
  operationId: 'deleteIntegration',
  summary: 'Delete an integration and its connections',
  tag: 'integrations',
  auth: 'secret_key',
  scope: 'environment:integrations:delete',
  request: { params: keyParam },
  responses: { 200: success },
  errors: [404],
}).handle(async ({ deps, params }, c) => {
  const env = c.get('environment');
  const integration = await integrationOr404(deps, env, params.uniqueKey);
  await deps.lifecycle.integrationDeleting(env, integration);
  await deleteIntegration(deps.db, integration.id);
  return { success: true as const };
});

export const listIntegrationEndpoints = defineRoute({
  method: 'get',
  path: '/integrations/:uniqueKey/endpoints',
  operationId: 'listIntegrationEndpoints',
  summary: 'The Endpoints tab: declared endpoints and whether each is activated (a function without endpoints has one row, method FUNCTION, path its name)',
  tag: 'integrations',
  auth: 'secret_key',
  scope: ['environment:integrations:read', 'environment:integrations:read_credentials'],
  request: { params: keyParam },
  responses: { 200: endpointsResponse },
  errors: [404],
}).handle(async ({ deps, params }, c) => {
  const integration = await integrationOr404(deps, c.get('environment'), params.uniqueKey);
  return { data: await endpointsOf(deps, integration) };
});

export const updateIntegrationEndpoints = defineRoute({
  method: 'patch',
  path: '/integrations/:uniqueKey/endpoints',
  operationId: 'updateIntegrationEndpoints',
  summary: 'Activate or deactivate endpoints',
  tag: 'integrations',
  auth: 'secret_key',
  scope: 'environment:integrations:update',
  request: { params: keyParam, body: endpointsPatch },
  responses: { 200: endpointsResponse },
  errors: [404],
}).handle(async ({ deps, params, body: input }, c) => {
  const integration = await integrationOr404(deps, c.get('environment'), params.uniqueKey);
  const declared = new Set((await endpointsOf(deps, integration)).map(endpointKey));
  const unknown = input.endpoints.map((e, i) => [e, i] as const).filter(([e]) => !declared.has(endpointKey(e)));
  if (unknown.length) {
    throw new ValidationFailed(
      'invalid_body',
      unknown.map(([e, i]) => ({
        code: 'unknown_endpoint',
        message: `${e.method} ${e.path} is not declared by any script of this integration`,
        path: ['endpoints', i],
      })),
    );
  }
  await setEndpointStates(deps.db, integration.id, input.endpoints);
  await deps.lifecycle.endpointsChanged(c.get('environment'), integration);
  return { data: await endpointsOf(deps, integration) };
});
