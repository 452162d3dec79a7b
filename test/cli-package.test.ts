/**
 * The CLI as a package (issue 19, item 6): `npm run pack:cli` packs a tarball whose bin is compiled
 * JavaScript; it installs into an empty folder without install scripts (no native build, no tsx),
 * and the installed `switchyard` runs init, compile, deploy and generate against a running platform.
 * init and generate work without isolated-vm; compile says plainly that it needs it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { packCli } from '../cli/pack.js';
import { startGenericApiFake, type GenericApiFake } from './fakes/index.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** This node first on PATH (npm and the bin's `#!/usr/bin/env node` use it); no NODE_OPTIONS, so the bin adds its own flags. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _dropped, ...rest } = process.env;
  return { ...rest, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1', ...extra };
}

function exec(cmd: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

describe('the CLI as a package: packed, installed in an empty folder, run against a platform', () => {
  let t: TestPlatform;
  let api: GenericApiFake;
  let work: string;
  let installed: string;
  let cliEnv: Record<string, string>;
  let switchyard: (args: string[], extra?: Record<string, string>) => Promise<Ran>;

  before(async () => {
    t = await startTestPlatform();
    api = await startGenericApiFake({ bearer: 'k-pack', items: [{ name: 'first' }] });
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'cli-package-'));
    installed = path.join(work, 'installed');
    cliEnv = { SWITCHYARD_HOST: t.url, SWITCHYARD_SECRET_KEY_DEV: t.devKey };
    const bin = path.join(installed, 'node_modules', '.bin', 'switchyard');
    switchyard = (args, extra = {}) => exec(bin, args, work, { ...cliEnv, ...extra });
  });
  after(async () => {
    await t?.stop();
    await api?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('npm run pack:cli packs a tarball that installs with no install script and no tsx', async (ctx) => {
    const tarball = await packCli(path.join(work, 'pack'), path.join(work, 'stage'));
    assert.match(path.basename(tarball), /^switchyard-\d+\.\d+\.\d+\.tgz$/);
    await mkdir(installed);
    await writeFile(path.join(installed, 'package.json'), '{"private":true}\n');
    const started = performance.now();
    // --ignore-scripts: no postinstall, no node-gyp; whatever the CLI needs is prebuilt or bundled.
    const npm = await exec('npm', ['install', tarball, '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], installed);
    assert.equal(npm.code, 0, npm.stdout + npm.stderr);
    ctx.diagnostic(`tarball ${((await stat(tarball)).size / 1024).toFixed(0)} KiB; npm install ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const modules = await readdir(path.join(installed, 'node_modules'));
    assert.ok(!modules.includes('tsx'), modules.join(', '));
    const pkg = JSON.parse(await readFile(path.join(installed, 'node_modules', 'switchyard', 'package.json'), 'utf8')) as Json;
    assert.deepEqual(Object.keys(pkg.dependencies as object).sort(), ['esbuild', 'typescript', 'typescript-native']);
    assert.deepEqual(Object.keys(pkg.optionalDependencies as object), ['isolated-vm']);
    const main = await readFile(path.join(installed, 'node_modules', 'switchyard', pkg.bin.switchyard as string), 'utf8');
    assert.doesNotMatch(main, /from ["']tsx/);
    assert.equal((await readdir(path.join(installed, 'node_modules', 'switchyard', 'dist'))).filter((f) => f.endsWith('.ts')).length, 0);

    const version = await switchyard(['--version']);
    assert.equal(version.stdout.trim(), pkg.version, version.stderr);
    const help = await switchyard(['deploy', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: switchyard deploy <env>/);
    assert.match(help.stdout, /--activate/);
  });

  test('init and generate run without isolated-vm; compile says what it needs', async () => {
    const ivm = path.join(installed, 'node_modules', 'isolated-vm');
    await rename(ivm, `${ivm}.away`);
    try {
      const init = await switchyard(['init', 'proj']);
      assert.equal(init.code, 0, init.stdout + init.stderr);
      assert.ok(existsSync(path.join(work, 'proj', 'generic-api', 'syncs', 'items.ts')));
      // The project's zod (offline: the repository's).
      await mkdir(path.join(work, 'proj', 'node_modules'));
      await symlink(path.join(ROOT, 'node_modules', 'zod'), path.join(work, 'proj', 'node_modules', 'zod'), 'dir');

      const generate = await switchyard(['generate', '--dir', 'proj', '--out', 'empty-client.ts']);
      assert.equal(generate.code, 0, generate.stdout + generate.stderr);
      assert.ok(existsSync(path.join(work, 'proj', 'empty-client.ts')));

      const compile = await switchyard(['compile', '--dir', 'proj']);
      assert.equal(compile.code, 1, compile.stdout + compile.stderr);
      assert.match(compile.stderr, /run your scripts in the sandbox \(isolated-vm, a native module\) does not load/);
      assert.match(compile.stderr, /→ use Node 22 or 24/);
    } finally {
      await rename(`${ivm}.away`, ivm);
    }
  });

  test('compile, deploy and generate against the platform; the deployed action runs', async () => {
    const compile = await switchyard(['compile', '--dir', 'proj']);
    assert.equal(compile.code, 0, compile.stdout + compile.stderr);
    const manifest = JSON.parse(await readFile(path.join(work, 'proj', 'build', 'manifest.json'), 'utf8')) as Json;
    assert.deepEqual(manifest.scripts.map((s: Json) => `${s.integration}/${s.name}`).sort(), ['generic-api/create-item', 'generic-api/items']);

    const deploy = await switchyard(['deploy', 'dev', '--activate', '--dir', 'proj']);
    assert.equal(deploy.code, 0, deploy.stdout + deploy.stderr);
    assert.match(deploy.stdout, /\+ integration generic-api \(provider generic-api\) created/);
    const config = (await (await t.api('/scripts/config')).json()) as Json;
    assert.ok(JSON.stringify(config).includes('create-item'), JSON.stringify(config));

    const conn = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'generic-api',
        connection_id: 'pack',
        connection_config: { host: api.url },
        credentials: { type: 'API_KEY', apiKey: 'k-pack' },
      },
    });
    assert.equal(conn.status, 201, await conn.clone().text());
    const action = await t.api('/action/trigger', {
      method: 'POST',
      headers: { 'connection-id': 'pack', 'provider-config-key': 'generic-api' },
      json: { action_name: 'create-item', input: { name: 'from the tarball' } },
    });
    assert.equal(action.status, 200, await action.clone().text());
    assert.ok(api.state.items.some((i) => i.name === 'from the tarball'));

    const generate = await switchyard(['generate', '--dir', 'proj', '--out', 'client.ts']);
    assert.equal(generate.code, 0, generate.stdout + generate.stderr);
    const client = await readFile(path.join(work, 'proj', 'client.ts'), 'utf8');
    assert.match(client, /export function createClient/);
    assert.match(client, /"create-item": \{ input: CreateItemInput; output: CreateItemOutput \}/);
  });

  test('DEBUG=1 adds the stack to an error; without it, what to do', async () => {
    const plain = await switchyard(['deploy', 'dev', '--dir', 'no-such-project']);
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /No folder .*no-such-project\n\s+→ run the command in your integrations project/);
    assert.doesNotMatch(plain.stderr, /\n\s+at /);
    const debug = await switchyard(['deploy', 'dev', '--dir', 'no-such-project'], { DEBUG: '1' });
    assert.equal(debug.code, 1);
    assert.match(debug.stderr, /\n\s+at .*switchyard\.mjs/);
  });
});
