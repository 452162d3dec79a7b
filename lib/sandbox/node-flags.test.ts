import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { missingSandboxFlags, SANDBOX_NODE_FLAGS } from './node-flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function withoutSandboxFlags(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _dropped, ...rest } = env;
  return rest;
}

function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out }));
  });
}

describe('--no-node-snapshot wherever the sandbox loads (isolated-vm on Node 20+)', () => {
  test('missingSandboxFlags reads the command line and NODE_OPTIONS', () => {
    assert.deepEqual(missingSandboxFlags([], ''), ['--no-node-snapshot']);
    assert.deepEqual(missingSandboxFlags(['--import', 'tsx'], '--max-old-space-size=512'), ['--no-node-snapshot']);
    assert.deepEqual(missingSandboxFlags(['--no-node-snapshot', '--import', 'tsx'], ''), []);
    assert.deepEqual(missingSandboxFlags([], '--enable-source-maps --no-node-snapshot'), []);
  });

  test('the test files run with it (test/run.ts)', () => {
    assert.deepEqual(missingSandboxFlags(), []);
  });

  test('every package.json script that starts the platform, the tests, the CLI or the bench passes it', () => {
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const name of ['start', 'api', 'worker', 'test', 'test:soak', 'cli', 'bench']) {
      const args = scripts[name]!.split(/\s+/);
      const node = args.indexOf('node');
      assert.ok(node >= 0, `${name}: ${scripts[name]}`);
      assert.deepEqual(missingSandboxFlags(args.slice(node + 1), ''), [], `${name}: ${scripts[name]}`);
    }
  });

  test('a platform process started without it stops at once and says which flag is missing', async () => {
    const { code, out } = await runNode(['--import', 'tsx', 'start/worker.ts'], {
      ...withoutSandboxFlags(process.env),
      DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:1/none',
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      SWITCHYARD_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    });
    assert.equal(code, 1, out);
    assert.match(out, /node must run with --no-node-snapshot/);
  });

  test('the switchyard bin started without it runs the CLI in a node process that has it', async () => {
    // Prints each process's flags: the bin's own first, then the CLI's.
    const probe = `data:text/javascript,console.log('execArgv=' + JSON.stringify(process.execArgv.filter((a) => a.startsWith('--no-'))))`;
    const { code, out } = await runNode(['--import', probe, 'cli/bin.mjs', '--help'], withoutSandboxFlags(process.env));
    assert.equal(code, 0, out);
    const seen = [...out.matchAll(/^execArgv=(.*)$/gm)].map((m) => JSON.parse(m[1]!) as string[]);
    assert.deepEqual(seen.at(-1), [...SANDBOX_NODE_FLAGS], out);
  });
});
