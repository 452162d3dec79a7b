/**
 * @module features/scripts/catalog — the scripts of an integration, pre-built (in-process, from the
 * provider's registry) and deployed (sandboxed, from the database), behind one handle: name, type,
 * endpoints, frequency, models, validators and `exec`. A deployed script with the type and name of
 * a pre-built one replaces it on that integration; a sync and an action may share a name, so a
 * lookup by name says which type it wants. Every lookup of the API, the worker and the
 * schedule reconcile goes through here.
 */
import { z } from 'zod';
import type { Config } from '../../lib/config.js';
import { endpointStates, type Integration } from '../integrations/store.js';
import type { Queryable } from '../../lib/db/pool.js';
import { activeScriptsOf, bundleOf, scriptKey, type DeployedScriptRow } from './store.js';
import { builtFrom } from '../records/page-digests.js';
import { DEFAULT_SANDBOX_LIMITS, runSandboxed, type SandboxBundle, type SandboxLimits } from '../../lib/sandbox/index.js';
import { declaredEndpoints, endpointKey, prebuiltEntriesOf } from './prebuilt.js';
import type { AnyScriptDefinition, ConnectionEvent, Endpoint, SyncContext } from '../../sdk/types.js';

type Ctx = SyncContext<Record<string, unknown>, unknown>;

export interface ScriptSchemas {
  models: Record<string, unknown>;
  input: unknown;
  output: unknown;
  metadata: unknown;
}

interface HandleBase {
  name: string;
  source: 'prebuilt' | 'deployed';
  description: string;
  /** The version the script declares, if any. */
  version: string | null;
  /** Deployed scripts: the version number of this deploy of the script, and when. */
  deployed: { version: number; at: Date } | null;
  endpoints: Endpoint[];
  modelNames: string[];
  scopes: string[];
  /** JSON Schemas, for /scripts/config, the OpenAPI document and generated clients. */
  schemas(): ScriptSchemas;
}

export interface SyncHandle extends HandleBase {
  type: 'sync';
  frequency: string;
  autoStart: boolean;
  syncType: 'full' | 'incremental';
  webhookSubscriptions: string[];
  /** Validators of the records it saves, by model name. */
  models: Record<string, z.ZodType>;
  exec(ctx: Ctx): Promise<void>;
  /** Handles a third-party webhook of one of its webhookSubscriptions (absent: the sync has none). */
  onWebhook?(ctx: Ctx, payload: unknown): Promise<void>;
}

/** MCP tool annotations (a `createTool` script's hints for agents). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ActionHandle extends HandleBase {
  type: 'action';
  /** A `createTool` script's title and annotations, shown to agents (MCP). */
  title?: string;
  annotations?: ToolAnnotations;
  /** Null for a function without one: called by its name only. */
  endpoint: Endpoint | null;
  input: z.ZodType;
  output: z.ZodType;
  validateInput(input: unknown): ReturnType<z.ZodType['safeParse']>;
  exec(ctx: Ctx, input: unknown): Promise<unknown>;
}

export interface OnEventHandle extends HandleBase {
  type: 'on-event';
  event: ConnectionEvent;
  /** `limits` tightens the run's time (deployed scripts are stopped by the sandbox at wallMs). */
  exec(ctx: Ctx, limits?: Partial<SandboxLimits>): Promise<void>;
}

export type ScriptHandle = SyncHandle | ActionHandle | OnEventHandle;

export interface CatalogDeps {
  db: Queryable;
  config?: Partial<Pick<Config, 'SWITCHYARD_SCRIPT_MEMORY_LIMIT_MB' | 'SWITCHYARD_SCRIPT_CPU_LIMIT_MS' | 'SWITCHYARD_SCRIPT_TIMEOUT_MS'>>;
}

/** A sync may take as long as its activity allows (12 h), less a margin for the bookkeeping. */
const SYNC_WALL_MS = 11 * 3_600_000;

export function sandboxLimits(config: CatalogDeps['config'], kind: 'action' | 'sync'): SandboxLimits {
  return {
    memoryMb: config?.SWITCHYARD_SCRIPT_MEMORY_LIMIT_MB ?? DEFAULT_SANDBOX_LIMITS.memoryMb,
    cpuMs: config?.SWITCHYARD_SCRIPT_CPU_LIMIT_MS ?? DEFAULT_SANDBOX_LIMITS.cpuMs,
    wallMs: kind === 'sync' ? SYNC_WALL_MS : (config?.SWITCHYARD_SCRIPT_TIMEOUT_MS ?? DEFAULT_SANDBOX_LIMITS.wallMs),
  };
}

// ---- pre-built -------------------------------------------------------------------------------

const jsonSchemaOf = (schema: z.ZodType | undefined, io: 'input' | 'output') => (schema ? z.toJSONSchema(schema, { io, unrepresentable: 'any' }) : null);
const prebuiltSchemas = new WeakMap<object, ScriptSchemas>();

function prebuiltHandle(name: string, def: AnyScriptDefinition): ScriptHandle {
  const schemas = () => {
    let s = prebuiltSchemas.get(def);
    if (!s) {
      s = {
        models: def.type === 'sync' ? Object.fromEntries(Object.entries(def.models).map(([m, schema]) => [m, jsonSchemaOf(schema, 'output')])) : {},
        input: def.type === 'action' ? jsonSchemaOf(def.input, 'input') : null,
        output: def.type === 'action' ? jsonSchemaOf(def.output, 'output') : null,
        metadata: jsonSchemaOf(def.metadata, 'output'),
      };
      prebuiltSchemas.set(def, s);
    }
    return s;
  };
  const base = {
    name,
    source: 'prebuilt' as const,
    description: def.description ?? '',
    version: def.version ?? null,
    deployed: null,
    scopes: ('scopes' in def ? def.scopes : undefined) ?? [],
    schemas,
  };
  if (def.type === 'on-event') {
    return { ...base, type: 'on-event', event: def.event, endpoints: [], modelNames: [], exec: async (ctx) => def.exec(ctx as never) };
  }
  if (def.type === 'action') {
    return {
      ...base,
      type: 'action',
      ...toolHints(def),
      endpoint: declaredEndpoints(def)[0] ?? null,
      endpoints: declaredEndpoints(def),
      modelNames: [],
      input: def.input,
      output: def.output,
      validateInput: (input) => def.input.safeParse(input),
      exec: async (ctx, input) => def.exec(ctx as never, input as never),
    };
  }
  return {
    ...base,
    type: 'sync',
    endpoints: declaredEndpoints(def),
    modelNames: Object.keys(def.models),
    frequency: def.frequency,
    autoStart: def.autoStart ?? false,
    syncType: def.syncType ?? 'full',
    webhookSubscriptions: def.webhookSubscriptions ?? [],
    models: def.models,
    exec: async (ctx) => def.exec(ctx as never),
    ...(def.onWebhook ? { onWebhook: async (ctx: Ctx, payload: unknown) => def.onWebhook!(ctx as never, payload) } : {}),
  };
}

/** The agent-facing hints a `createTool` definition may carry (absent from plain actions). */
function toolHints(def: object): Pick<ActionHandle, 'title' | 'annotations'> {
  const d = def as { title?: unknown; annotations?: unknown };
  return {
    ...(typeof d.title === 'string' ? { title: d.title } : {}),
    ...(d.annotations && typeof d.annotations === 'object' ? { annotations: d.annotations as ToolAnnotations } : {}),
  };
}

// ---- deployed --------------------------------------------------------------------------------

type JsonSchema = Record<string, unknown>;
const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A local `$ref` (`#/$defs/X`, `#/definitions/X`) resolved against the root schema. */
function deref(schema: JsonSchema, root: JsonSchema, depth: number): JsonSchema {
  let s = schema;
  for (let i = 0; i < 32 && typeof s.$ref === 'string' && s.$ref.startsWith('#'); i++) {
    let target: unknown = root;
    for (const part of s.$ref.slice(1).split('/').filter(Boolean)) {
      target = isObject(target) ? target[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    if (!isObject(target) || depth > 64) return {};
    s = { ...target, ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) };
  }
  return s;
}

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v);

/** Whether a value could be of a (sub)schema, judged by its type and its constant properties. */
function fits(value: unknown, schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? null : [schema.type];
  const t = typeOf(value);
  if (types && !types.some((x) => x === t || (x === 'integer' && t === 'number'))) return false;
  if ('const' in schema && schema.const !== value) return false;
  if (!isObject(value) || !isObject(schema.properties)) return true;
  for (const [key, prop] of Object.entries(schema.properties)) {
    if (isObject(prop) && 'const' in prop && value[key] !== prop.const) return false;
    if (isObject(prop) && Array.isArray(prop.enum) && key in value && !prop.enum.includes(value[key])) return false;
  }
  return !Array.isArray(schema.required) || schema.required.every((k) => typeof k !== 'string' || k in value);
}

/**
 * What zod's objects do on parse, applied along a JSON Schema made by zod: keys an object schema
 * does not declare are dropped, unless it allows more (`additionalProperties` true or a schema,
 * patternProperties). Unions follow the first branch the value fits.
 */
export function stripUnknownKeys(value: unknown, schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (!isObject(schema) || depth > 64 || (typeof value !== 'object' && value !== null) || value === null) return value;
  const s = deref(schema, isObject(root) ? root : {}, depth);
  const next = (v: unknown, sub: unknown) => stripUnknownKeys(v, sub, root, depth + 1);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = Array.isArray(s[key]) ? (s[key] as unknown[]).filter(isObject).map((b) => deref(b, isObject(root) ? root : {}, depth)) : [];
    const branch = branches.find((b) => fits(value, b));
    if (branches.length) return branch ? next(value, branch) : value;
  }
  if (Array.isArray(s.allOf)) {
    // Every branch's properties are declared keys; a value is stripped by their union.
    const parts = s.allOf.filter(isObject).map((b) => deref(b, isObject(root) ? root : {}, depth));
    const merged: JsonSchema = {
      ...s,
      allOf: undefined,
      properties: { ...Object.assign({}, ...parts.map((p) => p.properties ?? {})), ...(isObject(s.properties) ? s.properties : {}) },
    };
    if (parts.some((p) => (p.additionalProperties !== undefined && p.additionalProperties !== false) || p.patternProperties))
      merged.additionalProperties = true;
    return next(value, merged);
  }
  if (Array.isArray(value)) {
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
    return value.map((v, i) => next(v, i < prefix.length ? prefix[i] : s.items));
  }
  const props = isObject(s.properties) ? s.properties : null;
  const extra = s.additionalProperties;
  // Only objects with declared properties strip; records (additionalProperties only) pass their values on.
  if (!isObject(value) || (!props && !isObject(extra))) return value;
  const keepsExtra = !props || (extra !== undefined && extra !== false) || isObject(s.patternProperties);
  const out: Record<string, unknown> = {};
  // defineProperty, not assignment: a record's own `__proto__` key stays data instead of becoming out's prototype.
  const keep = (k: string, v: unknown) => Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const [k, v] of Object.entries(value)) {
    if (props && Object.hasOwn(props, k)) keep(k, next(v, props[k]));
    else if (keepsExtra) keep(k, isObject(extra) ? next(v, extra) : v);
  }
  return out;
}

/**
 * A validator built from a manifest's JSON Schema. It parses as the script's own zod schema
 * would: objects strip the keys they do not declare (zod's default; the JSON Schema's
 * `additionalProperties: false` is read as that, not as "refuse"), and a schema zod cannot read
 * validates nothing rather than failing every run.
 */
export function zodFromJsonSchema(schema: unknown): z.ZodType {
  const built = fromJsonSchema(schema);
  // What it does is all in `schema`: a sync run's page digests know it by that (features/records/page-digests.ts).
  builtFrom(built, schema);
  return built;
}

function fromJsonSchema(schema: unknown): z.ZodType {
  if (!schema || typeof schema !== 'object') return z.unknown();
  const loosen = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(loosen);
    if (!v || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k, x]) => !(k === 'additionalProperties' && x === false))
        .map(([k, x]) => [k, loosen(x)]),
    );
  };
  try {
    return (z.fromJSONSchema(loosen(schema) as never) as z.ZodType).transform((value) => stripUnknownKeys(value, schema));
  } catch {
    return z.unknown();
  }
}

const validators = new Map<string, z.ZodType>();
function validator(cacheKey: string, schema: unknown): z.ZodType {
  let v = validators.get(cacheKey);
  if (!v) {
    if (validators.size > 2000) validators.clear();
    v = zodFromJsonSchema(schema);
    validators.set(cacheKey, v);
  }
  return v;
}

const bundles = new Map<string, SandboxBundle>();
const BUNDLE_CACHE_SIZE = 32;

async function loadBundle(db: Queryable, row: DeployedScriptRow): Promise<SandboxBundle> {
  const cached = bundles.get(row.bundleSha256);
  if (cached) return cached;
  const bundle = await bundleOf(db, row.id);
  if (bundle === null) throw new Error(`deployed script ${row.name} (version ${row.version}) no longer exists`);
  if (bundles.size >= BUNDLE_CACHE_SIZE) bundles.delete(bundles.keys().next().value!);
  bundles.set(row.bundleSha256, bundle);
  return bundle;
}

function deployedHandle(deps: CatalogDeps, row: DeployedScriptRow): ScriptHandle {
  const m = row.manifest;
  const key = (what: string) => `${row.bundleSha256}:${what}`;
  const run = async (kind: 'action' | 'sync' | 'event' | 'webhook', ctx: Ctx, input?: unknown, tighter?: Partial<SandboxLimits>) => {
    const bundle = await loadBundle(deps.db, row);
    const limits = { ...sandboxLimits(deps.config, kind === 'sync' ? 'sync' : 'action'), ...tighter };
    if (kind === 'action') return runSandboxed(bundle, { kind, ctx, input }, limits);
    if (kind === 'webhook') return runSandboxed(bundle, { kind, ctx, payload: input }, limits);
    return runSandboxed(bundle, { kind, ctx }, limits);
  };
  const base = {
    name: row.name,
    source: 'deployed' as const,
    description: m.description,
    version: m.version,
    deployed: { version: row.version, at: row.createdAt },
    endpoints: m.endpoints,
    scopes: m.scopes,
    schemas: () => ({ models: m.models, input: m.input, output: m.output, metadata: m.metadata }),
  };
  // Validators are built when first used (then cached by bundle): listing thousands of scripts builds none.
  if (m.type === 'action') {
    return {
      ...base,
      type: 'action',
      endpoint: m.endpoints[0] ?? null,
      modelNames: [],
      get input() {
        return validator(key('input'), m.input);
      },
      get output() {
        return validator(key('output'), m.output);
      },
      validateInput: (value) => validator(key('input'), m.input).safeParse(value),
      exec: (ctx, value) => run('action', ctx, value),
    };
  }
  if (m.type === 'on-event') {
    return { ...base, type: 'on-event', event: m.event!, modelNames: [], exec: async (ctx, limits) => void (await run('event', ctx, undefined, limits)) };
  }
  return {
    ...base,
    type: 'sync',
    frequency: m.frequency!,
    autoStart: m.autoStart,
    syncType: m.syncType ?? 'full',
    webhookSubscriptions: m.webhookSubscriptions,
    modelNames: Object.keys(m.models),
    get models() {
      return Object.fromEntries(Object.entries(m.models).map(([name, schema]) => [name, validator(key(`model:${name}`), schema)]));
    },
    exec: async (ctx) => void (await run('sync', ctx)),
    // The manifest does not say whether the sync has onWebhook: one that subscribes is taken to (the
    // bundle's runtime says so clearly when it has none).
    ...(m.webhookSubscriptions.length ? { onWebhook: async (ctx: Ctx, payload: unknown) => void (await run('webhook', ctx, payload)) } : {}),
  };
}

// ---- lookups ---------------------------------------------------------------------------------

/** The pre-built scripts of a provider (no database involved). */
export function prebuiltScriptsOf(provider: string): [string, ScriptHandle][] {
  return prebuiltEntriesOf(provider).map(([name, def]): [string, ScriptHandle] => [name, prebuiltHandle(name, def)]);
}

/** All scripts of an integration: pre-built ones of its provider, then deployed ones. */
export async function scriptsOf(deps: CatalogDeps, integration: Pick<Integration, 'id' | 'provider'>): Promise<[string, ScriptHandle][]> {
  const deployed = await activeScriptsOf(deps.db, integration.id);
  const replaced = new Set(deployed.map(scriptKey));
  return [
    ...prebuiltEntriesOf(integration.provider)
      .filter(([name, def]) => !replaced.has(scriptKey({ type: def.type, name })))
      .map(([name, def]): [string, ScriptHandle] => [name, prebuiltHandle(name, def)]),
    ...deployed.map((row): [string, ScriptHandle] => [row.name, deployedHandle(deps, row)]),
  ];
}

/** The on-event scripts of an integration for one event, pre-built and deployed. */
export async function onEventScriptsOf(
  deps: CatalogDeps,
  integration: Pick<Integration, 'id' | 'provider'>,
  event: ConnectionEvent,
): Promise<[string, OnEventHandle][]> {
  return (await scriptsOf(deps, integration)).filter((e): e is [string, OnEventHandle] => e[1].type === 'on-event' && e[1].event === event);
}

/** The syncs of an integration that subscribe to a third-party webhook event type (`*`: every type). */
export async function webhookSyncsOf(
  deps: CatalogDeps,
  integration: Pick<Integration, 'id' | 'provider'>,
  type?: string,
): Promise<[string, SyncHandle & Required<Pick<SyncHandle, 'onWebhook'>>][]> {
  return (await scriptsOf(deps, integration)).filter(
    (e): e is [string, SyncHandle & Required<Pick<SyncHandle, 'onWebhook'>>] =>
      e[1].type === 'sync' && e[1].onWebhook !== undefined && (type === undefined || e[1].webhookSubscriptions.some((t) => t === type || t === '*')),
  );
}

type HandleOf<T extends ScriptHandle['type']> = Extract<ScriptHandle, { type: T }>;

/** The script of that type and name (a sync and an action may share a name). */
export async function scriptOf<T extends ScriptHandle['type']>(
  deps: CatalogDeps,
  integration: Pick<Integration, 'id' | 'provider'>,
  type: T,
  name: string,
): Promise<HandleOf<T> | undefined> {
  return scriptIn(await scriptsOf(deps, integration), type, name);
}

/** scriptOf within a list a caller already holds from scriptsOf. */
export function scriptIn<T extends ScriptHandle['type']>(scripts: [string, ScriptHandle][], type: T, name: string): HandleOf<T> | undefined {
  return scripts.find((e): e is [string, HandleOf<T>] => e[0] === name && e[1].type === type)?.[1];
}

/** All models declared by the integration's syncs, for validating what any of its scripts saves. */
export async function modelsOf(deps: CatalogDeps, integration: Pick<Integration, 'id' | 'provider'>): Promise<Record<string, z.ZodType>> {
  return modelsIn(await scriptsOf(deps, integration));
}

/** The models declared by the syncs among `scripts` (a caller that already holds scriptsOf's list). */
export function modelsIn(scripts: [string, ScriptHandle][]): Record<string, z.ZodType> {
  const models: Record<string, z.ZodType> = {};
  for (const [, s] of scripts) if (s.type === 'sync') Object.assign(models, s.models);
  return models;
}

export function endpointsOfScript(s: Pick<ScriptHandle, 'endpoints'>): Endpoint[] {
  return s.endpoints;
}

/**
 * The method of the Endpoints tab's row that activates a function declaring no endpoint (Nango 0.71
 * makes them optional); its path is the function's name. No HTTP method has this name.
 */
export const BY_NAME = 'FUNCTION';

/** What activates a script on an integration: its endpoints, or its name when it declares none. */
export function activationKeys(s: { name: string; endpoints: readonly Endpoint[] }): { method: string; path: string }[] {
  return s.endpoints.length > 0 ? [...s.endpoints] : [{ method: BY_NAME, path: s.name }];
}

/** A script may run only when one of its endpoints (or its name, when it declares none) is activated on the integration. */
export async function isScriptEnabled(db: Queryable, integration: Pick<Integration, 'id'>, s: Pick<ScriptHandle, 'name' | 'endpoints'>): Promise<boolean> {
  return isEnabledIn(await enabledEndpoints(db, integration), s);
}

/** The activated endpoints of an integration (isEnabledIn), for a caller that reads them beside its script. */
export async function enabledEndpoints(db: Queryable, integration: Pick<Integration, 'id'>): Promise<Set<string>> {
  return new Set((await endpointStates(db, integration.id)).filter((e) => e.enabled).map(endpointKey));
}

export function isEnabledIn(enabled: Set<string>, s: Pick<ScriptHandle, 'name' | 'endpoints'>): boolean {
  return activationKeys(s).some((e) => enabled.has(endpointKey(e)));
}
