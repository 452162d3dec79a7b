import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../lib/config.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

describe('foundation', () => {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform();
  });
  after(async () => {
    await t?.stop();
  });

  test('GET /health reports database and Temporal reachability without auth', async () => {
    const res = await t.api('/health', { key: null });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { result: 'ok', database: { ok: true }, temporal: { ok: true } });
  });

  test('a workflow started by the API runs on the worker and its result comes back', async () => {
    const res = await t.api('/diagnostics/roundtrip', { method: 'POST', json: { echo: 'héllo' } });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { workflowId: string; taskQueue: string; databaseTime: string; echo: string };
    assert.match(body.workflowId, /^diagnostics:dev:/);
    assert.equal(body.taskQueue, `${t.config.SWITCHYARD_TASK_QUEUE_PREFIX}-dev`);
    assert.equal(body.echo, 'héllo');
    assert.ok(Math.abs(Date.parse(body.databaseTime) - Date.now()) < 60_000);
  });

  test('the prod key selects the prod environment and its own task queue', async () => {
    const res = await t.api('/diagnostics/roundtrip', { method: 'POST', key: t.prodKey });
    const body = (await res.json()) as { taskQueue: string };
    assert.equal(body.taskQueue, `${t.config.SWITCHYARD_TASK_QUEUE_PREFIX}-prod`);
  });

  const authCases: [string, Record<string, string>, string][] = [
    ['no header', {}, 'missing_auth_header'],
    ['nothing after Bearer', { authorization: 'Bearer ' }, 'malformed_auth_header'],
    ['not a UUID v4', { authorization: 'Bearer not-a-key' }, 'invalid_secret_key_format'],
    ['unknown key', { authorization: `Bearer ${crypto.randomUUID()}` }, 'unknown_account'],
  ];
  for (const [name, headers, code] of authCases) {
    test(`401 ${code} for ${name}`, async () => {
      const res = await t.api('/diagnostics/roundtrip', { method: 'POST', key: null, headers });
      assert.equal(res.status, 401);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, code);
      assert.ok(body.error.message.length > 0);
    });
  }

  test('invalid JSON is a 400 invalid_json', async () => {
    const res = await t.api('/diagnostics/roundtrip', { method: 'POST', body: '{"echo": ', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_json');
  });

  test('a non-JSON content type is a 415', async () => {
    const res = await t.api('/diagnostics/roundtrip', { method: 'POST', body: 'echo=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(res.status, 415);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_content_type');
  });

  test('a wrong field is a 400 naming the field', async () => {
    const res = await t.api('/diagnostics/roundtrip', { method: 'POST', json: { echo: 5 } });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; errors: { path: string[] }[] } };
    assert.equal(body.error.code, 'invalid_body');
    assert.deepEqual(body.error.errors[0]!.path, ['echo']);
  });

  test('clients below 0.67.0 get 426; 0.67.0 and later pass', async () => {
    const old = await t.api('/diagnostics/roundtrip', { method: 'POST', headers: { 'user-agent': 'nango-node-client/0.66.2 (linux; node.js/20)' } });
    assert.equal(old.status, 426);
    assert.match(((await old.json()) as { error: { message: string } }).error.message, /0\.67\.0/);
    const cli = await t.api('/health', { key: null, headers: { 'switchyard-client-version': '0.66.0' } });
    assert.equal(cli.status, 426);
    const ok = await t.api('/health', { key: null, headers: { 'user-agent': 'switchyard-cli/0.67.0' } });
    assert.equal(ok.status, 200);
  });

  test('unknown routes answer 404 in the error envelope; request ids are echoed', async () => {
    const res = await t.api('/nope', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('x-request-id'), 'abc-123');
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'not_found');
  });

  test('CORS preflight is answered for browsers', async () => {
    const res = await fetch(`${t.url}/connections`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });

  test('/openapi.json is generated from the zod schemas', async () => {
    const doc = (await (await t.api('/openapi.json', { key: null })).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/health']?.get);
    assert.ok(doc.paths['/diagnostics/roundtrip']?.post?.requestBody);
  });

  test('/docs is the API reference page for /openapi.json', async () => {
    const res = await fetch(`${t.url}/docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await res.text(), /\/openapi\.json/);
  });
});

describe('configuration', () => {
  test('a bad value stops the start with a message naming the variable', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty' }),
      (err: unknown) => err instanceof ConfigError && /PORT/.test(err.message),
    );
    assert.throws(() => loadConfig({ SWITCHYARD_SECRET_KEY_DEV: '123' }), /SWITCHYARD_SECRET_KEY_DEV: must be a UUID v4/);
    assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL/);
  });

  test('npm start with a bad variable exits non-zero and names it', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'start/start-all.ts'], {
      env: { ...process.env, TEMPORAL_ADDRESS: 'no port here' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /TEMPORAL_ADDRESS: must be host:port/);
  });
});
