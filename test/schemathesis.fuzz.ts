/**
 * Schemathesis against the OpenAPI document of a real platform: every generated request must get
 * an answer below 500 within the request timeout, and every answer must conform to the document
 * (a documented status code, the documented content type, a body that matches the documented
 * schema and the documented response headers). Not part of the
 * `npm test` walk (it needs Python's schemathesis); `.ci/run` installs it and runs this file with
 * `npm test -- test/schemathesis.fuzz.ts`. SCHEMATHESIS names the binary, SCHEMATHESIS_MAX_EXAMPLES
 * bounds the cases per operation.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startMetabaseFake } from './fakes/index.js';
import { connectMetabase, startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_schemathesis=';

function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    // Run outside the checkout: schemathesis keeps a cache folder in its working directory.
    const cwd = process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    const keep = (d: Buffer) => {
      process.stdout.write(d);
      output += d.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

describe('schemathesis against /openapi.json', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    // A connection with its script endpoints active, so that a generated request can reach them.
    await connectMetabase(t, metabase.url, API_KEY);
    const tab = (await (await t.api('/integrations/metabase/endpoints')).json()) as Json;
    const endpoints = tab.data.map((e: Json) => ({ method: e.method, path: e.path, enabled: true }));
    assert.equal((await t.api('/integrations/metabase/endpoints', { method: 'PATCH', json: { endpoints } })).status, 200);
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('no generated request gets a 5xx, no answer or an answer the document does not describe', async () => {
    const har = path.join(await mkdtemp(path.join(os.tmpdir(), 'schemathesis-')), 'run.har');
    const { code, output } = await run(process.env.SCHEMATHESIS ?? 'schemathesis', [
      'run',
      `${t.url}/openapi.json`,
      '--url',
      t.url,
      '--checks',
      'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance',
      '--header',
      `Authorization: Bearer ${t.devKey}`,
      '--max-examples',
      process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '20',
      '--request-timeout',
      '20',
      '--seed',
      process.env.SCHEMATHESIS_SEED ?? '20261123',
      // One worker: schemathesis's own generation has failed with internal errors when threaded.
      '--workers',
      '1',
      '--generation-database',
      'none',
      '--suppress-health-check',
      'all',
      '--no-color',
      // The HAR report counts the requests actually sent.
      '--report',
      'har',
      '--report-har-path',
      har,
    ]);
    const requests = await readFile(har, 'utf8').then(
      (text) => (JSON.parse(text) as { log: { entries: unknown[] } }).log.entries.length,
      () => null,
    );
    console.log(`schemathesis sent ${requests ?? 'an unknown number of'} requests`);
    assert.equal(code, 0, `schemathesis found server errors, hangs or answers that do not conform (exit ${code}):\n${output.slice(-4000)}`);
    // A run that generated next to nothing (a document it could not read) proves nothing.
    const generated = Number(/(\d+) generated/.exec(output)?.[1] ?? 0);
    assert.ok(generated >= 1000, `only ${generated} test cases were generated`);
  });
});
