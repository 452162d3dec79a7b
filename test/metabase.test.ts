/**
 * The Metabase user-management state machine, through the public API only: create → disable →
 * update refused → enable → update works, and the users list shows disabled users.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, createMetabaseIntegration, enableMetabaseEndpoints, startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_statemachine=';
const h = { 'connection-id': 'acme', 'provider-config-key': 'metabase' };

describe('Metabase user management', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await createMetabaseIntegration(t);
    await enableMetabaseEndpoints(t, 'all');
    await addMetabaseConnection(t, metabase.url, API_KEY);
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('create → disable → update refused → enable → update works; the list shows the disabled user', async () => {
    const created = (await (
      await t.api('/users', { method: 'POST', headers: h, json: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' } })
    ).json()) as Json;
    assert.equal(created.active, true);
    const id = Number(created.id);

    const disabled = await t.api('/users', { method: 'DELETE', headers: h, json: { id } });
    assert.equal(disabled.status, 200);
    assert.deepEqual(await disabled.json(), { success: true });
    assert.equal(metabase.findUser(id)?.is_active, false);

    const fetched = (await (await t.api(`/users/single?id=${id}`, { headers: h })).json()) as Json;
    assert.equal(fetched.active, false);

    const update = { id, email: null, first_name: 'Amazing', last_name: null, is_group_manager: null, locale: null, is_superuser: null };
    const refused = await t.api('/users', { method: 'PUT', headers: h, json: update });
    assert.equal(refused.status, 500);
    const refusal = (await refused.json()) as Json;
    assert.equal(refusal.error.code, 'action_script_runtime_error');
    assert.match(refusal.error.payload.message, /disabled/);
    assert.equal(metabase.findUser(id)?.first_name, 'Grace');

    const enabled = await t.api('/users/enable', { method: 'PUT', headers: h, json: { id } });
    assert.deepEqual(await enabled.json(), { success: true });
    assert.equal(metabase.findUser(id)?.is_active, true);
    const callsBefore = metabase.requests.filter((r) => r.path.endsWith('/reactivate')).length;
    await t.api('/users/enable', { method: 'PUT', headers: h, json: { id } });
    assert.equal(metabase.requests.filter((r) => r.path.endsWith('/reactivate')).length, callsBefore, 'enabling an active user makes no reactivate call');

    const updated = await t.api('/users', { method: 'PUT', headers: h, json: update });
    assert.equal(updated.status, 200);
    assert.equal(metabase.findUser(id)?.first_name, 'Amazing');

    // Only a sync can bring what follows into the cache: a user disabled at Metabase itself and a
    // rename made there (no action of ours saw either, so no action's cache write can supply them).
    const outside = metabase.addUser({ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', is_active: false });
    const grace = metabase.findUser(id)!;
    grace.is_active = false;
    grace.first_name = 'Renamed';
    const listings = () => metabase.requests.filter((r) => r.method === 'GET' && r.path === '/api/user').length;
    const listingsBefore = listings();
    await nango.triggerSync('metabase', ['users'], 'acme');
    let records: Json[] = [];
    for (let i = 0; i < 150; i++) {
      records = ((await (await t.api('/users', { headers: h })).json()) as Json).records;
      const mine = records.find((r: Json) => r.id === String(id));
      if (mine?.firstName === 'Renamed' && records.some((r: Json) => r.id === String(outside.id))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(listings() > listingsBefore, 'the sync listed the users at Metabase');
    const ada = records.find((r: Json) => r.id === String(outside.id));
    assert.equal(ada?.active, false, 'the sync returns a user disabled at Metabase');
    assert.equal(ada?.firstName, 'Ada');
    const mine = records.find((r: Json) => r.id === String(id));
    assert.equal(mine?.active, false, 'the list shows the disabled user');
    assert.equal(mine?.firstName, 'Renamed', 'the rename made at Metabase arrived through the sync');
  });

  test('Metabase has no real-time webhooks: its webhook URL answers 404 with a clear code', async () => {
    const env = (await t.platform.deps.db.query(`SELECT uuid FROM environments WHERE name = 'dev'`)).rows[0].uuid;
    const res = await fetch(`${t.url}/webhook/${env}/metabase`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 404);
    assert.ok(((await res.json()) as Json).error.code);
  });
});
