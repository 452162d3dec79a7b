/**
 * @module api/routes/providers — the providers an environment can use: the catalogue
 * (features/providers/catalog/) and its own user-defined ones (features/providers/store.ts),
 * answered in Nango's shape (the definition with `name`, `display_name`, `logo_url`, `auth_mode`,
 * `categories`, `docs`, …). User-defined providers are created, replaced and deleted here; a name
 * may not shadow a catalogue provider, and one is not deleted while an integration uses it.
 */
import { z } from 'zod';
import type { ProviderDefinition } from '../../features/providers/definition.js';
import {
  createProvider,
  definitionWarnings,
  deleteProvider,
  findProvider,
  isCatalogProvider,
  listProviders,
  updateProvider,
  userProviderDefinitionSchema,
  type ProviderSource,
} from '../../features/providers/store.js';
import type { Provider } from '../../features/providers/providers.js';
import { NotFound } from '../../lib/errors.js';
import type { Context } from 'hono';
import type { AppDeps, AppEnv } from '../context.js';
import { secretKeyOrSession, sessionForToken } from '../middleware/connect-session.js';
import { defineRoute } from '../route.js';

const fieldOut = z.object({ title: z.string(), description: z.string(), required: z.boolean() }).catchall(z.unknown());

/** One provider as Nango answers it (the definition's own keys, unknown ones included), plus where it comes from. */
export const providerShape = z
  .object({
    name: z.string(),
    display_name: z.string(),
    logo_url: z.string(),
    auth_mode: z.string(),
    categories: z.array(z.string()),
    docs: z.string(),
    connection_config: z.record(z.string(), fieldOut),
    /** `catalog`: shipped with Switchyard; `user`: defined in this environment. */
    source: z.enum(['catalog', 'user']),
  })
  .catchall(z.unknown());
type ProviderOut = z.output<typeof providerShape>;

const providerParam = z.object({ provider: z.string().min(1).max(64) });
/** Nango's clients may give the connect-session token in the query instead of the Authorization header. */
const tokenQuery = { connect_session_token: z.string().max(256).optional() };
const listQuery = z.object({ search: z.string().max(128).optional(), ...tokenQuery }).strict();
const getQuery = z.object(tokenQuery).strict();

/** The caller's environment: a secret key or a connect-session token, in the header or (for Nango's clients) the query. */
async function callerEnvironment(deps: AppDeps, c: Context<AppEnv>, token: string | undefined) {
  if (token && !c.req.header('authorization')) return (await sessionForToken(deps, token)).environment;
  return (await secretKeyOrSession(deps, c)).environment;
}
const one = z.object({ data: providerShape });
const created = z.object({ data: providerShape, warnings: z.array(z.string()) });

export function providerOut(deps: AppDeps, p: Provider, source: ProviderSource): ProviderOut {
  const def: ProviderDefinition = p.definition;
  return {
    ...def,
    name: p.name,
    display_name: p.displayName,
    logo_url: `${deps.config.publicUrl}/images/logos/${encodeURIComponent(p.name)}.svg`,
    auth_mode: p.authMode,
    categories: def.categories ?? [],
    docs: p.docs,
    // The definition's fields with `required` (the Connect UI's form) beside Nango's `optional`.
    connection_config: Object.fromEntries(
      Object.entries(def.connection_config ?? {}).map(([k, f]) => [
        k,
        {
          ...f,
          title: p.connectionConfig[k]?.title ?? k,
          description: p.connectionConfig[k]?.description ?? k,
          required: p.connectionConfig[k]?.required ?? !f.optional,
        },
      ]),
    ),
    source,
  };
}

const sourceOf = (name: string): ProviderSource => (isCatalogProvider(name) ? 'catalog' : 'user');

export const listProvidersRoute = defineRoute({
  method: 'get',
  path: '/providers',
  operationId: 'listProviders',
  summary: "The providers this environment can use: the catalogue and its own (Nango's shape; secret key or connect session)",
  description: '`search` keeps those whose name or display name holds it (case-insensitive).',
  tag: 'providers',
  auth: 'secret_key_or_connect_session',
  request: { query: listQuery },
  responses: { 200: z.object({ data: z.array(providerShape) }) },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  const environment = await callerEnvironment(deps, c, q.connect_session_token);
  const needle = q.search?.toLowerCase();
  const all = await listProviders(deps.db, environment.id);
  return {
    data: all
      .filter(({ provider }) => !needle || provider.name.toLowerCase().includes(needle) || provider.displayName.toLowerCase().includes(needle))
      .map(({ provider, source }) => providerOut(deps, provider, source)),
  };
});

export const getProviderRoute = defineRoute({
  method: 'get',
  path: '/providers/:provider',
  operationId: 'getProvider',
  summary: "One provider, of the catalogue or this environment's own (Nango's shape; secret key or connect session)",
  tag: 'providers',
  auth: 'secret_key_or_connect_session',
  request: { params: providerParam, query: getQuery },
  responses: { 200: one },
  errors: [404],
}).handle(async ({ deps, params, query: q }, c) => {
  const environment = await callerEnvironment(deps, c, q.connect_session_token);
  const p = await findProvider(deps.db, environment.id, params.provider);
  if (!p) throw new NotFound('unknown_provider_template', 'No such provider');
  return { data: providerOut(deps, p, sourceOf(p.name)) };
});

export const createProviderRoute = defineRoute({
  method: 'post',
  path: '/providers',
  operationId: 'createProvider',
  summary: "Define a provider in this environment (an entry of Nango's providers.yaml, with its name)",
  description:
    'Unknown keys are kept and listed in `warnings`. 409 when the name is a catalogue provider or already defined here; 400 naming the field for a bad field or an unknown `auth_mode`.',
  tag: 'providers',
  auth: 'secret_key',
  request: { body: userProviderDefinitionSchema },
  responses: { 201: created },
  errors: [409],
}).handle(async ({ deps, body: definition, reply }, c) => {
  const env = c.get('environment');
  const stored = await createProvider(deps.db, env.id, definition);
  const provider = (await findProvider(deps.db, env.id, stored.name))!;
  return reply(201, { data: providerOut(deps, provider, 'user'), warnings: definitionWarnings(definition) });
});

export const replaceProviderRoute = defineRoute({
  method: 'put',
  path: '/providers/:provider',
  operationId: 'replaceProvider',
  summary: "Replace a user-defined provider's definition (its name cannot change)",
  description: '404 for a catalogue provider or an unknown name; 400 when the body names another provider.',
  tag: 'providers',
  auth: 'secret_key',
  request: { params: providerParam, body: userProviderDefinitionSchema },
  responses: { 200: created },
  errors: [404],
}).handle(async ({ deps, params, body: definition }, c) => {
  const env = c.get('environment');
  await updateProvider(deps.db, env.id, params.provider, definition);
  const provider = (await findProvider(deps.db, env.id, params.provider))!;
  return { data: providerOut(deps, provider, 'user'), warnings: definitionWarnings(definition) };
});

export const deleteProviderRoute = defineRoute({
  method: 'delete',
  path: '/providers/:provider',
  operationId: 'deleteProvider',
  summary: 'Delete a user-defined provider (refused while an integration uses it)',
  description: '404 for a catalogue provider or an unknown name; 409 while an integration of this environment uses it.',
  tag: 'providers',
  auth: 'secret_key',
  request: { params: providerParam },
  responses: { 204: { description: 'Deleted' } },
  errors: [404, 409],
}).handle(async ({ deps, params }, c) => {
  const env = c.get('environment');
  if (isCatalogProvider(params.provider)) throw new NotFound('unknown_provider', `"${params.provider}" is a catalogue provider; only your own can be deleted`);
  await deleteProvider(deps.db, env.id, params.provider);
  return c.body(null, 204);
});
