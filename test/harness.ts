/**
 * @module test/harness — a real platform for one test file: its own database on the shared test
 * PostgreSQL, its own task queues on the shared Temporal dev server, the API on a free port.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import os from 'node:os';
import { loadConfig, type Config } from '../lib/config.js';
import type { Clock } from '../lib/clock.js';
import { ensureDatabase } from '../lib/embedded/postgres.js';
import { freePort } from '../lib/embedded/temporal.js';
import { startPlatform, type Platform } from '../start/platform.js';
import { createLogger, type Logger } from '../lib/log.js';

export { waitFor, type WaitOptions } from './wait.js';

export interface TestPlatform {
  url: string;
  devKey: string;
  prodKey: string;
  platform: Platform;
  config: Config;
  databaseUrl: string;
  /** fetch against the API with the dev key unless headers say otherwise. */
  api(pathname: string, init?: RequestInit & { json?: unknown; key?: string | null }): Promise<Response>;
  stop(): Promise<void>;
}

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run tests with \`npm test\` (test/run.ts starts the services)`);
  return v;
}

export interface TestPlatformOptions {
  env?: Record<string, string>;
  clock?: Clock;
  runWorker?: boolean;
  /** Where the platform's structured logs go (default: pino to stdout at LOG_LEVEL). */
  log?: Logger;
}

export async function startTestPlatform(opts: TestPlatformOptions = {}): Promise<TestPlatform> {
  const id = randomBytes(5).toString('hex');
  const databaseUrl = opts.env?.DATABASE_URL ?? (await ensureDatabase(required('SWITCHYARD_TEST_DATABASE_SERVER_URL'), `t_${id}`));
  const port = await freePort();
  const devKey = opts.env?.SWITCHYARD_SECRET_KEY_DEV ?? crypto.randomUUID();
  const prodKey = opts.env?.SWITCHYARD_SECRET_KEY_PROD ?? crypto.randomUUID();
  const dataDir = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), `data-${id}-`));
  const config = loadConfig({
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: required('SWITCHYARD_TEST_TEMPORAL_ADDRESS'),
    SWITCHYARD_SECRET_KEY_DEV: devKey,
    SWITCHYARD_SECRET_KEY_PROD: prodKey,
    SWITCHYARD_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SWITCHYARD_TASK_QUEUE_PREFIX: `t-${id}`,
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_ALLOWED_PRIVATE_HOSTS: '127.0.0.1,localhost',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...opts.env,
  });
  const platform = await startPlatform({
    config,
    databaseUrl,
    temporalAddress: config.TEMPORAL_ADDRESS!,
    runApi: true,
    runWorker: opts.runWorker ?? true,
    keepSecretsLocally: false,
    clock: opts.clock,
    log: opts.log ?? createLogger(config.LOG_LEVEL),
    workflowBundle: process.env.SWITCHYARD_TEST_WORKFLOW_BUNDLE ? { codePath: process.env.SWITCHYARD_TEST_WORKFLOW_BUNDLE } : undefined,
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    devKey,
    prodKey,
    platform,
    config,
    databaseUrl,
    async api(pathname, init = {}) {
      const { json, key, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${key ?? devKey}`);
      if (json !== undefined) {
        if (!headers.has('content-type')) headers.set('content-type', 'application/json');
        rest.body = JSON.stringify(json);
      }
      return fetch(url + pathname, { ...rest, headers });
    },
    stop: () => platform.stop(),
  };
}

/** The routes the API answered, from its `http` log lines: pass `log` to startTestPlatform. */
export function apiRequestRecorder(): { log: Logger; requests: { method: string; path: string; status: number }[] } {
  const requests: { method: string; path: string; status: number }[] = [];
  let partial = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const entry = JSON.parse(line) as { msg?: string; method?: string; path?: string; status?: number };
        if (entry.msg === 'http') requests.push({ method: entry.method!, path: entry.path!, status: entry.status! });
      }
      done();
    },
  });
  return { log: createLogger('info', sink), requests };
}

/** Requests that changed nothing on the platform: GETs only, the provider reached through the proxy among them. */
export function assertReadsOnly(requests: { method: string; path: string }[]): void {
  const calls = requests.map((r) => `${r.method} ${r.path}`);
  assert.ok(
    calls.some((c) => c.startsWith('GET /proxy/')),
    `the provider reached through the proxy, among: ${calls.join(', ')}`,
  );
  assert.deepEqual(
    calls.filter((c) => !c.startsWith('GET ')),
    [],
    'requests to routes that write',
  );
}

// ---- Metabase: the provider most tests run their scripts against (with test/fakes/metabase.ts) ----

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The unified headers of the connection `acme` of the integration `metabase`. */
export const ACME = { 'connection-id': 'acme', 'provider-config-key': 'metabase' };

/** The integration `metabase`. */
export async function createMetabaseIntegration(t: TestPlatform): Promise<void> {
  const res = await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } });
  assert.equal(res.status, 200, await res.clone().text());
}

/** Enables the integration's endpoints: all of them, or those named `METHOD /path`. */
export async function enableMetabaseEndpoints(t: TestPlatform, enable: 'all' | string[]): Promise<void> {
  let endpoints: { method: string; path: string }[];
  if (enable === 'all') endpoints = ((await (await t.api('/integrations/metabase/endpoints')).json()) as Json).data as { method: string; path: string }[];
  else endpoints = enable.map((e) => ({ method: e.split(' ')[0]!, path: e.split(' ')[1]! }));
  const res = await t.api('/integrations/metabase/endpoints', {
    method: 'PATCH',
    json: { endpoints: endpoints.map((e) => ({ method: e.method, path: e.path, enabled: true })) },
  });
  assert.equal(res.status, 200, await res.clone().text());
}

export interface MetabaseConnectionOptions {
  /** Default `acme`. */
  connectionId?: string;
  /** The integration's unique key (default `metabase`). */
  providerConfigKey?: string;
  /** More fields of the POST /connections body (end_user, tags, …). */
  extra?: Json;
}

/** An API-key connection of the integration `metabase` to the fake at `hostname`; returns the created connection (the answer's body). */
export async function addMetabaseConnection(t: TestPlatform, hostname: string, apiKey: string, opts: MetabaseConnectionOptions = {}): Promise<Json> {
  const res = await t.api('/connections', {
    method: 'POST',
    json: {
      provider_config_key: opts.providerConfigKey ?? 'metabase',
      connection_id: opts.connectionId ?? 'acme',
      connection_config: { hostname },
      credentials: { type: 'API_KEY', apiKey },
      ...opts.extra,
    },
  });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Json;
}

/**
 * An integration of Metabase's API-key auth pointed at the generic items API (its base_url), with
 * one connection: the provider a function project's scripts call in the Nango-project tests.
 */
export async function addItemsApiIntegration(
  t: TestPlatform,
  opts: { key: string; connectionId: string; apiKey: string; metabaseUrl: string; itemsUrl?: string },
): Promise<void> {
  assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: opts.key } })).status, 200);
  await addMetabaseConnection(t, opts.metabaseUrl, opts.apiKey, { providerConfigKey: opts.key, connectionId: opts.connectionId });
  if (!opts.itemsUrl) return;
  const patch = await t.api(`/integrations/${opts.key}`, { method: 'PATCH', json: { integration_config: { base_url: opts.itemsUrl } } });
  assert.equal(patch.status, 200);
}

/** The integration `metabase`, an API-key connection to the fake at `hostname`, then the endpoints enabled (none by default). */
export async function connectMetabase(
  t: TestPlatform,
  hostname: string,
  apiKey: string,
  opts: { connectionId?: string; endpoints?: 'all' | string[] } = {},
): Promise<void> {
  await createMetabaseIntegration(t);
  await addMetabaseConnection(t, hostname, apiKey, { connectionId: opts.connectionId });
  if (opts.endpoints) await enableMetabaseEndpoints(t, opts.endpoints);
}

/** A google-drive integration whose OAuth endpoints are those of the fake at `oauthUrl` (test/fakes/oauth-provider.ts), its API at `baseUrl` (default: the same fake). */
export async function addOAuthIntegration(
  t: TestPlatform,
  opts: { uniqueKey: string; oauthUrl: string; clientId: string; clientSecret: string; scopes?: string; baseUrl?: string },
): Promise<void> {
  const res = await t.api('/integrations', {
    method: 'POST',
    json: {
      provider: 'google-drive',
      unique_key: opts.uniqueKey,
      credentials: { type: 'OAUTH2', client_id: opts.clientId, client_secret: opts.clientSecret, scopes: opts.scopes ?? 'x' },
      integration_config: {
        authorization_url: `${opts.oauthUrl}/oauth/authorize`,
        token_url: `${opts.oauthUrl}/oauth/token`,
        base_url: opts.baseUrl ?? opts.oauthUrl,
      },
    },
  });
  assert.equal(res.status, 200, await res.clone().text());
}

/** Triggers an action on the connection `acme`. */
export async function triggerAction(t: TestPlatform, action: string, input: Json): Promise<{ status: number; body: Json }> {
  const res = await t.api('/action/trigger', { method: 'POST', headers: ACME, json: { action_name: action, input } });
  return { status: res.status, body: (await res.json()) as Json };
}

function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
}

/** Signs in to the dashboard with a secret key through the sign-in form; returns the session cookie and the session's CSRF token. */
export async function dashboardSignIn(t: Pick<TestPlatform, 'url'>, key: string, env: string): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${t.url}/dashboard/sign-in?env=${env}`);
  const preCookie = cookiesOf(form);
  const token = /name="_csrf" value="([0-9a-f]{64})"/.exec(await form.text())![1]!;
  const res = await fetch(`${t.url}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: preCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, secret_key: key }).toString(),
  });
  assert.equal(res.status, 303);
  const cookie = cookiesOf(res)
    .split('; ')
    .filter((c) => c.startsWith(`sy_dash_${env}=`) && c.length > `sy_dash_${env}=`.length)
    .join('; ');
  const page = await (await fetch(`${t.url}/dashboard/${env}/logs`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="_csrf" value="([0-9a-f]{64})"/.exec(page)![1]! };
}
