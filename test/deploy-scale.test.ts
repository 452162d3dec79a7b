/**
 * `switchyard deploy` of a project larger than one request (bench/large-project.ts: 3 integrations
 * of 12 functions, each bundle with its own zod):
 * one command deploys everything, in requests of whole integrations (a budget of 1 byte, SWITCHYARD_DEPLOY_BATCH_BYTES,
 * makes it one per integration), with progress lines when stdout is not a terminal; the preview names
 * each bundle by its hash, so every bundle and shared module goes up once (counted by a recording proxy).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

interface Sent {
  path: string;
  body: Json;
}

/** A pass-through between the CLI and the platform that keeps every JSON request body it forwards. */
async function recordingProxy(target: string): Promise<{ url: string; sent: Sent[]; close: () => Promise<void> }> {
  const sent: Sent[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length) sent.push({ path: req.url ?? '', body: JSON.parse(body.toString()) as Json });
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(k)),
      ) as Record<string, string>;
      fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined }).then(
        async (r) => {
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await r.arrayBuffer()));
        },
        (err: Error) => {
          res.writeHead(502);
          res.end(err.message);
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
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

  test('one command deploys all 36 functions, one request per integration, with progress lines; each bundle and shared module is uploaded once', async (ctx) => {
    const proxy = await recordingProxy(t.url);
    const env = { SWITCHYARD_HOST: proxy.url, SWITCHYARD_SECRET_KEY_DEV: t.devKey, SWITCHYARD_DEPLOY_BATCH_BYTES: '1' };
    const r = await cli(['deploy', 'dev', '--activate', '--dir', project.dir], env).finally(() => proxy.close());
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // Bundles (a script's entry module) and shared modules (zod, the SDK runtime, models) as the requests carried them.
    const bundles = new Map<string, number>();
    const modules = new Map<string, number>();
    const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    for (const { body } of proxy.sent.filter((x) => x.path.startsWith('/scripts/deploy'))) {
      for (const s of (body.scripts ?? []) as Json[]) if (s.bundle !== undefined) count(bundles, `${s.integration}/${s.name}`);
      for (const sha of Object.keys(body.modules ?? {})) count(modules, sha);
    }
    const uploaded = (p: string) => proxy.sent.filter((x) => x.path === p).reduce((n, x) => n + JSON.stringify(x.body).length, 0);
    const twice = [...bundles, ...modules].filter(([, n]) => n > 1);
    assert.equal(bundles.size, 36);
    assert.ok(modules.size > 0);
    assert.deepEqual(
      twice,
      [],
      `uploaded more than once: ${twice.length} of ${bundles.size + modules.size} (preview ${uploaded('/scripts/deploy/preview')} bytes, deploy ${uploaded('/scripts/deploy')} bytes)`,
    );
    ctx.diagnostic(`preview ${uploaded('/scripts/deploy/preview')} bytes, deploy ${uploaded('/scripts/deploy')} bytes`);
    assert.ok(uploaded('/scripts/deploy/preview') * 10 < uploaded('/scripts/deploy'));
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
    // The preview by hashes finds every one unchanged.
    const again = await cli(['deploy', 'dev', '--dir', project.dir], { ...env, SWITCHYARD_HOST: t.url });
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /Nothing to deploy/);
  });

  test('a preview names each script by its bundle or by its sha256, not both nor neither (400 naming the field)', async () => {
    const script = { integration: project.integrations[0], name: 'x', manifest: { type: 'action', endpoint: { method: 'GET', path: '/x' } } };
    const sha256 = 'a'.repeat(64);
    for (const [extra, field] of [
      [{}, 'bundle'],
      [{ bundle: 'var x = 1', sha256 }, 'bundle'],
      [{ sha256, modules: { 'a.js': sha256 } }, 'modules'],
    ] as const) {
      const res = await t.api('/scripts/deploy/preview', { method: 'POST', json: { scripts: [{ ...script, ...extra }], cli_version: '0.71.0' } });
      assert.equal(res.status, 400);
      const body = (await res.json()) as Json;
      assert.ok(
        (body.error.errors as Json[]).some((e) => e.path.join('.') === `scripts.0.${field}`),
        JSON.stringify(body),
      );
    }
  });
});
