/**
 * `switchyard deploy` of a project larger than one request (bench/large-project.ts: 3 integrations
 * of 12 functions, each bundle with its own zod):
 * one command deploys everything, in requests of whole integrations (a budget of 1 byte, SWITCHYARD_DEPLOY_BATCH_BYTES,
 * makes it one per integration), with progress lines when stdout is not a terminal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { writeLargeProject, type LargeProject } from '../bench/large-project.js';
import { PACKAGE_ROOT } from '../cli/project.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PACKAGE_ROOT, 'cli', 'bin.mjs'), ...args], {
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

describe('deploy of a project larger than one request', () => {
  let t: TestPlatform;
  let work: string;
  let project: LargeProject;
  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'deploy-scale-'));
    project = await writeLargeProject(path.join(work, 'proj'), { integrations: 3, functionsPerIntegration: 12 });
    for (const key of project.integrations) {
      assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: key } })).status, 200);
    }
  });
  after(async () => {
    await t?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('one command deploys all 36 functions, one request per integration, with progress lines', async () => {
    const env = { SWITCHYARD_HOST: t.url, SWITCHYARD_SECRET_KEY_DEV: t.devKey, SWITCHYARD_DEPLOY_BATCH_BYTES: '1' };
    const r = await cli(['deploy', 'dev', '--activate', '--dir', project.dir], env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /compiled 36 of 36 functions/);
    assert.match(r.stdout, /Comparing with dev at [^:]+:\/\/[^ ]+: 0\/36\n/);
    assert.match(r.stdout, /✓ Comparing with dev [^\n]*: 3 request\(s\)/);
    assert.match(r.stdout, /… Deploying to dev: \d+\/36 /);
    assert.match(r.stdout, /✓ Deploying to dev: 3 request\(s\), \d+\.\d MB uploaded/);
    assert.match(r.stdout, /Deployed versions 1–3 to dev: 36 new, 0 changed, 0 removed/);
    const config = (await (await t.api('/scripts/config?format=switchyard')).json()) as Json;
    for (const key of project.integrations) {
      const deployed = (config.data as Json[]).find((i) => i.integration === key)!.scripts.filter((s: Json) => s.source === 'deployed');
      assert.equal(deployed.length, 12, key);
    }
    const again = await cli(['deploy', 'dev', '--dir', project.dir], env);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /Nothing to deploy/);
  });
});
