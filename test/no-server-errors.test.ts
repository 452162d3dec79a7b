/**
 * Inputs that once answered 500 (or nothing): each goes through the real app and must get a 4xx in
 * the error envelope naming the field, or its proper answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clockFrom } from '../lib/clock.js';
import { startMetabaseFake } from './fakes/index.js';
import { connectMetabase, startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_no_server_errors=';
const unified = { 'connection-id': 'acme', 'provider-config-key': 'metabase' };

async function errorOf(res: Response, status: number): Promise<Json> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return (JSON.parse(text) as Json).error as Json;
}

describe('no 500 for bad input', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;

  before(async () => {
    // Before 2026-01-20, so that the legacy /connection paths still parse their bodies.
    t = await startTestPlatform({ runWorker: true, clock: clockFrom(new Date('2026-01-10T00:00:00Z')) });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    await connectMetabase(t, metabase.url, API_KEY);
    const patched = await t.api('/integrations/metabase/endpoints', {
      method: 'PATCH',
      json: { endpoints: [{ method: 'GET', path: '/users/single', enabled: true }] },
    });
    assert.equal(patched.status, 200);
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('a GET action reads its query by the input schema: id=007 is the number 7', async () => {
    const user = metabase.addUser({ email: 'zero-padded@example.com', first_name: 'Zed' });
    const res = await t.api(`/users/single?id=00${user.id}`, { headers: unified });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(((await res.json()) as Json).id, String(user.id));
    const notNumber = await errorOf(await t.api('/users/single?id=seven', { headers: unified }), 400);
    assert.equal(notNumber.code, 'invalid_action_input');
    assert.deepEqual(
      notNumber.errors.map((e: Json) => e.path),
      [['id']],
    );
  });

  test('-0 reaches the script as the number 0, which refuses it like any id below 1', async () => {
    const minusZero = await errorOf(await t.api('/users/single?id=-0', { headers: unified }), 500);
    assert.equal(minusZero.code, 'action_script_runtime_error');
    assert.equal(minusZero.payload.message, 'id must be a positive integer');
  });

  test('a NUL in a query filter is a 400 naming it, not a database error', async () => {
    const err = await errorOf(await t.api('/alerts?provider_config_key=nope&connection_id=x%00'), 400);
    assert.equal(err.code, 'invalid_query_params');
    assert.deepEqual(err.errors[0].path, ['connection_id']);
  });

  test('strings the database cannot hold (NUL, lone UTF-16 surrogates) in a JSON body are a 400 naming the field', async () => {
    // Found by schemathesis: a NUL in a script's integration key reached a query; jsonb refuses an unpaired surrogate.
    const preview = '{"scripts":[{"integration":"metabase\\u0000","name":"a","bundle":"x","manifest":{}}]}';
    const nul = await errorOf(await t.api('/scripts/deploy/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: preview }), 400);
    assert.equal(nul.code, 'invalid_body');
    assert.deepEqual(nul.errors[0].path, ['scripts', 0, 'integration']);
    const metadata = '{"connection_id":"acme","provider_config_key":"metabase","metadata":{"note":"a\\ud800b"}}';
    const lone = await errorOf(await t.api('/connections/metadata', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: metadata }), 400);
    assert.equal(lone.code, 'invalid_body');
    assert.deepEqual(lone.errors[0].path, ['metadata', 'note']);
  });

  test('the legacy POST /connection refuses a body that is not a JSON object with a 4xx', async () => {
    for (const body of ['null', '[1]', '"text"', '{"unterminated": ']) {
      const res = await t.api('/connection', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const err = await errorOf(res, 400);
      assert.match(err.code, /^invalid_(json|body)$/, body);
    }
  });

  test('proxy paths with control characters get an answer from the provider, not a hang or a 5xx', async () => {
    for (const path of ['/proxy/a%0Ab', '/proxy/%00', '/proxy/%01%1F%7F', '/proxy/%0D%0AX-Injected:%201', '/proxy/a%09b%5C']) {
      const res = await t.api(path, { headers: { ...unified, Retries: '2' } });
      assert.equal(res.status, 404, `${path}: ${await res.clone().text()}`);
      assert.equal(await res.text(), 'API endpoint does not exist.', 'the answer is the Metabase fake’s own 404');
    }
  });
});
