/**
 * @module api/routes/scripts — custom integrations: `POST /scripts/deploy/preview` and
 * `POST /scripts/deploy` (what `switchyard deploy` calls, with the target environment's secret
 * key), and `GET /scripts/config` (every script of the environment with its JSON Schemas: Nango's
 * shape by default or with `format=nango`, ours with `format=switchyard`, tool definitions with `format=openai`).
 */
import { z } from 'zod';
import { findEnvironmentBySecretKey, type Environment } from '../../features/environments/store.js';
import { endpointStates, listIntegrations, type Integration } from '../../features/integrations/store.js';
import { UUID_V4 } from '../../lib/crypto.js';
import { BadRequest, UpgradeRequired } from '../../lib/errors.js';
import { findProvider } from '../../features/providers/store.js';
import { activationKeys, prebuiltScriptsOf, scriptsOf, type ScriptHandle } from '../../features/scripts/catalog.js';
import { deploy, previewDeploy, type DeployRequest, type PreviewRequest } from '../../features/scripts/deploy.js';
import { endpointKey } from '../../features/scripts/prebuilt.js';
import { catalogProviderMap } from '../../features/providers/providers.js';
import type { AppDeps } from '../context.js';
import { isBelowMinimum, MIN_CLIENT_VERSION } from '../middleware/client-version.js';
import { defineRoute } from '../route.js';

const SHA256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256, 64 lowercase hex digits');
const MODULE_PATH = z
  .string()
  .max(512)
  .regex(/^[\w@.-]+(\/[\w@.-]+)*\.js$/, 'a relative path ending in .js');

const uploadedScript = z
  .object({
    integration: z.string().min(1).max(255),
    name: z.string().min(1).max(255),
    bundle: z.string().min(1).describe('The IIFE bundle, or with `modules` the entry module of a bundle of ES modules'),
    entry_path: MODULE_PATH.optional().describe("The entry module's path within the build (`<integration>/<type>s/<name>.js`)"),
    modules: z.record(MODULE_PATH, SHA256).optional().describe('Every module the entry imports, directly or not: its path → the sha256 of its code'),
    source: z
      .string()
      .max(2 * 1024 * 1024)
      .optional(),
    manifest: z.record(z.string(), z.unknown()),
  })
  .strict();

const deployBody = z
  .object({
    scripts: z.array(uploadedScript).max(500),
    modules: z
      .record(SHA256, z.string().min(1))
      .optional()
      .describe('Code of the shared modules the scripts import, by sha256 (each once; those the platform keeps from an earlier deploy may be left out)'),
    activate: z.boolean().optional(),
    integrations: z.array(z.string().min(1).max(255)).max(500).optional(),
    // Checked here, not only from the User-Agent, which a proxy or wrapper may replace.
    cli_version: z
      .string()
      .max(64)
      .regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/, 'a version x.y.z'),
  })
  .strict();

// A preview compares, so a script may be named by its bundle's sha256 (`switchyard deploy` uploads each bundle once, to the deploy).
const previewScript = uploadedScript
  .extend({
    bundle: uploadedScript.shape.bundle.optional(),
    sha256: SHA256.optional().describe("Instead of `bundle` (and `modules`): the bundle's sha256, as `switchyard compile` writes it in build/manifest.json"),
  })
  .refine((s) => (s.bundle === undefined) !== (s.sha256 === undefined), { message: 'give either bundle or sha256', path: ['bundle'] })
  .refine((s) => s.sha256 === undefined || s.modules === undefined, { message: 'modules go with a bundle, not with sha256', path: ['modules'] });

const previewBody = deployBody.extend({ scripts: z.array(previewScript).max(500) });

const configQuery = z.object({ format: z.enum(['switchyard', 'nango', 'openai']).optional() }).strict();

const planItem = z.object({ integration: z.string(), name: z.string(), type: z.enum(['sync', 'action', 'on-event']) });
const planResponse = z.object({ new: z.array(planItem), changed: z.array(planItem), removed: z.array(planItem), unchanged: z.array(planItem) });

function previewRequest({ scripts, ...rest }: z.infer<typeof previewBody>): PreviewRequest {
  return {
    ...request({ ...rest, scripts: [] }),
    scripts: scripts.map(({ entry_path, bundle, sha256, modules, ...s }) =>
      sha256 === undefined ? { ...s, entryPath: entry_path, bundle: bundle!, modules } : { ...s, entryPath: entry_path, sha256 },
    ),
  };
}

function request(input: z.infer<typeof deployBody>): DeployRequest {
  if (isBelowMinimum(input.cli_version)) {
    throw new UpgradeRequired(
      'client_upgrade_required',
      `cli_version ${input.cli_version} is no longer supported: upgrade the Switchyard CLI to ${MIN_CLIENT_VERSION} or later, then deploy again.`,
    );
  }
  return {
    scripts: input.scripts.map(({ entry_path, ...s }) => ({ ...s, entryPath: entry_path })),
    modules: input.modules,
    activate: input.activate,
    integrations: input.integrations,
    cliVersion: input.cli_version,
  };
}

export interface ConfiguredScript {
  integration: string;
  provider: string;
  name: string;
  handle: ScriptHandle;
  enabled: boolean;
}

/** Every script of an integration, with whether one of its endpoints is active. */
export async function integrationScripts(deps: AppDeps, integration: Integration): Promise<ConfiguredScript[]> {
  const enabled = new Set((await endpointStates(deps.db, integration.id)).filter((s) => s.enabled).map(endpointKey));
  return (await scriptsOf(deps, integration)).map(([name, handle]) => ({
    integration: integration.uniqueKey,
    provider: integration.provider,
    name,
    handle,
    enabled: activationKeys(handle).some((e) => enabled.has(endpointKey(e))),
  }));
}

/** Every script of every integration of the environment, with whether one of its endpoints is active. */
export async function environmentScripts(deps: AppDeps, env: Environment): Promise<ConfiguredScript[]> {
  const out: ConfiguredScript[] = [];
  for (const integration of await listIntegrations(deps.db, deps.box, env.id)) out.push(...(await integrationScripts(deps, integration)));
  return out;
}

function switchyardShape(s: ConfiguredScript) {
  const h = s.handle;
  const schemas = h.schemas();
  return {
    name: s.name,
    type: h.type,
    source: h.source,
    description: h.description,
    version: h.version,
    deployed_version: h.deployed?.version ?? null,
    last_deployed: h.deployed?.at.toISOString() ?? null,
    enabled: s.enabled,
    endpoints: h.endpoints,
    frequency: h.type === 'sync' ? h.frequency : null,
    auto_start: h.type === 'sync' ? h.autoStart : false,
    sync_type: h.type === 'sync' ? h.syncType : null,
    event: h.type === 'on-event' ? h.event : null,
    scopes: h.scopes,
    models: schemas.models,
    input: schemas.input,
    output: schemas.output,
    metadata: schemas.metadata,
  };
}

const pascal = (name: string) =>
  name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** A script in Nango's shape (its NangoSyncFunction, NangoActionFunction or NangoOnEventFunction, and more). */
export function nangoShape(s: ConfiguredScript) {
  const h = s.handle;
  const schemas = h.schemas();
  const definitions: Record<string, unknown> = { ...schemas.models };
  if (schemas.input) definitions[`${pascal(s.name)}Input`] = schemas.input;
  if (schemas.output) definitions[`${pascal(s.name)}Output`] = schemas.output;
  return {
    name: s.name,
    type: h.type,
    runs: h.type === 'sync' ? h.frequency : null,
    auto_start: h.type === 'sync' ? h.autoStart : false,
    attributes: {},
    description: h.description,
    scopes: h.scopes,
    metadata: { description: h.description, scopes: h.scopes },
    track_deletes: h.type === 'sync' && h.syncType === 'full',
    returns: h.type === 'sync' ? h.modelNames : schemas.output ? [`${pascal(s.name)}Output`] : [],
    endpoints: h.endpoints,
    source: h.source,
    version: h.version ?? (h.deployed ? String(h.deployed.version) : null),
    last_deployed: h.deployed?.at.toISOString() ?? null,
    input: schemas.input ? `${pascal(s.name)}Input` : null,
    ...(h.type === 'sync' ? { sync_type: h.syncType, webhookSubscriptions: h.webhookSubscriptions } : {}),
    enabled: s.enabled,
    json_schema: { definitions },
    sdk_version: null,
    features: [],
  };
}

const deployResponse = planResponse.extend({
  deployment: z.object({ version: z.number(), created_at: z.string() }),
  scripts: z.array(planItem.extend({ version: z.number() })),
});

const switchyardScript = z
  .object({
    name: z.string(),
    type: z.enum(['sync', 'action', 'on-event']),
    enabled: z.boolean(),
    endpoints: z.array(z.object({ method: z.string(), path: z.string(), group: z.string().optional() })),
  })
  .catchall(z.unknown());
const nangoScript = z.object({ name: z.string(), type: z.string(), enabled: z.boolean() }).catchall(z.unknown());
const configResponse = z.union([
  z
    .object({ data: z.array(z.object({ integration: z.string(), provider: z.string(), scripts: z.array(switchyardScript) })) })
    .describe("format=switchyard: our shape, with each script's source, endpoints and JSON Schemas"),
  z
    .object({ data: z.array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })) })
    .describe('format=openai: tool definitions of the actions'),
  z
    .array(
      z.object({
        providerConfigKey: z.string(),
        provider: z.string(),
        syncs: z.array(nangoScript),
        actions: z.array(nangoScript),
        'on-events': z.array(nangoScript),
      }),
    )
    .describe("format=nango (the default): Nango's shape"),
]);

export const previewDeployRoute = defineRoute({
  method: 'post',
  path: '/scripts/deploy/preview',
  operationId: 'previewDeploy',
  summary: 'What a deploy would add, change and remove (validates everything, changes nothing)',
  description: 'A script named by its `sha256` is compared by it, its bundle left to the deploy to load and check.',
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:deploy',
  request: { body: previewBody },
  responses: { 200: planResponse },
  errors: [],
}).handle(async ({ deps, body: input }, c) => previewDeploy(deps, c.get('environment'), previewRequest(input)));

export const deployRoute = defineRoute({
  method: 'post',
  path: '/scripts/deploy',
  operationId: 'deployScripts',
  summary: "Deploy compiled scripts to the key's environment (atomic; schedules follow)",
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:deploy',
  request: { body: deployBody },
  responses: { 200: deployResponse },
  errors: [],
}).handle(async ({ deps, body: input }, c) => {
  const result = await deploy(deps, c.get('environment'), request(input));
  return {
    deployment: { version: result.deployment.version, created_at: result.deployment.createdAt.toISOString() },
    new: result.new,
    changed: result.changed,
    removed: result.removed,
    unchanged: result.unchanged,
    scripts: result.scripts,
  };
});

export const scriptsConfig = defineRoute({
  method: 'get',
  path: '/scripts/config',
  operationId: 'getScriptsConfig',
  summary: 'Every script of the environment (pre-built and deployed) with its JSON Schemas',
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:integrations:list_functions',
  request: { query: configQuery },
  responses: { 200: configResponse },
  errors: [],
}).handle(async ({ deps, query: q }, c) => {
  // Nango's shape by default, as Nango answers a request without `format`; ours with format=switchyard.
  const format = q.format ?? 'nango';
  const scripts = await environmentScripts(deps, c.get('environment'));
  if (format === 'openai') {
    return {
      data: scripts
        .filter((s) => s.handle.type === 'action')
        .map((s) => {
          const input = (s.handle.schemas().input ?? {}) as { properties?: unknown; required?: unknown };
          return {
            name: s.name,
            description: s.handle.description,
            parameters: { type: 'object', properties: input.properties ?? {}, required: input.required ?? [] },
          };
        }),
    };
  }
  const byIntegration = new Map<string, ConfiguredScript[]>();
  for (const s of scripts) byIntegration.set(s.integration, [...(byIntegration.get(s.integration) ?? []), s]);
  if (format === 'nango') {
    return [...byIntegration.values()].map((list) => ({
      providerConfigKey: list[0]!.integration,
      provider: list[0]!.provider,
      syncs: list.filter((s) => s.handle.type === 'sync').map(nangoShape),
      actions: list.filter((s) => s.handle.type === 'action').map(nangoShape),
      'on-events': list.filter((s) => s.handle.type === 'on-event').map(nangoShape),
    }));
  }
  return {
    data: [...byIntegration.values()].map((list) => ({
      integration: list[0]!.integration,
      provider: list[0]!.provider,
      scripts: list.map(switchyardShape),
    })),
  };
});

/**
 * Component schemas for the OpenAPI document: the models (and action inputs and outputs) of the
 * pre-built scripts of every provider and, when the caller sends a secret key, of the scripts
 * deployed to that key's environment.
 */
export async function scriptComponentSchemas(deps: AppDeps, authorization: string | undefined): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const put = (integration: string, name: string, schema: unknown) => {
    if (!schema) return;
    const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
    const key = name in out && JSON.stringify(out[name]) !== JSON.stringify(rest) ? `${integration.replace(/[^a-zA-Z0-9._-]/g, '_')}.${name}` : name;
    out[key] = rest;
  };
  for (const provider of catalogProviderMap().keys()) {
    for (const [name, handle] of prebuiltScriptsOf(provider)) {
      const schemas = handle.schemas();
      for (const [model, schema] of Object.entries(schemas.models)) put(provider, model, schema);
      put(provider, `${pascal(name)}Input`, schemas.input);
      put(provider, `${pascal(name)}Output`, schemas.output);
    }
  }
  const token = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '')?.[1]?.trim();
  const env = token && UUID_V4.test(token) ? await findEnvironmentBySecretKey(deps.db, token) : null;
  if (!env) return out;
  for (const s of await environmentScripts(deps, env)) {
    const schemas = s.handle.schemas();
    for (const [model, schema] of Object.entries(schemas.models)) put(s.integration, model, schema);
    put(s.integration, `${pascal(s.name)}Input`, schemas.input);
    put(s.integration, `${pascal(s.name)}Output`, schemas.output);
  }
  return out;
}

const templateFunction = z
  .object({
    name: z.string(),
    type: z.enum(['sync', 'action']),
    returns: z.array(z.string()),
    json_schema: z.record(z.string(), z.unknown()).nullable(),
    runs: z.string().nullable(),
    auto_start: z.boolean(),
    track_deletes: z.boolean(),
  })
  .catchall(z.unknown());

export const providerTemplates = defineRoute({
  method: 'get',
  path: '/providers/:provider/templates',
  operationId: 'getProviderTemplates',
  summary: "The pre-built syncs and actions Switchyard ships for a provider, in Nango's function shape",
  description:
    'Nango lists its template catalogue here; Switchyard lists its own pre-built integrations (integrations/), which every integration of the provider has and activates by endpoint. A provider with none answers an empty list; an unknown provider 400 unknown_provider.',
  tag: 'scripts',
  auth: 'secret_key',
  scope: [],
  request: { params: z.object({ provider: z.string().min(1).max(255) }).strict() },
  responses: { 200: z.object({ data: z.array(templateFunction) }) },
  errors: [],
}).handle(async ({ deps, params: p }, c) => {
  if (!(await findProvider(deps.db, c.get('environment').id, p.provider)))
    throw new BadRequest('unknown_provider', `Provider ${p.provider} is neither in the catalogue (GET /providers) nor defined in this environment`);
  const data = prebuiltScriptsOf(p.provider)
    .filter(([, handle]) => handle.type !== 'on-event')
    .map(([name, handle]) => {
      const { enabled: _enabled, last_deployed: _deployed, ...shape } = nangoShape({ integration: '', provider: p.provider, name, handle, enabled: false });
      return { ...shape, type: handle.type as 'sync' | 'action' };
    });
  return { data };
});
