/**
 * @module cli/dryrun — `switchyard dryrun <script> <connection-id>`: runs one script on this
 * machine, in the same sandbox as the worker, against a real connection. Its HTTP calls go through
 * the platform's proxy (`/proxy/*` with Connection-Id and Provider-Config-Key, marked as a dry
 * run); nothing is saved: records, deletions, metadata and checkpoints are printed, with the
 * records and the output checked against their schemas.
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { UpstreamHttpError } from '../lib/http/index.js';
import { DEFAULT_SANDBOX_LIMITS, runSandboxed, SandboxError, ScriptError } from '../lib/sandbox/index.js';
import { zodFromJsonSchema } from '../features/scripts/catalog.js';
import { paginate, queryOf } from '../features/scripts/paginate.js';
import { responseData } from '../features/scripts/response-data.js';
import { logLine, withHelpers, type Helpers } from '../sdk/helpers.js';
import { ActionError } from '../sdk/errors.js';
import type { ConnectionInfo, HttpMethod, ProxyConfig, ScriptResponse, SyncContext } from '../sdk/types.js';
import { Api } from './api.js';
import { buildScript } from './build.js';
import { checkZod, requireScripts, type ScriptFile } from './project.js';
import { bold, CliError, dim, green, info, red, step } from './ui.js';

export interface DryrunOptions {
  dir: string;
  script: string;
  connectionId: string;
  env: string;
  integration?: string;
  /** The script's type, when a sync and an action share its name. */
  type?: string;
  input?: string;
  metadata?: string;
  checkpoint?: string;
}

function jsonArg(flag: string, value: string | undefined): unknown {
  if (value === undefined) return undefined;
  const text = value.startsWith('@') ? readFileSync(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`--${flag} is not valid JSON: ${(err as Error).message}`, `pass JSON, e.g. --${flag} '{"name":"x"}', or a file as --${flag} @file.json`);
  }
}

function pickScript(scripts: ScriptFile[], name: string, integration: string | undefined, type: string | undefined): ScriptFile {
  const matches = scripts.filter((s) => s.name === name && (!integration || s.integration === integration) && (!type || s.kind === type));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new CliError(
      `No script named ${name}${integration ? ` in ${integration}/` : ''}`,
      `use one of: ${scripts.map((s) => `${s.name} (${s.integration})`).join(', ')}`,
    );
  }
  const integrations = [...new Set(matches.map((s) => s.integration))];
  if (integrations.length === 1) {
    throw new CliError(
      `${integrations[0]} has ${matches.map((s) => `${s.kind === 'action' ? 'an' : 'a'} ${s.kind}`).join(' and ')} named ${name}`,
      `pass --type ${matches[0]!.kind}`,
    );
  }
  throw new CliError(`${name} exists in several integrations (${integrations.join(', ')})`, 'pass --integration <key>');
}

const issuesOf = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);

export async function dryrun(o: DryrunOptions): Promise<number> {
  await checkZod(o.dir);
  const script = pickScript(await requireScripts(o.dir), o.script, o.integration, o.type);
  const integration = o.integration ?? script.integration;
  const api = new Api(o.env);
  const built = await step(`Bundling ${script.integration}/${script.name}`, () => buildScript(o.dir, script));
  const m = built.manifest;
  const input = jsonArg('input', o.input);
  const metadataOverride = jsonArg('metadata', o.metadata) as Record<string, unknown> | undefined;
  const checkpoint = jsonArg('checkpoint', o.checkpoint);

  const connection = await step(`Reading connection ${o.connectionId} of ${integration} (${o.env})`, async () => {
    const res = await api.fetch(`/connections/${encodeURIComponent(o.connectionId)}?provider_config_key=${encodeURIComponent(integration)}`);
    if (res.status === 404 || res.status === 400) {
      throw new CliError(
        `No connection '${o.connectionId}' on the integration '${integration}' in ${o.env}`,
        'check the connection id (GET /connections) and the integration key (the project folder, or --integration)',
      );
    }
    if (!res.ok) throw api.failure(res.status, (await res.json().catch(() => null)) as never, '');
    return (await res.json()) as {
      connection_id: string;
      provider_config_key: string;
      provider: string;
      connection_config?: Record<string, unknown>;
      metadata?: Record<string, unknown> | null;
      created_at?: string;
      updated_at?: string;
    };
  });

  // Models the script may save: its own, and those of the integration's deployed syncs.
  const schemas: Record<string, unknown> = {};
  try {
    const config = await api.json<{ data: { integration: string; scripts: { models: Record<string, unknown> }[] }[] }>(
      'GET',
      '/scripts/config?format=switchyard',
    );
    for (const i of config.data.filter((x) => x.integration === integration)) for (const s of i.scripts) Object.assign(schemas, s.models);
  } catch {
    // Older platforms: the script's own models are enough.
  }
  Object.assign(schemas, m.models);
  const validators = Object.fromEntries(Object.entries(schemas).map(([k, v]) => [k, zodFromJsonSchema(v)]));

  const saved: Record<string, unknown[]> = {};
  const updated: Record<string, unknown[]> = {};
  const deleted: Record<string, unknown[]> = {};
  const problems: string[] = [];
  let metadataSet: unknown;
  let checkpointSaved: unknown;

  async function send(rawMethod: string, config: ProxyConfig): Promise<ScriptResponse> {
    const method = rawMethod.toUpperCase() as HttpMethod;
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(queryOf(config.params))) if (v !== undefined) query.append(k, String(v));
    const endpoint = config.endpoint.startsWith('/') ? config.endpoint : `/${config.endpoint}`;
    const url = `/proxy${endpoint}${query.size ? `${endpoint.includes('?') ? '&' : '?'}${query}` : ''}`;
    const headers: Record<string, string> = {
      'connection-id': o.connectionId,
      'provider-config-key': integration,
      'nango-is-dry-run': 'true',
      ...(config.retries ? { retries: String(config.retries) } : {}),
      ...(config.baseUrlOverride ? { 'base-url-override': config.baseUrlOverride } : {}),
      ...Object.fromEntries(Object.entries(config.headers ?? {}).map(([k, v]) => [`switchyard-proxy-${k}`, v])),
    };
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (config.data instanceof Uint8Array) body = new Uint8Array(config.data);
    else if (config.data !== undefined) {
      body = typeof config.data === 'string' ? config.data : JSON.stringify(config.data);
      if (typeof config.data !== 'string') headers['content-type'] = 'application/json';
    }
    const res = await api.fetch(url, { method, headers, body });
    const bytes = Buffer.from(await res.arrayBuffer());
    const resHeaders = Object.fromEntries(res.headers.entries());
    if (res.status >= 400) throw new UpstreamHttpError(res.status, resHeaders, responseData(bytes, resHeaders, undefined), `${method} ${endpoint}`);
    return { status: res.status, headers: resHeaders, data: responseData(bytes, resHeaders, config.responseType) };
  }

  function validate(model: string, records: { id: string | number }[]): { id: string }[] {
    const schema = validators[model];
    if (!schema) {
      problems.push(`model ${model} is not declared by any sync of ${integration}; ${records.length} record(s) would be refused`);
      return [];
    }
    const good: { id: string }[] = [];
    for (const r of records) {
      const result = schema.safeParse(r);
      if (result.success && typeof (r as { id?: unknown }).id === 'string') good.push(r as { id: string });
      else
        problems.push(`${model} ${JSON.stringify((r as { id?: unknown }).id)}: ${result.success ? 'id must be a string' : issuesOf(result.error).join('; ')}`);
    }
    return good;
  }

  const connectionInfo: ConnectionInfo = {
    connection_id: connection.connection_id,
    provider_config_key: connection.provider_config_key,
    connection_config: connection.connection_config ?? {},
    connectionId: connection.connection_id,
    providerConfigKey: connection.provider_config_key,
    provider: connection.provider,
    connectionConfig: connection.connection_config ?? {},
    metadata: metadataOverride ?? connection.metadata ?? null,
    // A dry run does not read the connection's secrets.
    credentials: { type: 'NONE' },
    created_at: connection.created_at ?? '',
    updated_at: connection.updated_at ?? '',
  };
  const tracked = new Set<string>();
  const swept = new Set<string>();
  const ctx: SyncContext<Record<string, unknown>, unknown> = withHelpers<Omit<SyncContext<Record<string, unknown>, unknown>, keyof Helpers>>({
    connectionId: o.connectionId,
    providerConfigKey: integration,
    provider: connection.provider,
    get: (c) => send('GET', c) as never,
    post: (c) => send('POST', c) as never,
    put: (c) => send('PUT', c) as never,
    patch: (c) => send('PATCH', c) as never,
    delete: (c) => send('DELETE', c) as never,
    proxy: (c) => send(c.method ?? 'GET', c) as never,
    paginate: (c) => paginate((cfg) => send(cfg.method ?? 'GET', cfg), c) as never,
    getConnection: async () => connectionInfo,
    getToken: async () => {
      throw new Error("a dry run does not read the connection's credentials (getToken)");
    },
    getMetadata: async <T>() => (metadataOverride ?? connection.metadata ?? {}) as T,
    setMetadata: async (value) => void (metadataSet = value),
    updateMetadata: async (value) => void (metadataSet = { ...(metadataOverride ?? connection.metadata ?? {}), ...(metadataSet as object), ...value }),
    getEnvironmentVariables: async () => [],
    getWebhookURL: async () => null,
    getIntegration: async () => {
      throw new Error("a dry run does not read the integration (getIntegration): it runs on the platform's workers");
    },
    // From this machine, as the script asks: no credentials are added.
    uncontrolledFetch: (o) =>
      fetch(typeof o.url === 'string' ? o.url : o.url.href, { method: o.method, headers: o.headers, body: o.body ?? undefined, redirect: 'manual' }),
    batchSave: async (records, model) => ((saved[model] ??= []).push(...validate(model, records)), true),
    batchUpdate: async (records, model) => ((updated[model] ??= []).push(...records), true),
    batchDelete: async (records, model) => ((deleted[model] ??= []).push(...records.map((r) => r.id)), true),
    log: (...args) => {
      const line = logLine(args);
      info(`  ${dim(line.level === 'info' ? 'log' : line.level)} ${line.message}${line.fields ? ` ${JSON.stringify(line.fields)}` : ''}`);
    },
    getCheckpoint: async () => checkpoint ?? null,
    saveCheckpoint: async (value) => void (checkpointSaved = value),
    clearCheckpoint: async () => void (checkpointSaved = null),
    deleteRecordsFromPreviousExecutions: async (model) => void swept.add(model),
    trackDeletesStart: async (model) => void tracked.add(model),
    trackDeletesEnd: async (model) => void swept.add(model),
    isFullSync: checkpoint === undefined,
    variant: 'base',
  });

  let output: unknown;
  let failed: string | null = null;
  if (m.type === 'action') {
    const parsed = zodFromJsonSchema(m.input).safeParse(input ?? {});
    if (!parsed.success) {
      info(bold('Input problems (the platform would answer 400 invalid_action_input):'));
      for (const p of issuesOf(parsed.error)) info(`  ${red('✗')} ${p}`);
      return 1;
    }
  }
  try {
    output = await step(`Running ${script.name} (dry run: nothing is saved)`, () =>
      m.type === 'action'
        ? runSandboxed(built.bundle, { kind: 'action', ctx, input: input ?? {} }, DEFAULT_SANDBOX_LIMITS)
        : m.type === 'sync'
          ? runSandboxed(built.bundle, { kind: 'sync', ctx }, DEFAULT_SANDBOX_LIMITS)
          : runSandboxed(built.bundle, { kind: 'event', ctx }, DEFAULT_SANDBOX_LIMITS),
    );
  } catch (err) {
    if (err instanceof ActionError) failed = `ActionError ${JSON.stringify(err.payload)}`;
    else if (err instanceof UpstreamHttpError) failed = `the provider answered ${err.status}: ${JSON.stringify(err.body)}`;
    else if (err instanceof SandboxError) failed = `${err.code}: ${err.message}`;
    else if (err instanceof ScriptError) failed = err.message;
    else failed = (err as Error).message ?? String(err);
  }

  for (const [model, records] of Object.entries(saved)) {
    info(bold(`${model}: ${records.length} record(s) would be saved`));
    info(JSON.stringify(records, null, 2));
  }
  for (const [model, records] of Object.entries(updated))
    info(bold(`${model}: ${records.length} record(s) would be updated`) + `\n${JSON.stringify(records, null, 2)}`);
  for (const [model, ids] of Object.entries(deleted)) info(bold(`${model}: ${ids.length} record(s) would be deleted`) + ` ${JSON.stringify(ids)}`);
  for (const model of swept) info(bold(`${model}: records not saved in this run would be marked deleted when it finishes`));
  if (metadataSet !== undefined) info(`${bold('metadata would be set to')} ${JSON.stringify(metadataSet)}`);
  if (checkpointSaved !== undefined) info(`${bold('checkpoint would be saved:')} ${JSON.stringify(checkpointSaved)}`);
  if (m.type === 'action' && failed === null) {
    info(bold('Output:'));
    info(JSON.stringify(output, null, 2));
    const checked = zodFromJsonSchema(m.output).safeParse(output);
    if (!checked.success) problems.push(...issuesOf(checked.error).map((p) => `output ${p}`));
  }
  if (problems.length) {
    info(bold(`Validation problems (${problems.length}):`));
    for (const p of problems.slice(0, 100)) info(`  ${red('✗')} ${p}`);
  }
  if (failed !== null) {
    info(`${red('✗')} the script failed: ${failed}`);
    return 1;
  }
  if (!problems.length) info(`${green('✓')} no validation problems`);
  return problems.length ? 1 : 0;
}
