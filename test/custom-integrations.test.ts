/**
 * Custom integrations end to end: the `switchyard` CLI (spawned as a child process) scaffolds a
 * project, dry-runs and deploys a custom sync and actions written against the generic fake API;
 * the sync is scheduled and fills the cache, the actions answer through HTTP and @nangohq/node,
 * a second deploy removes a sync and its schedule, `generate` output type-checks; and every
 * refusal (yaml config, old CLI, old zod, platform route) and every sandbox limit (process.env,
 * endless loop, unbounded allocation) gives its clear error while the worker keeps serving.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { ScheduleNotFoundError } from '@temporalio/client';
import ts from 'typescript';
import { sandboxCompilerOptions } from '../cli/ts-options.js';
import { startGenericApiFake, startMetabaseFake, type GenericApiFake } from './fakes/index.js';
import { addMetabaseConnection, apiRequestRecorder, assertReadsOnly, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { syncScheduleId } from '../workflows/contracts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const API_KEY = 'mb_custom=';
const PCK = 'generic';
const CONN = 'acme';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/index.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

const SCRIPTS: Record<string, string> = {
  // A second sync, removed by the second deploy.
  'syncs/recent-items.ts': `import { z } from 'zod';
import { createSync } from 'switchyard/sdk';

export default createSync({
  description: 'The first page of items, newest first',
  frequency: 'every 5 minutes',
  autoStart: true,
  endpoints: [{ method: 'GET', path: '/recent-items' }],
  models: { RecentItem: z.object({ id: z.string(), name: z.string() }) },
  async exec(ctx) {
    const res = await ctx.get<{ items: { id: string; name: string }[] }>({ endpoint: '/items', params: { per_page: 5 } });
    await ctx.batchSave(res.data.items.map((i) => ({ id: i.id, name: i.name })), 'RecentItem');
  },
});
`,
  // Reads the worker's environment: the sandbox has no process.
  'actions/read-env.ts': `import { z } from 'zod';
import { createAction } from 'switchyard/sdk';

declare const process: { env: Record<string, string | undefined> };

export default createAction({
  description: 'Tries to read a secret of the worker',
  endpoint: { method: 'POST', path: '/read-env' },
  input: z.object({}),
  output: z.object({ secret: z.string().optional() }),
  async exec() {
    return { secret: process.env.SWITCHYARD_ENCRYPTION_KEY };
  },
});
`,
  'actions/spin.ts': `import { z } from 'zod';
import { createAction } from 'switchyard/sdk';

export default createAction({
  description: 'Loops forever',
  endpoint: { method: 'POST', path: '/spin' },
  input: z.object({}),
  output: z.object({}),
  async exec(ctx) {
    await ctx.get({ endpoint: '/echo' });
    let n = 0;
    for (;;) n++;
  },
});
`,
  'actions/hog.ts': `import { z } from 'zod';
import { createAction } from 'switchyard/sdk';

export default createAction({
  description: 'Allocates without bound',
  endpoint: { method: 'POST', path: '/hog' },
  input: z.object({}),
  output: z.object({}),
  async exec() {
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array(100_000).fill(1.5));
  },
});
`,
};

const RENAME_ITEM = `import { z } from 'zod';
import { createAction } from 'switchyard/sdk';
import { Item, toItem, type ApiItem } from '../models.js';

export default createAction({
  description: 'Renames an item',
  endpoint: { method: 'PUT', path: '/items' },
  input: z.object({ id: z.string(), name: z.string().min(1) }),
  output: Item,
  async exec(ctx, input) {
    const res = await ctx.put<ApiItem>({ endpoint: '/items/' + input.id, data: { name: input.name } });
    return toItem(res.data);
  },
});
`;

function typecheckFile(file: string): string[] {
  const program = ts.createProgram([file], sandboxCompilerOptions(ts));
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('custom integrations: CLI, deploy, sandbox', () => {
  let t: TestPlatform;
  let generic: GenericApiFake;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;
  let work: string;
  let proj: string;
  let cliEnv: Record<string, string>;
  const cli = (...args: string[]) => run([...args, '--dir', proj], cliEnv);
  const unified = { 'connection-id': CONN, 'provider-config-key': PCK };
  const apiRequests = apiRequestRecorder();

  before(async () => {
    t = await startTestPlatform({ env: { SWITCHYARD_SCRIPT_CPU_LIMIT_MS: '3000', SWITCHYARD_SCRIPT_MEMORY_LIMIT_MB: '128' }, log: apiRequests.log });
    generic = await startGenericApiFake({ apiKey: API_KEY, items: Array.from({ length: 120 }, (_, i) => ({ name: `item ${i + 1}` })) });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    // Verified against the Metabase fake, then pointed at the generic items API.
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: PCK } })).status, 200);
    await addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: PCK, connectionId: CONN });
    assert.equal((await t.api(`/integrations/${PCK}`, { method: 'PATCH', json: { integration_config: { base_url: generic.url } } })).status, 200);
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'custom-'));
    proj = path.join(work, 'proj');
    cliEnv = { SWITCHYARD_HOST: t.url, SWITCHYARD_SECRET_KEY_DEV: t.devKey };
  });
  after(async () => {
    await t?.stop();
    await generic?.close();
    await metabase?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** `npm install`, offline: the project's zod is the repository's. */
  async function install(dir: string) {
    await mkdir(path.join(dir, 'node_modules'), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'), 'dir');
  }

  test('init scaffolds a project; the bin answers its version', async () => {
    // --provider: the integration uses an existing provider (here the catalogue's metabase), so no provider.yaml.
    const r = await run(['init', proj, '--integration', PCK, '--provider', 'metabase'], cliEnv);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!existsSync(path.join(proj, PCK, 'provider.yaml')));
    assert.match(r.stdout, /with the provider metabase/);
    for (const f of ['package.json', 'tsconfig.json', '.env', `${PCK}/syncs/items.ts`, `${PCK}/actions/create-item.ts`, `${PCK}/models.ts`]) {
      assert.ok(existsSync(path.join(proj, f)), f);
    }
    const pkg = JSON.parse(await readFile(path.join(proj, 'package.json'), 'utf8')) as Json;
    assert.equal(pkg.dependencies.zod, '4.0.5');
    assert.match(await readFile(path.join(proj, `${PCK}/syncs/items.ts`), 'utf8'), /from 'switchyard\/sdk'/);
    await install(proj);
    for (const [file, content] of Object.entries(SCRIPTS)) await writeFile(path.join(proj, PCK, file), content);
    const bin = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'cli/bin.mjs'), '--version'], { cwd: work });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.once('exit', () => resolve(out.trim()));
    });
    assert.equal(bin, '0.67.0');
  });

  test('dryrun runs the sync against the connection through the proxy and saves nothing', async () => {
    const from = apiRequests.requests.length;
    const r = await cli('dryrun', 'items', CONN);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Item: 120 record\(s\) would be saved/);
    assert.match(r.stdout, /"name": "item 120"/);
    assert.match(r.stdout, /no validation problems/);
    assert.ok(generic.requests.some((q) => q.path === '/items' && q.query.limit === '100'));
    const bad = await cli('dryrun', 'create-item', CONN, '--input', '{"name":""}');
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /Input problems[\s\S]*name/);
    // Saves nothing: the CLI asks the platform for reads only (a count of records would be 0 anyway:
    // nothing is deployed yet that could write one).
    assertReadsOnly(apiRequests.requests.slice(from));
  });

  test('deploy dev: new endpoints wait deactivated; once activated the sync is scheduled and fills the cache', async () => {
    const r = await cli('deploy', 'dev');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /\+ generic\/items \(sync\) new/);
    assert.match(r.stdout, /Deployed version 1 to dev: 6 new/);
    const tab = ((await (await t.api(`/integrations/${PCK}/endpoints`)).json()) as Json).data as Json[];
    const byKey = Object.fromEntries(tab.map((e) => [`${e.method} ${e.path}`, e]));
    assert.equal(byKey['GET /items'].script, 'items');
    assert.equal(byKey['GET /items'].enabled, false);
    assert.equal(byKey['POST /items'].type, 'action');
    assert.ok(byKey['GET /users'], 'the pre-built endpoints stay');
    const early = await t.api('/items', { method: 'POST', headers: unified, json: { name: 'too early' } });
    assert.equal(early.status, 404);
    assert.equal(((await early.json()) as Json).error.code, 'endpoint_not_enabled');

    const activate = ['GET /items', 'GET /recent-items', 'POST /items', 'POST /read-env', 'POST /spin', 'POST /hog'].map((k) => {
      const [method, p] = k.split(' ');
      return { method, path: p, enabled: true };
    });
    assert.equal((await t.api(`/integrations/${PCK}/endpoints`, { method: 'PATCH', json: { endpoints: activate } })).status, 200);
    const schedule = await t.platform.deps.temporal.schedule
      .getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', PCK, CONN, 'items'))
      .describe();
    assert.equal(schedule.state.paused, false);
    const records = await waitFor('the scheduled sync to fill the cache', async () => {
      const res = await t.api('/records?model=Item&limit=500', { headers: unified });
      const body = (await res.json()) as Json;
      return res.status === 200 && body.records?.length === 120 ? body.records : null;
    });
    assert.ok((records as Json[]).some((x) => x.name === 'item 7' && x._nango_metadata.last_action === 'ADDED'));
    const status = ((await nango.syncStatus(PCK, ['items'], CONN)) as Json).syncs[0];
    assert.equal(status.frequency, 'every hour');
  });

  test('the deployed action answers through HTTP and @nangohq/node', async () => {
    const viaHttp = await t.api('/items', { method: 'POST', headers: unified, json: { name: 'via http' } });
    assert.equal(viaHttp.status, 200, await viaHttp.clone().text());
    const created = (await viaHttp.json()) as Json;
    assert.equal(created.name, 'via http');
    assert.ok(generic.state.items.some((i) => i.name === 'via http'));
    const viaNode = (await nango.triggerAction(PCK, CONN, 'create-item', { name: 'via node' })) as Json;
    assert.equal(viaNode.name, 'via node');
    const cached = await t.platform.deps.db.query(`SELECT data FROM records WHERE model = 'Item' AND external_id = $1`, [viaNode.id]);
    assert.equal(cached.rows[0].data.name, 'via node');
    const invalid = await t.api('/action/trigger', { method: 'POST', headers: unified, json: { action_name: 'create-item', input: { name: 3 } } });
    assert.equal(invalid.status, 400);
    assert.equal(((await invalid.json()) as Json).error.code, 'invalid_action_input');
  });

  test('process.env, an endless loop and unbounded allocation each fail clearly; the worker keeps serving', async () => {
    const cases: [string, string, RegExp][] = [
      ['read-env', 'action_script_failure', /ReferenceError: process is not defined.*sandbox/],
      ['spin', 'script_timeout', /CPU time/],
      ['hog', 'script_memory_limit', /memory limit of 128 MB/],
    ];
    for (const [action, code, message] of cases) {
      const started = Date.now();
      const res = await t.api('/action/trigger', { method: 'POST', headers: unified, json: { action_name: action, input: {} } });
      const body = (await res.json()) as Json;
      assert.equal(res.status, 500, JSON.stringify(body));
      assert.equal(body.error.code, code, JSON.stringify(body));
      assert.match(body.error.message, message);
      assert.ok(Date.now() - started < 30_000, `${action} was stopped in time`);
      const ok = (await nango.triggerAction(PCK, CONN, 'create-item', { name: `after ${action}` })) as Json;
      assert.equal(ok.name, `after ${action}`);
    }
  });

  test('/scripts/config and /openapi.json describe the deployed scripts and models', async () => {
    const config = (await (await t.api('/scripts/config?format=switchyard')).json()) as Json;
    const scripts = (config.data as Json[]).find((i) => i.integration === PCK)!.scripts as Json[];
    const items = scripts.find((s) => s.name === 'items')!;
    assert.equal(items.source, 'deployed');
    assert.equal(items.models.Item.properties.name.type, 'string');
    assert.equal(items.enabled, true);
    const nangoShape = (await (await t.api('/scripts/config?format=nango')).json()) as Json[];
    // Nango's shape is the default, as in Nango.
    assert.deepEqual((await (await t.api('/scripts/config')).json()) as Json[], nangoShape);
    const entry = nangoShape.find((i) => i.providerConfigKey === PCK)!;
    assert.equal(entry.syncs.find((s: Json) => s.name === 'items').runs, 'every hour');
    assert.deepEqual(entry.syncs.find((s: Json) => s.name === 'items').returns, ['Item']);
    assert.ok(entry.actions.some((a: Json) => a.name === 'create-item' && a.json_schema.definitions.CreateItemInput));
    const openapi = (await (await t.api('/openapi.json')).json()) as Json;
    assert.equal(openapi.components.schemas.Item.properties.updatedAt.type, 'string');
    assert.ok(openapi.components.schemas.CreateItemInput);
    assert.ok(openapi.paths['/scripts/deploy']);
  });

  test('generate writes a client that type-checks against a backend; a wrong field fails tsc', async () => {
    const r = await cli('generate', '--out', 'client/switchyard-client.ts');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const good = path.join(proj, 'client', 'backend.ts');
    await writeFile(
      good,
      `import { createClient, type Model } from './switchyard-client.js';
const client = createClient({ host: 'http://localhost:3003', secretKey: 'key' });
export async function main(): Promise<string> {
  const item = await client.triggerAction('generic', 'acme', 'create-item', { name: 'typed' });
  const page = await client.listRecords('generic', 'acme', 'Item');
  const first: Model<'generic', 'Item'> | undefined = page.records[0];
  return item.id + item.updatedAt + (first?.name ?? '') + page.records.map((x) => x._nango_metadata.last_action).join();
}
`,
    );
    assert.deepEqual(typecheckFile(good), []);
    const bad = path.join(proj, 'client', 'wrong.ts');
    await writeFile(
      bad,
      `import { createClient } from './switchyard-client.js';
const client = createClient({ host: 'http://localhost:3003', secretKey: 'key' });
export const p = client.triggerAction('generic', 'acme', 'create-item', { nmae: 'typo' });
`,
    );
    const errors = typecheckFile(bad);
    assert.ok(
      errors.some((e) => /nmae/.test(e)),
      errors.join('\n'),
    );
  });

  test('a second deploy removes a sync (asking first) and stops its schedule; --activate activates new endpoints', async () => {
    const recent = syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', PCK, CONN, 'recent-items');
    await t.platform.deps.temporal.schedule.getHandle(recent).describe();
    await rm(path.join(proj, PCK, 'syncs', 'recent-items.ts'));
    await writeFile(path.join(proj, PCK, 'actions', 'rename-item.ts'), RENAME_ITEM);
    const refused = await cli('deploy', 'dev', '--activate');
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /- generic\/recent-items \(sync\) removed/);
    assert.match(refused.stderr, /--yes/);
    await t.platform.deps.temporal.schedule.getHandle(recent).describe();

    const r = await cli('deploy', '--env', 'dev', '--yes', '--activate');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Deployed version 2 to dev: 1 new, 0 changed, 1 removed/);
    await assert.rejects(t.platform.deps.temporal.schedule.getHandle(recent).describe(), ScheduleNotFoundError);
    await t.platform.deps.temporal.schedule.getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', PCK, CONN, 'items')).describe();
    const tab = ((await (await t.api(`/integrations/${PCK}/endpoints`)).json()) as Json).data as Json[];
    assert.ok(!tab.some((e) => e.path === '/recent-items'));
    assert.equal(tab.find((e) => e.method === 'PUT' && e.path === '/items')!.enabled, true);
    const renamed = (await nango.triggerAction(PCK, CONN, 'rename-item', { id: '1', name: 'renamed' })) as Json;
    assert.equal(renamed.name, 'renamed');
    const again = await cli('deploy', 'dev');
    assert.match(again.stdout, /Nothing to deploy/);
  });

  test('refusals: a platform route, an old CLI, a yaml config (then migrate), an old zod', async () => {
    const reserved = await t.api('/scripts/deploy/preview', {
      method: 'POST',
      json: {
        scripts: [
          {
            integration: PCK,
            name: 'shadow',
            bundle: 'var __switchyard = {}',
            manifest: { type: 'sync', frequency: 'every hour', endpoints: [{ method: 'GET', path: '/connections' }], models: { Thing: {} } },
          },
        ],
        cli_version: '0.67.0',
      },
    });
    assert.equal(reserved.status, 400);
    const reservedBody = (await reserved.json()) as Json;
    assert.equal(reservedBody.error.errors[0].code, 'reserved_endpoint');
    assert.match(reservedBody.error.errors[0].message, /GET \/connections/);

    const old = await fetch(`${t.url}/scripts/deploy/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.devKey}`, 'content-type': 'application/json', 'user-agent': 'switchyard-cli/0.66.0' },
      body: JSON.stringify({ scripts: [] }),
    });
    assert.equal(old.status, 426);
    assert.match(((await old.json()) as Json).error.message, /0\.66\.0.*0\.67\.0/);
    // The CLI explains a 426 (from a server that refuses it).
    const refuser = http.createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'client_upgrade_required', message: 'Client version 0.67.0 is no longer supported.' } }));
    });
    await new Promise<void>((r) => refuser.listen(0, '127.0.0.1', r));
    const upgrade = await run(['generate', '--dir', proj], { ...cliEnv, SWITCHYARD_HOST: `http://127.0.0.1:${(refuser.address() as AddressInfo).port}` });
    refuser.close();
    assert.equal(upgrade.code, 1);
    assert.match(upgrade.stderr, /refused this CLI[\s\S]*upgrade the CLI/);

    const yamlProj = path.join(work, 'yaml');
    await mkdir(yamlProj, { recursive: true });
    await writeFile(path.join(yamlProj, 'package.json'), JSON.stringify({ name: 'yaml', private: true, type: 'module', dependencies: { zod: '4.0.5' } }));
    await install(yamlProj);
    await writeFile(
      path.join(yamlProj, 'nango.yaml'),
      `integrations:
  github:
    syncs:
      issues:
        runs: every 1h
        endpoint: GET /issues
        output: GithubIssue
        auto_start: true
    actions:
      create-issue:
        endpoint: POST /issues
        input: CreateIssueInput
        output: GithubIssue
models:
  GithubIssue:
    id: string
    title: string
    state: "'open' | 'closed'"
    labels: string[]
    closed_at: Date | null
  CreateIssueInput:
    title: string
    body?: string
`,
    );
    const refusedYaml = await run(['compile', '--dir', yamlProj], cliEnv);
    assert.equal(refusedYaml.code, 1);
    assert.match(refusedYaml.stderr, /nango\.yaml found: Switchyard does not read yaml[\s\S]*createSync[\s\S]*switchyard migrate/);
    const migrated = await run(['migrate', '--dir', yamlProj], cliEnv);
    assert.equal(migrated.code, 0, migrated.stdout + migrated.stderr);
    assert.ok(existsSync(path.join(yamlProj, 'github/syncs/issues.ts')));
    const compiled = await run(['compile', '--dir', yamlProj], cliEnv);
    assert.equal(compiled.code, 0, compiled.stdout + compiled.stderr);
    const manifest = JSON.parse(await readFile(path.join(yamlProj, 'build/manifest.json'), 'utf8')) as Json;
    const issues = (manifest.scripts as Json[]).find((s) => s.name === 'issues')!;
    assert.equal(issues.manifest.frequency, 'every 1h');
    assert.deepEqual(issues.manifest.models.GithubIssue.properties.state.enum, ['open', 'closed']);

    const oldZod = path.join(work, 'old-zod');
    await mkdir(path.join(oldZod, PCK, 'syncs'), { recursive: true });
    await writeFile(path.join(oldZod, 'package.json'), `${JSON.stringify({ name: 'old', private: true, dependencies: { zod: '^3.23.8' } }, null, 2)}\n`);
    await writeFile(path.join(oldZod, PCK, 'syncs', 'items.ts'), await readFile(path.join(proj, PCK, 'syncs', 'items.ts'), 'utf8'));
    const pinned = await run(['compile', '--dir', oldZod], cliEnv);
    assert.equal(pinned.code, 1);
    assert.match(pinned.stderr, /zod \^3\.23\.8; Switchyard scripts need zod 4\.0\.5[\s\S]*npm install/);
    assert.equal((JSON.parse(await readFile(path.join(oldZod, 'package.json'), 'utf8')) as Json).dependencies.zod, '4.0.5');
  });

  test('the walkthrough on a fresh integration: init writes provider.yaml, deploy creates the providers and the integration, a connection works', async () => {
    const api = await startGenericApiFake({ bearer: 'k-walk', items: [{ name: 'first' }] });
    try {
      const walk = path.join(work, 'walk');
      const init = await run(['init', walk], cliEnv);
      assert.equal(init.code, 0, init.stdout + init.stderr);
      const yaml = await readFile(path.join(walk, 'generic-api', 'provider.yaml'), 'utf8');
      assert.match(yaml, /^name: generic-api$/m);
      assert.match(yaml, /auth_mode: API_KEY/);
      await install(walk);
      // A root providers.yaml, Nango's shape: a map of name → definition.
      await writeFile(
        path.join(walk, 'providers.yaml'),
        [
          'walk-extra:',
          '  display_name: Walk extra',
          '  auth_mode: BASIC',
          '  proxy:',
          '    base_url: https://extra.example.com',
          '  docs: https://example.com/extra',
          '  nango_only_key: kept',
          '',
        ].join('\n'),
      );
      const deployed = await run(['deploy', 'dev', '--integration', 'generic-api', '--activate', '--dir', walk], cliEnv);
      assert.equal(deployed.code, 0, deployed.stdout + deployed.stderr);
      assert.match(deployed.stdout, /\+ provider walk-extra \(providers\.yaml\) created/);
      assert.match(deployed.stdout, /\+ provider generic-api \(generic-api\/provider\.yaml\) created/);
      assert.match(deployed.stdout, /\+ integration generic-api \(provider generic-api\) created/);
      assert.match(deployed.stdout, /\+ generic-api\/items \(sync\) new/);
      assert.match(deployed.stderr + deployed.stdout, /providers\.yaml: unknown key "nango_only_key"/);
      assert.equal(((await (await t.api('/providers/generic-api')).json()) as Json).data.source, 'user');
      assert.equal(((await (await t.api('/integrations/generic-api')).json()) as Json).data.provider, 'generic-api');

      // A connection with the provider's API key and host; the deployed action runs through it.
      const wrong = await t.api('/connections', {
        method: 'POST',
        json: {
          provider_config_key: 'generic-api',
          connection_id: 'walk',
          connection_config: { host: api.url },
          credentials: { type: 'API_KEY', apiKey: 'nope' },
        },
      });
      assert.equal(wrong.status, 400, 'verification refuses a wrong key');
      const conn = await t.api('/connections', {
        method: 'POST',
        json: {
          provider_config_key: 'generic-api',
          connection_id: 'walk',
          connection_config: { host: api.url },
          credentials: { type: 'API_KEY', apiKey: 'k-walk' },
        },
      });
      assert.equal(conn.status, 201, await conn.clone().text());
      const item = (await nango.triggerAction('generic-api', 'walk', 'create-item', { name: 'from the walkthrough' })) as Json;
      assert.equal(item.name, 'from the walkthrough');
      assert.ok(api.state.items.some((i) => i.name === 'from the walkthrough'));

      // A second deploy replaces the definition; a bad one is refused naming the file and the field.
      await writeFile(path.join(walk, 'generic-api', 'provider.yaml'), yaml.replace('display_name: generic-api', 'display_name: Generic API v2'));
      const again = await run(['deploy', 'dev', '--integration', 'generic-api', '--dir', walk], cliEnv);
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stdout, /~ provider generic-api \(generic-api\/provider\.yaml\) replaced/);
      assert.equal(((await (await t.api('/providers/generic-api')).json()) as Json).data.display_name, 'Generic API v2');
      await writeFile(path.join(walk, 'generic-api', 'provider.yaml'), yaml.replace('auth_mode: API_KEY', 'auth_mode: SAML'));
      const bad = await run(['deploy', 'dev', '--integration', 'generic-api', '--dir', walk], cliEnv);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /generic-api\/provider\.yaml:[\s\S]*auth_mode/);
    } finally {
      await api.close();
    }
  });
});
