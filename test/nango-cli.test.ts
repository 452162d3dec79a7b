/**
 * Nango's own CLI (the `nango` package from npm, 0.71.10, node_modules/.bin/nango) pointed at a
 * running platform with NANGO_HOSTPORT and NANGO_SECRET_KEY_DEV, on a small Nango project written
 * here (test/fixtures/nango-cli-project: a sync and an action importing a shared models.ts).
 * `nango deploy dev` type-checks and compiles with Nango's compiler and uploads to
 * `/sync/deploy/confirmation` and `/sync/deploy`; the deployed sync then fills the cache and the
 * deployed action runs through @nangohq/node, both reaching the generic items API fake.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { startGenericApiFake, startMetabaseFake, type GenericApiFake, type MetabaseFake } from './fakes/index.js';
import { addItemsApiIntegration, apiRequestRecorder, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'nango-cli-project');
const NANGO_BIN = path.join(ROOT, 'node_modules', '.bin', 'nango');
const API_KEY = 'mb_nango_cli=';
const CONN = 'acme';
const KEY = 'warehouse';

describe("Nango's CLI from npm deploys a Nango project to Switchyard", () => {
  let t: TestPlatform;
  let metabase: MetabaseFake;
  let generic: GenericApiFake;
  let nango: Nango;
  let work: string;
  let proj: string;
  const apiRequests = apiRequestRecorder();

  function nangoCli(args: string[]): Promise<{ code: number; output: string }> {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SWITCHYARD_|NANGO_)/.test(k)));
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [NANGO_BIN, ...args], {
        cwd: proj,
        env: {
          ...base,
          // A home of its own: the CLI keeps its state (device id, upgrade prompts) there.
          HOME: work,
          CI: 'true',
          NO_COLOR: '1',
          NANGO_CLI_TELEMETRY: 'false',
          NANGO_CLI_UPGRADE_MODE: 'ignore',
          NANGO_HOSTPORT: t.url,
          NANGO_SECRET_KEY_DEV: t.devKey,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.once('error', reject);
      child.once('exit', (code) => {
        console.log(`$ nango ${args.join(' ')}\n${output}(exit ${code})`);
        resolve({ code: code ?? 1, output });
      });
    });
  }

  before(async () => {
    t = await startTestPlatform({ log: apiRequests.log });
    metabase = await startMetabaseFake({ apiKey: API_KEY, users: [{ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' }] });
    generic = await startGenericApiFake({ apiKey: API_KEY, items: Array.from({ length: 5 }, (_, i) => ({ name: `bolt ${i + 1}` })) });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await addItemsApiIntegration(t, { key: KEY, connectionId: CONN, apiKey: API_KEY, metabaseUrl: metabase.url, itemsUrl: generic.url });

    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'nango-cli-'));
    proj = path.join(work, 'nango-integrations');
    await cp(FIXTURE, proj, { recursive: true });
    // `npm install`, offline: the nango package installed here, and the zod it was built with.
    await mkdir(path.join(proj, 'node_modules'));
    await mkdir(path.join(proj, '.nango'));
    const nangoPackage = path.join(ROOT, 'node_modules', 'nango');
    await symlink(nangoPackage, path.join(proj, 'node_modules', 'nango'), 'dir');
    await symlink(path.join(nangoPackage, 'node_modules', 'zod'), path.join(proj, 'node_modules', 'zod'), 'dir');
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    await generic?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('nango deploy dev: compiled by Nango, planned and deployed by Switchyard', async () => {
    const from = apiRequests.requests.length;
    const r = await nangoCli(['deploy', 'dev', '--auto-confirm', '--no-interactive', '--no-dependency-update']);
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /warehouse → stock/);
    assert.match(r.output, /warehouse → relabel/);
    assert.match(r.output, /Successfully deployed the functions:\s+- stock@v1\.0\.0\s+- relabel@v1\.0\.0/);
    const calls = apiRequests.requests.slice(from).map((q) => `${q.method} ${q.path} ${q.status}`);
    assert.deepEqual(calls, ['POST /sync/deploy/confirmation 200', 'POST /sync/deploy 200']);

    const config = (await (await t.api('/scripts/config?format=nango')).json()) as Json[];
    const warehouse = config.find((c) => c.providerConfigKey === KEY)!;
    const deployed = (list: Json[]) => list.filter((s) => s.source === 'deployed');
    assert.deepEqual(
      deployed(warehouse.syncs).map((s) => [s.name, s.runs, s.enabled, s.returns]),
      [['stock', 'every day', true, ['StockLine']]],
    );
    assert.deepEqual(
      deployed(warehouse.actions).map((s) => s.name),
      ['relabel'],
    );
  });

  test("the deployed functions through @nangohq/node's functions methods; their code is the TypeScript the CLI uploaded", async () => {
    const list = (await nango.listFunctions({ uniqueKey: KEY })) as Json;
    assert.deepEqual(
      list.data.map((f: Json) => [f.name, f.type, f.source, f.enabled]),
      [
        ['relabel', 'action', 'repo', true],
        ['stock', 'sync', 'repo', true],
      ],
    );
    assert.deepEqual(list.pagination, { total: 2, page: 0, limit: 20 });
    assert.deepEqual(
      ((await nango.listFunctions({ uniqueKey: KEY }, { type: 'sync' })) as Json).data.map((f: Json) => f.name),
      ['stock'],
    );

    const stock = ((await nango.getFunction({ uniqueKey: KEY, name: 'stock' })) as Json).data;
    assert.deepEqual([stock.runs, stock.auto_start, stock.returns], ['every day', true, ['StockLine']]);
    assert.deepEqual(Object.keys(stock.json_schema.definitions), ['StockLine']);

    const code = (await nango.getFunctionCode({ uniqueKey: KEY, name: 'relabel' })) as Json;
    assert.equal(code.type, 'action');
    assert.equal(code.code, await readFile(path.join(FIXTURE, KEY, 'actions', 'relabel.ts'), 'utf8'));

    const refused = await nango.deleteFunction({ uniqueKey: KEY, name: 'stock' }, { type: 'sync' }).then(
      () => null,
      (err: { response: { status: number; data: Json } }) => err.response,
    );
    assert.equal(refused?.status, 400);
    assert.equal(refused?.data.error.code, 'function_managed_by_deploy');
    const missing = await nango.getFunction({ uniqueKey: KEY, name: 'nope' }).then(
      () => null,
      (err: { response: { status: number } }) => err.response.status,
    );
    assert.equal(missing, 404);
  });

  test('the deployed sync fills the cache and the deployed action runs, through @nangohq/node', async () => {
    await nango.triggerSync(KEY, ['stock'], CONN);
    const lines = await waitFor('the stock sync to save 5 StockLine records', async () => {
      const page = (await nango.listRecords({ providerConfigKey: KEY, connectionId: CONN, model: 'StockLine' })) as Json;
      return page.records.length === 5 ? (page.records as Json[]) : null;
    });
    // The sync's own mapping ran: names upper-cased into `label`.
    assert.deepEqual(lines.map((l) => l.label).sort(), ['BOLT 1', 'BOLT 2', 'BOLT 3', 'BOLT 4', 'BOLT 5']);

    const id = generic.state.items[2]!.id;
    const out = (await nango.triggerAction(KEY, CONN, 'relabel', { id, label: 'hex bolt' })) as Json;
    assert.deepEqual({ id: out.id, label: out.label }, { id, label: 'hex bolt' });
    assert.equal(generic.state.items[2]!.name, 'hex bolt');
  });

  test('a second nango deploy dev with nothing changed makes no new script version', async () => {
    const r = await nangoCli(['deploy', 'dev', '--auto-confirm', '--no-interactive', '--no-dependency-update']);
    assert.equal(r.code, 0, r.output);
    const config = (await (await t.api('/scripts/config?format=switchyard')).json()) as Json;
    const scripts = config.data.find((c: Json) => c.integration === KEY).scripts as Json[];
    const deployed = scripts.filter((s) => s.source === 'deployed');
    assert.deepEqual(deployed.map((s) => [s.name, s.deployed_version]).sort(), [
      ['relabel', 1],
      ['stock', 1],
    ]);
  });

  // Nango's dry run runs the function on the developer's machine; the one thing it asks the
  // platform first is the connection, at GET /connection/:id, a path every Switchyard answers 410
  // from 2026-01-20 (a product rule, shared/API.md). The CLI stops there.
  test('nango dryrun stops at GET /connection/:id, answered 410 Gone', async () => {
    const from = apiRequests.requests.length;
    const r = await nangoCli(['dryrun', 'stock', CONN, '-e', 'dev', '--integration-id', KEY, '--no-interactive', '--no-dependency-update']);
    assert.notEqual(r.code, 0, r.output);
    assert.match(r.output, /status code 410/);
    const calls = apiRequests.requests.slice(from).map((q) => `${q.method} ${q.path} ${q.status}`);
    assert.deepEqual(calls, [`GET /connection/${CONN} 410`]);
  });
});
