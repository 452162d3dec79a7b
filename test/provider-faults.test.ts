/**
 * Provider faults: 429 storms, 5xx bursts, answers slower than the timeout, truncated bodies,
 * invalid JSON and records that break the model's schema. Runs either succeed after backoff or
 * fail with a clear recorded error; the worker keeps serving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { createAction, createSync } from '../sdk/index.js';
import { startFaultyApi, type FaultyApi } from './fakes/faulty.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

registerPrebuiltScripts('metabase', {
  ...metabaseScripts,
  call: createAction({
    description: 'GETs a path of the provider and returns its JSON',
    endpoint: { method: 'POST', path: '/call' },
    input: z.object({ path: z.string(), retries: z.number().optional() }),
    output: z.object({ ok: z.boolean(), attempt: z.number().optional(), late: z.boolean().optional() }),
    async exec(ctx, input) {
      const res = await ctx.get<{ ok: boolean; attempt?: number }>({ endpoint: input.path, retries: input.retries ?? 0 });
      return res.data;
    },
  }),
  things: createSync({
    description: 'records, some of which break the model',
    frequency: 'every day',
    autoStart: false,
    endpoints: [{ method: 'GET', path: '/things' }],
    models: { Thing: z.object({ id: z.string(), name: z.string() }) },
    async exec(ctx) {
      const res = await ctx.get<{ items: { id: string }[] }>({ endpoint: '/records' });
      await ctx.batchSave(res.data.items, 'Thing');
    },
  }),
});

describe('provider faults', () => {
  let t: TestPlatform;
  let api: FaultyApi;
  const h = { 'connection-id': 'acme', 'provider-config-key': 'metabase' };
  const call = async (path: string, retries = 0) => {
    const res = await t.api('/call', { method: 'POST', headers: h, json: { path, retries } });
    return { status: res.status, body: (await res.json()) as Json };
  };

  before(async () => {
    api = await startFaultyApi();
    t = await startTestPlatform({ env: { SWITCHYARD_PROVIDER_TIMEOUT_MS: '1000' } });
    await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase', integration_config: { base_url: api.url } } });
    const res = await t.api('/connections', {
      method: 'POST',
      json: { provider_config_key: 'metabase', connection_id: 'acme', connection_config: { hostname: api.url }, credentials: { type: 'API_KEY', apiKey: 'k' } },
    });
    assert.equal(res.status, 201, await res.clone().text());
    await t.api('/integrations/metabase/endpoints', {
      method: 'PATCH',
      json: {
        endpoints: [
          { method: 'POST', path: '/call', enabled: true },
          { method: 'GET', path: '/things', enabled: true },
        ],
      },
    });
  });
  after(async () => {
    await t?.stop();
    await api?.close();
  });

  test('a 429 storm (5 in a row, Retry-After: 1) ends in success', async () => {
    const { status, body } = await call('/storm?fail=5');
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.attempt, 6);
    console.log('injected: 5 × 429; checked: 6th attempt succeeded');
  });

  test('a 5xx burst (6 × 503) ends in success after in-call retries and Temporal backoff', async () => {
    const { status, body } = await call('/burst?fail=6', 2);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.attempt, 7);
  });

  test('an answer slower than the timeout is retried and then succeeds', async () => {
    const { status, body } = await call('/slow?fail=1&ms=3000');
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.late, undefined);
    assert.equal(body.attempt, 2);
  });

  test('a truncated body (connection cut mid-response) is retried and then succeeds', async () => {
    const { status, body } = await call('/truncated?fail=2');
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.attempt, 3);
  });

  test('invalid JSON fails with a clear, recorded error', async () => {
    const { status, body } = await call('/invalid-json');
    assert.equal(status, 400);
    assert.equal(body.error.code, 'invalid_action_output');
    const run = await t.platform.deps.db.query(`SELECT status, error FROM action_runs WHERE input->>'path' = '/invalid-json'`);
    assert.equal(run.rows[0].status, 'failed');
    assert.equal(run.rows[0].error.code, 'invalid_action_output');
  });

  test('records that break the model are reported in the run, not saved; the valid ones are', async () => {
    await t.api('/sync/trigger', { method: 'POST', json: { syncs: ['things'], provider_config_key: 'metabase', connection_id: 'acme' } });
    let run: Json | undefined;
    for (let i = 0; i < 150 && !run; i++) {
      run = (await t.platform.deps.db.query(`SELECT status, invalid, results FROM sync_runs WHERE sync_name = 'things' AND status <> 'RUNNING'`)).rows[0];
      if (!run) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(run?.status, 'SUCCESS');
    assert.deepEqual(run!.invalid.map((p: Json) => p.id).sort(), ['b', 'c']);
    const saved = await t.platform.deps.db.query(`SELECT external_id FROM records WHERE model = 'Thing' ORDER BY external_id`);
    assert.deepEqual(
      saved.rows.map((r) => r.external_id),
      ['a', 'd'],
    );
  });

  test('after every fault the worker still serves runs', async () => {
    const { status, body } = await call('/storm');
    assert.equal(status, 200);
    assert.equal(body.ok, true);
  });
});
