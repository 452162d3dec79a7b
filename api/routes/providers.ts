/**
 * @module api/routes/providers — the providers an environment can use: the catalogue
 * (features/providers/catalog/) and its own user-defined ones (features/providers/store.ts),
 * answered in Nango's shape (the definition with `name`, `display_name`, `logo_url`, `auth_mode`,
 * `categories`, `docs`, …). User-defined providers are created, replaced and deleted here; a new
 * name may not shadow a catalogue provider, and one is not deleted while an integration uses it.
 * A connect-session token (the end user's browser) reads only the Connect UI's view of a provider.
 */
import { z } from 'zod';
import { isLinkUrl, type ProviderDefinition } from '../../features/providers/definition.js';
import {
  createProvider,
  definitionWarnings,
  deleteProvider,
  listProviders,
  lookupProvider,
  updateProvider,
  userProviderDefinitionSchema,
  type ProviderLookup,
} from '../../features/providers/store.js';
import { NotFound } from '../../lib/errors.js';
import type { Context } from 'hono';
import type { AppDeps, AppEnv } from '../context.js';
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
    /** True for an own provider defined before the catalogue took its name: the own definition is the one used here. */
    shadows_catalog: z.boolean().optional(),
  })
  .catchall(z.unknown());
type ProviderOut = z.output<typeof providerShape>;

const providerParam = z.object({ provider: z.string().min(1).max(64) });
/** Nango's clients may give the connect-session token in the query instead of the Authorization header. */
const tokenQuery = { connect_session_token: z.string().max(256).optional() };
const listQuery = z.object({ search: z.string().max(128).optional(), ...tokenQuery }).strict();
const getQuery = z.object(tokenQuery).strict();

/** The caller's environment, and whether it is an end user's connect session (in the header or, for Nango's clients, the query) rather than a secret key. */
function caller(c: Context<AppEnv>) {
  return { environment: c.get('environment'), endUser: c.get('connectSession') !== null };
}
const one = z.object({ data: providerShape });
const created = z.object({ data: providerShape, warnings: z.array(z.string()) });

export function providerOut(deps: AppDeps, { provider: p, source, shadowsCatalog }: ProviderLookup): ProviderOut {
  const def: ProviderDefinition = p.definition;
  return {
    ...def,
    name: p.name,
    display_name: p.displayName,
    logo_url: `${deps.config.publicUrl}/images/logos/${encodeURIComponent(p.name)}.svg`,
    auth_mode: p.authMode,
    categories: def.categories ?? [],
    docs: p.docs,
    // The definition's fields in their `order`, with `required` (the Connect UI's form) beside Nango's `optional`.
    connection_config: Object.fromEntries(
      Object.entries(p.connectionConfig).map(([k, field]) => [
        k,
        { ...def.connection_config?.[k], title: field.title, description: field.description, required: field.required },
      ]),
    ),
    source,
    ...(shadowsCatalog ? { shadows_catalog: true } : {}),
  };
}

/**
 * What an end user's browser may read of a provider: what the Connect UI (ours, or Nango's) draws
 * its form from. Never the definition's requests (headers, query, token and authorization params,
 * URLs, webhook settings) nor its unknown keys.
 */
function connectUiView(out: ProviderOut): ProviderOut {
  const { name, display_name, logo_url, auth_mode, categories, docs, connection_config, source, credentials, docs_connect } = out;
  return {
    name,
    display_name,
    logo_url,
    auth_mode,
    categories,
    docs,
    connection_config,
    source,
    ...(credentials !== undefined ? { credentials } : {}),
    ...(isLinkUrl(docs_connect) ? { docs_connect } : {}),
  };
}

const viewFor = (deps: AppDeps, endUser: boolean) => (p: ProviderLookup) => (endUser ? connectUiView(providerOut(deps, p)) : providerOut(deps, p));

export const listProvidersRoute = defineRoute({
  method: 'get',
  path: '/providers',
  operationId: 'listProviders',
  summary: "The providers this environment can use: the catalogue and its own (Nango's shape; secret key or connect session)",
  description: '`search` keeps those whose name or display name holds it (case-insensitive).',
  tag: 'providers',
  auth: 'secret_key_or_connect_session',
  scope: [],
  request: { query: listQuery },
  responses: { 200: z.object({ data: z.array(providerShape) }) },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  const { environment, endUser } = caller(c);
  const needle = q.search?.toLowerCase();
  const all = await listProviders(deps.db, environment.id);
  return {
    data: all
      .filter(({ provider }) => !needle || provider.name.toLowerCase().includes(needle) || provider.displayName.toLowerCase().includes(needle))
      .map(viewFor(deps, endUser)),
  };
});

export const getProviderRoute = defineRoute({
  method: 'get',
  path: '/providers/:provider',
  operationId: 'getProvider',
  summary: "One provider, of the catalogue or this environment's own (Nango's shape; secret key or connect session)",
  tag: 'providers',
  auth: 'secret_key_or_connect_session',
  scope: [],
  request: { params: providerParam, query: getQuery },
  responses: { 200: one },
  errors: [404],
}).handle(async ({ deps, params }, c) => {
  const { environment, endUser } = caller(c);
  const p = await lookupProvider(deps.db, environment.id, params.provider);
  if (!p) throw new NotFound('unknown_provider_template', 'No such provider');
  return { data: viewFor(deps, endUser)(p) };
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
  const provider = (await lookupProvider(deps.db, env.id, stored.name))!;
  return reply(201, { data: providerOut(deps, provider), warnings: definitionWarnings(definition) });
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
  const provider = (await lookupProvider(deps.db, env.id, params.provider))!;
  return { data: providerOut(deps, provider), warnings: definitionWarnings(definition) };
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
  await deleteProvider(deps.db, env.id, params.provider);
  return c.body(null, 204);
});
