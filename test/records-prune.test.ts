import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { saveRecords } from '../features/records/store.js';
import { startMetabaseFake } from './fakes/index.js';
import { connectMetabase, startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const API_KEY = 'mb_prune=';
const MODEL = 'Note';
const note = (i: number) => ({ id: `n-${i}`, text: `note ${i}` });

/** A cursor as Nango's records service encodes one: base64 of `{last_modified_at}||{record uuid}`. */
const nangoCursor = (instant: string) => Buffer.from(`${instant}||${randomUUID()}`).toString('base64');

describe('records: prune and cursors from Nango', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;
  let pk: number;
  const list = async (opts: Json = {}) =>
    ((await nango.listRecords({ providerConfigKey: 'metabase', connectionId: 'acme', model: MODEL, ...opts } as never)) as Json).records as Json[];
  const prune = (opts: Json) => nango.pruneRecords({ providerConfigKey: 'metabase', connectionId: 'acme', model: MODEL, ...opts } as never) as Promise<Json>;

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await connectMetabase(t, metabase.url, API_KEY);
    pk = (await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM connections WHERE connection_id = 'acme'`)).rows[0]!.id;
    await saveRecords(
      t.platform.deps.db,
      pk,
      MODEL,
      Array.from({ length: 6 }, (_, i) => note(i)),
    );
    await saveRecords(t.platform.deps.db, pk, `${MODEL}::eu`, [note(0)]);
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('PATCH /records/prune empties payloads up to a cursor included, keeps metadata, and a later save restores them', async () => {
    const before = await list();
    const r1 = await prune({ untilCursor: before[2]._nango_metadata.cursor });
    assert.deepEqual(r1, { count: 3, has_more: false });
    const after = await list();
    for (const [i, r] of after.entries()) {
      assert.equal(r._nango_metadata.cursor, before[i]!._nango_metadata.cursor, 'the cursor stays');
      assert.equal(r._nango_metadata.last_modified_at, before[i]!._nango_metadata.last_modified_at);
      if (i < 3) {
        assert.deepEqual(Object.keys(r).sort(), ['_nango_metadata', 'id'], JSON.stringify(r));
        assert.match(r._nango_metadata.pruned_at, /^\d{4}-\d\d-\d\dT.*\+00:00$/);
      } else {
        assert.equal(r.text, `note ${i}`);
        assert.equal(r._nango_metadata.pruned_at, null);
      }
    }
    assert.deepEqual(await prune({ untilCursor: before[4]._nango_metadata.cursor, limit: 1 }), { count: 1, has_more: true });
    assert.deepEqual(await prune({ untilCursor: before[4]._nango_metadata.cursor }), { count: 1, has_more: false });
    const eu = (await list({ variant: 'eu' }))[0]!;
    assert.equal(eu.text, 'note 0', "a variant's records are pruned only when it is named");
    assert.deepEqual(await prune({ variant: 'eu', untilCursor: eu._nango_metadata.cursor }), { count: 1, has_more: false });
    assert.notEqual((await list({ variant: 'eu' }))[0]!._nango_metadata.pruned_at, null);

    const resaved = await saveRecords(
      t.platform.deps.db,
      pk,
      MODEL,
      Array.from({ length: 6 }, (_, i) => note(i)),
    );
    assert.deepEqual(resaved, { added: 0, updated: 0, unchanged: 6 }, 'restoring a payload is not a change');
    const restored = await list();
    assert.deepEqual(
      restored.map((r) => [r.text, r._nango_metadata.pruned_at, r._nango_metadata.cursor]),
      before.map((r) => [r.text, null, r._nango_metadata.cursor]),
    );

    const bad = await t.api('/records/prune', {
      method: 'PATCH',
      headers: { 'connection-id': 'acme', 'provider-config-key': 'metabase' },
      json: { model: MODEL, until_cursor: 'nope!' },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(((await bad.json()) as Json).error.errors[0].path, ['until_cursor']);
  });

  test("a cursor in Nango's encoding reads the records modified at or after its instant", async () => {
    const { rows } = await t.platform.deps.db.query<{ at: string }>(`SELECT to_json(clock_timestamp())#>>'{}' AS at`);
    await saveRecords(t.platform.deps.db, pk, MODEL, [{ ...note(99), id: 'n-late' }]);
    const fromNango = await list({ cursor: nangoCursor(rows[0]!.at) });
    assert.deepEqual(
      fromNango.map((r) => r.id),
      ['n-late'],
    );
    assert.equal((await list({ cursor: nangoCursor('2020-01-01T00:00:00.000000+00:00') })).length, 7);
    const bad = await t.api(`/records?model=${MODEL}&cursor=${encodeURIComponent(nangoCursor('yesterday'))}`, {
      headers: { 'connection-id': 'acme', 'provider-config-key': 'metabase' },
    });
    assert.equal(bad.status, 400);
  });
});
