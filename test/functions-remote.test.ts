import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startMetabaseFake } from './fakes/index.js';
import { connectMetabase, startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_remote=';

// A function as Nango's remote API receives it: one TypeScript file importing `nango` and `zod`.
const echoAction = `
import { createAction } from 'nango';
import * as z from 'zod';

const Input = z.object({ word: z.string() });
interface Echo { word: string; length: number }

export default createAction({
  description: 'returns its input with its length',
  version: '1.0.0',
  endpoint: { method: 'POST', path: '/echo' },
  input: Input,
  output: z.object({ word: z.string(), length: z.number() }),
  exec: async (nango, input): Promise<Echo> => {
    await nango.log('echoing ' + input.word);
    return { word: input.word, length: input.word.length };
  },
});
`;

async function poll(t: TestPlatform, url: string): Promise<Json> {
  for (;;) {
    const body = (await (await t.api(url)).json()) as Json;
    if (body.status === 'success' || body.status === 'failed') return body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('remote function API (compile, dry runs, deployments)', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    await connectMetabase(t, metabase.url, API_KEY);
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('POST /functions/compile bundles TypeScript; a syntax error is a 400 naming code', async () => {
    const ok = await t.api('/functions/compile', { method: 'POST', json: { code: echoAction } });
    assert.equal(ok.status, 200, await ok.clone().text());
    const body = (await ok.json()) as Json;
    assert.equal(body.bundle_size_bytes, Buffer.byteLength(body.bundled_js));
    assert.ok(body.bundle_size_bytes > 0);
    assert.ok(!Number.isNaN(Date.parse(body.compiled_at)));

    const bad = await t.api('/functions/compile', { method: 'POST', json: { code: 'export default createAction({ exec: async ( => 1 });' } });
    assert.equal(bad.status, 400);
    const err = ((await bad.json()) as Json).error;
    assert.deepEqual(err.errors[0].path, ['code']);
    assert.match(err.message, /does not compile/);

    const missing = await t.api('/functions/compile', { method: 'POST', json: {} });
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(await missing.json()), /code/);
  });

  test('a dry run of an action returns its input, with its log; nothing is deployed', async () => {
    const started = await t.api('/functions/dryruns', {
      method: 'POST',
      json: { integration_id: 'metabase', function_type: 'action', connection_id: 'acme', code: echoAction, input: { word: 'hello' } },
    });
    assert.equal(started.status, 202, await started.clone().text());
    const accepted = (await started.json()) as Json;
    assert.match(accepted.id, /^[0-9a-f-]{36}$/);
    const done = await poll(t, `/functions/dryruns/${accepted.id}`);
    assert.equal(done.status, 'success', JSON.stringify(done));
    assert.deepEqual(done.result, { word: 'hello', length: 5 });
    assert.equal(done.integration_id, 'metabase');
    assert.equal(done.function_type, 'action');
    assert.match(done.output, /echoing hello/);
    assert.ok(done.duration_ms >= 0);
    const listed = (await (await t.api('/integrations/metabase/functions')).json()) as Json;
    assert.ok(!listed.data.some((f: Json) => f.name === 'echo'));

    const sync = await t.api('/functions/dryruns', {
      method: 'POST',
      json: { integration_id: 'metabase', function_type: 'sync', connection_id: 'acme', code: echoAction },
    });
    assert.equal(sync.status, 400);
    assert.equal(((await sync.json()) as Json).error.code, 'unsupported_function_type');
    const noConnection = await t.api('/functions/dryruns', {
      method: 'POST',
      json: { integration_id: 'metabase', function_type: 'action', connection_id: 'nobody', code: echoAction },
    });
    assert.equal(noConnection.status, 404);
    assert.equal((await t.api('/functions/dryruns/00000000-0000-4000-8000-000000000000')).status, 404);
  });

  test('a deployment of an action, then POST /action/trigger runs it; the other functions stay', async () => {
    const before = (await (await t.api('/integrations/metabase/functions')).json()) as Json;
    const started = await t.api('/functions/deployments', {
      method: 'POST',
      json: { type: 'function', integration_id: 'metabase', function_name: 'echo', function_type: 'action', code: echoAction },
    });
    assert.equal(started.status, 202, await started.clone().text());
    const done = await poll(t, `/functions/deployments/${((await started.json()) as Json).id}`);
    assert.equal(done.status, 'success', JSON.stringify(done));
    assert.equal(done.deployed, true);
    assert.deepEqual(done.deployed_functions, [{ name: 'echo', version: '1.0.0' }]);
    assert.equal(done.function_name, 'echo');

    const after = (await (await t.api('/integrations/metabase/functions')).json()) as Json;
    assert.equal(after.pagination.total, before.pagination.total + 1);
    const run = await t.api('/action/trigger', {
      method: 'POST',
      headers: { 'connection-id': 'acme', 'provider-config-key': 'metabase' },
      json: { action_name: 'echo', input: { word: 'deployed' } },
    });
    assert.equal(run.status, 200, await run.clone().text());
    assert.deepEqual(await run.json(), { word: 'deployed', length: 8 });

    // A second function is added beside the first; one declaring the first's endpoint is refused.
    const shout = echoAction.replace("path: '/echo'", "path: '/shout'").replace('input.word,', 'input.word.toUpperCase(),');
    const second = await t.api('/functions/deployments', {
      method: 'POST',
      json: { type: 'function', integration_id: 'metabase', function_name: 'shout', function_type: 'action', code: shout, version: '2.0.0' },
    });
    assert.equal(second.status, 202);
    const secondDone = await poll(t, `/functions/deployments/${((await second.json()) as Json).id}`);
    assert.deepEqual(secondDone.deployed_functions, [{ name: 'shout', version: '2.0.0' }]);
    const both = (await (await t.api('/integrations/metabase/functions')).json()) as Json;
    assert.deepEqual(both.data.map((f: Json) => f.name).sort(), ['echo', 'shout']);
    const clash = await t.api('/functions/deployments', {
      method: 'POST',
      json: { type: 'function', integration_id: 'metabase', function_name: 'echo-again', function_type: 'action', code: echoAction },
    });
    const clashDone = await poll(t, `/functions/deployments/${((await clash.json()) as Json).id}`);
    assert.equal(clashDone.status, 'failed');
    assert.match(clashDone.error.message, /already declared by the deployed script echo/);

    const again = await t.api('/functions/deployments', {
      method: 'POST',
      json: { type: 'function', integration_id: 'metabase', function_name: 'echo', function_type: 'action', code: echoAction },
    });
    assert.equal(again.status, 409);
    assert.equal(((await again.json()) as Json).error.code, 'function_already_deployed');
    const wrongType = await t.api('/functions/deployments', {
      method: 'POST',
      json: { type: 'function', integration_id: 'metabase', function_name: 'echo2', function_type: 'sync', code: echoAction },
    });
    assert.equal(wrongType.status, 400);
    assert.deepEqual(((await wrongType.json()) as Json).error.errors[0].path, ['function_type']);
    const template = await t.api('/functions/deployments', { method: 'POST', json: { type: 'template', integration_id: 'metabase', template: 'no-such' } });
    assert.equal(template.status, 404);
    assert.equal(((await template.json()) as Json).error.code, 'unknown_template');
  });
});
