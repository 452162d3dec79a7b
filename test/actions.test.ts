import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { z } from 'zod';
import { clockFrom } from '../lib/clock.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { createAction } from '../sdk/index.js';
import { startMetabaseFake } from './fakes/index.js';
import { connectMetabase, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { startWorkerProcess } from './worker-process.js';
import { actionRunsFor, userPosts } from './exactly-once.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_actions=';

// A script returning a 3 MB output, registered in-process for the output-limit tests.
registerPrebuiltScripts('metabase', {
  ...metabaseScripts,
  'big-report': createAction({
    description: 'returns a large payload',
    endpoint: { method: 'GET', path: '/big-report' },
    input: z.object({}),
    output: z.object({ blob: z.string() }),
    async exec() {
      return { blob: 'x'.repeat(3 * 1024 * 1024) };
    },
  }),
});

const unified = (connectionId = 'acme') => ({ 'connection-id': connectionId, 'provider-config-key': 'metabase' });

describe('actions', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await connectMetabase(t, metabase.url, API_KEY, { endpoints: ['POST /users', 'GET /users/single', 'PUT /users/enable'] });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('the Endpoints tab lists every script endpoint; a deactivated one answers 404 endpoint_not_enabled', async () => {
    const tab = (await (await t.api('/integrations/metabase/endpoints')).json()) as Json;
    const byKey = Object.fromEntries(tab.data.map((e: Json) => [`${e.method} ${e.path}`, e]));
    assert.equal(byKey['POST /users'].script, 'create-user');
    assert.equal(byKey['POST /users'].enabled, true);
    assert.equal(byKey['GET /users'].type, 'sync');
    assert.equal(byKey['PUT /users'].enabled, false);
    const disabled = await t.api('/users', { method: 'PUT', headers: unified(), json: { id: 2 } });
    assert.equal(disabled.status, 404);
    assert.equal(((await disabled.json()) as Json).error.code, 'endpoint_not_enabled');
    const viaTrigger = await t.api('/action/trigger', { method: 'POST', headers: unified(), json: { action_name: 'update-user', input: {} } });
    assert.equal(viaTrigger.status, 404);
    const unknownEndpoint = await t.api('/v1/nothing', { headers: unified() });
    assert.equal(unknownEndpoint.status, 404);
  });

  test('triggerAction returns the output synchronously; the write shows in the cache at once', async () => {
    const user = (await nango.triggerAction('metabase', 'acme', 'create-user', { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' })) as Json;
    assert.equal(user.email, 'ada@example.com');
    assert.equal(user.active, true);
    assert.ok(metabase.state.users.some((u) => u.email === 'ada@example.com'));
    const cached = await t.platform.deps.db.query(`SELECT data FROM records WHERE model = 'User' AND external_id = $1`, [user.id]);
    assert.equal(cached.rows[0].data.email, 'ada@example.com');
    const viaUnified = (await (await t.api(`/v1/users/single?id=${user.id}`, { headers: unified() })).json()) as Json;
    assert.equal(viaUnified.firstName, 'Ada');
  });

  test('triggerActionAsync then getAsyncActionResult; the async_action event is recorded', async () => {
    const started = (await nango.triggerActionAsync('metabase', 'acme', 'create-user', { firstName: 'Bob', lastName: 'B', email: 'bob@example.com' })) as Json;
    assert.match(started.statusUrl, /^\/action\/[0-9a-f-]{36}$/);
    let result: Json | null = null;
    for (let i = 0; i < 100 && !result; i++) {
      try {
        result = (await nango.getAsyncActionResult({ id: started.id })) as Json;
      } catch (err) {
        if ((err as Json).response?.status !== 404) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    assert.equal(result?.email, 'bob@example.com');
    for (let i = 0; i < 50; i++) {
      const ev = await t.platform.deps.db.query(`SELECT payload FROM events WHERE type = 'async_action'`);
      if (ev.rows.length) {
        assert.equal(ev.rows[0].payload.payload.id, started.id);
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail('no async_action event');
  });

  test('bad input and script errors map to the documented codes', async () => {
    const bad = await t.api('/action/trigger', { method: 'POST', headers: unified(), json: { action_name: 'create-user', input: { firstName: 'x' } } });
    assert.equal(bad.status, 400);
    const badBody = (await bad.json()) as Json;
    assert.equal(badBody.error.code, 'invalid_action_input');
    assert.ok(badBody.error.errors.some((e: Json) => e.path[0] === 'email'));
    const noConn = await t.api('/action/trigger', { method: 'POST', headers: unified('ghost'), json: { action_name: 'create-user', input: {} } });
    assert.equal(noConn.status, 400);
    assert.equal(((await noConn.json()) as Json).error.code, 'unknown_connection');
    const noAction = await t.api('/action/trigger', { method: 'POST', headers: unified(), json: { action_name: 'nope', input: {} } });
    assert.equal(noAction.status, 404);
    const missingHeader = await t.api('/action/trigger', { method: 'POST', json: { action_name: 'create-user' } });
    assert.equal(missingHeader.status, 400);
    assert.equal(((await missingHeader.json()) as Json).error.code, 'invalid_headers');
    const dup = await t.api('/users', { method: 'POST', headers: unified(), json: { firstName: 'Ada', lastName: 'L', email: 'ADA@example.com' } });
    assert.equal(dup.status, 424);
    const dupBody = (await dup.json()) as Json;
    assert.equal(dupBody.error.code, 'script_http_error');
    assert.equal(dupBody.error.payload.errors.email, 'Email address already in use.');
    // Nango's error.upstream: the provider's status, its content type, and its body.
    assert.equal(dupBody.error.upstream?.status, 400, JSON.stringify(dupBody.error));
    assert.match(String(dupBody.error.upstream.headers['content-type']), /json/);
    assert.equal(dupBody.error.upstream.body.errors.email, 'Email address already in use.');
    const notFound = await t.api('/v1/users/single?id=9999', { headers: unified() });
    assert.equal(notFound.status, 424);
    const negative = await t.api('/users/single?id=-1', { headers: unified() });
    assert.equal(negative.status, 500);
    assert.equal(((await negative.json()) as Json).error.code, 'action_script_runtime_error');
    const tooBig = await t.api('/action/trigger', {
      method: 'POST',
      headers: unified(),
      json: { action_name: 'create-user', input: { pad: 'x'.repeat(2 * 1024 * 1024 + 10) } },
    });
    assert.equal(tooBig.status, 413);
    assert.equal(((await tooBig.json()) as Json).error.code, 'action_input_too_large');
  });

  test('X-Max-Retries with X-Async tries a failed run again; without it the failure stands', async () => {
    const user = metabase.state.users.find((u) => u.email === 'ada@example.com')!;
    const fetchOnce = async (headers: Record<string, string>) => {
      metabase.failNext({ status: 404, body: '"Not found."', match: (r) => r.method === 'GET' && r.path === `/api/user/${user.id}` });
      const started = (await (
        await t.api('/action/trigger', {
          method: 'POST',
          headers: { ...unified(), 'x-async': 'true', ...headers },
          json: { action_name: 'fetch-user', input: { id: user.id } },
        })
      ).json()) as Json;
      return waitFor('the action result', async () => {
        const r = await t.api(`/action/${started.id}`);
        return r.status === 404 ? null : { status: r.status, body: (await r.json()) as Json };
      });
    };
    const retried = await fetchOnce({ 'x-max-retries': '1' });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.email, 'ada@example.com');
    const once = await fetchOnce({});
    assert.equal(once.status, 424, JSON.stringify(once.body));
    const tooMany = await t.api('/action/trigger', {
      method: 'POST',
      headers: { ...unified(), 'x-async': 'true', 'x-max-retries': '6' },
      json: { action_name: 'fetch-user', input: { id: user.id } },
    });
    assert.equal(tooMany.status, 400);
  });

  test("Nango's POST /functions/invocations runs an action (wait and no_wait) and GET /functions/invocations/:id reads it", async () => {
    const invoke = (body: Json) => t.api('/functions/invocations', { method: 'POST', json: body });
    const created = await invoke({
      integration_id: 'metabase',
      connection_id: 'acme',
      name: 'create-user',
      input: { firstName: 'In', lastName: 'Vo', email: 'invoked@example.com' },
      invocation_type: 'wait',
    });
    assert.equal(created.status, 200);
    const user = (await created.json()) as Json;
    assert.equal(user.email, 'invoked@example.com');
    const call = { integration_id: 'metabase', connection_id: 'acme', name: 'fetch-user', input: { id: Number(user.id) } };

    const started = await invoke({ ...call, invocation_type: 'no_wait', options: { anything: 1 } });
    assert.equal(started.status, 202);
    const accepted = (await started.json()) as Json;
    assert.equal(accepted.statusUrl, `/functions/invocations/${accepted.id}`);
    assert.equal(started.headers.get('location'), accepted.statusUrl);
    const result = await waitFor('the invocation result', async () => {
      const r = await t.api(accepted.statusUrl);
      return r.status === 202 ? null : { status: r.status, body: (await r.json()) as Json };
    });
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.equal(result.body.email, 'invoked@example.com');

    const refusal = async (body: Json) => {
      const r = await invoke(body);
      return { status: r.status, error: ((await r.json()) as Json).error };
    };
    const ghost = await refusal({ ...call, connection_id: 'ghost', invocation_type: 'wait' });
    assert.deepEqual([ghost.status, ghost.error.code], [404, 'connection_not_found']);
    const unknown = await refusal({ ...call, name: 'nope', invocation_type: 'wait' });
    assert.deepEqual([unknown.status, unknown.error.code], [404, 'unknown_function']);
    const sync = await refusal({ ...call, name: 'users', invocation_type: 'no_wait' });
    assert.deepEqual([sync.status, sync.error.code], [400, 'invalid_invocation']);
    const noType = await refusal(call);
    assert.deepEqual([noType.status, noType.error.code], [400, 'invalid_body']);
    assert.ok(
      noType.error.errors.some((e: Json) => e.path[0] === 'invocation_type'),
      JSON.stringify(noType.error),
    );
    const badInput = await refusal({ ...call, input: { id: 'x' }, invocation_type: 'wait' });
    assert.deepEqual([badInput.status, badInput.error.code], [400, 'invalid_action_input']);
    const other = await t.api('/functions/invocations/00000000-0000-4000-8000-000000000000');
    assert.equal(other.status, 404);
    const badId = await t.api('/functions/invocations/nope');
    assert.equal(((await badId.json()) as Json).error.code, 'invalid_uri_params');
  });

  test('a 429 with Retry-After: 2 makes the next attempt wait about 2 s, then it succeeds', async () => {
    metabase.failNext({ status: 429, headers: { 'retry-after': '2' }, body: 'slow down', match: (r) => r.method === 'POST' && r.path === '/api/user' });
    const user = (await nango.triggerAction('metabase', 'acme', 'create-user', { firstName: 'Cy', lastName: 'C', email: 'cy@example.com' })) as Json;
    assert.equal(user.email, 'cy@example.com');
    const posts = metabase.requests.filter((r) => r.method === 'POST' && r.path === '/api/user' && r.body.includes('cy@example.com'));
    assert.equal(posts.length, 2);
    assert.equal(posts[0]!.status, 429);
    const waited = posts[1]!.at - posts[0]!.at;
    assert.ok(waited >= 1900 && waited < 15_000, `waited ${waited} ms`);
  });

  test('an output over 2 MB fails with action_output_too_large', async () => {
    await t.api('/integrations/metabase/endpoints', { method: 'PATCH', json: { endpoints: [{ method: 'GET', path: '/big-report', enabled: true }] } });
    const res = await t.api('/big-report', { headers: unified() });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as Json).error.code, 'action_output_too_large');
  });
});

describe('actions before 2025-10-01', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  before(async () => {
    t = await startTestPlatform({ clock: clockFrom(new Date('2025-09-15T00:00:00Z')) });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    await connectMetabase(t, metabase.url, API_KEY, { endpoints: 'all' });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('a 3 MB output passes with a warning in the run log', async () => {
    const res = await t.api('/big-report', { headers: unified() });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as Json).blob.length, 3 * 1024 * 1024);
    const logs = await t.platform.deps.db.query(`SELECT logs FROM action_runs WHERE action_name = 'big-report'`);
    assert.match(JSON.stringify(logs.rows[0].logs), /From 2025-10-01 this is an error/);
  });
});

describe('actions survive a worker killed during a 429 wait', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('kill -9 the worker while the action waits; after a restart the async caller gets the result', async () => {
    let worker = await startWorkerProcess(t);
    await connectMetabase(t, metabase.url, API_KEY, { endpoints: 'all' });
    metabase.failNext({ status: 429, headers: { 'retry-after': '4' }, match: (r) => r.method === 'POST' && r.path === '/api/user' });
    const started = (await (
      await t.api('/action/trigger', {
        method: 'POST',
        headers: { ...unified(), 'x-async': 'true' },
        json: { action_name: 'create-user', input: { firstName: 'Di', lastName: 'D', email: 'di@example.com' } },
      })
    ).json()) as Json;
    await waitFor('the worker to reach the provider (429)', async () => metabase.requests.some((r) => r.status === 429));
    await worker.kill();
    worker = await startWorkerProcess(t);
    try {
      const res = await waitFor('the action result', async () => {
        const r = await t.api(`/action/${started.id}`);
        return r.status === 404 ? null : r;
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as Json).email, 'di@example.com');
      // Counted where a second write would show (the fake refuses a second user with this e-mail, so its user count cannot).
      assert.deepEqual(
        userPosts(metabase, 'di@example.com'),
        [429, 200],
        'POSTs at the provider: the one refused with 429, then the one that created the user',
      );
      assert.equal(await actionRunsFor(t.platform.deps.db, 'di@example.com'), 1, 'one action run');
    } finally {
      await worker.stop();
    }
  });
});
