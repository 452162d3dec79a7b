/**
 * Page-level change detection in sync runs (features/records/page-digests.ts): a page handed to
 * batchSave exactly as the last run handed it, under the same model schema, whose records are still
 * stored as that run left them, is noted as seen and unchanged without checking each record. Every
 * other page goes record by record: a changed record in an otherwise unchanged page, pages shifted by
 * an insert upstream, a model whose schema changed, records pruned since. Deleted records are still
 * detected while the pages around them are skipped. The run's log says how many pages were skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { z } from 'zod';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { RunPageDigests } from '../features/records/page-digests.js';
import { createSync } from '../sdk/index.js';
import { startGenericApiFake, startMetabaseFake, type GenericApiFake } from './fakes/index.js';
import { addItemsApiIntegration, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const API_KEY = 'mb_pages=';
const KEY = 'paged';
const MODEL = 'PagedItem';
const ZERO = { added: 0, updated: 0, deleted: 0 };

const Item = z.object({ id: z.string(), name: z.string(), updated_at: z.string() });
/** The same model after a deploy that drops a field: every stored record changes. */
const ItemWithoutDate = z.object({ id: z.string(), name: z.string() });

type Model = typeof Item | typeof ItemWithoutDate;

/** When set, the script changes each page's records once batchSave has returned (a page is checked after that). */
let changeAfterSave = false;

function pagedSync(model: Model) {
  return createSync({
    description: 'items, 10 per page',
    frequency: 'every day',
    autoStart: false,
    syncType: 'full',
    endpoints: [{ method: 'GET', path: '/paged-items' }],
    models: { [MODEL]: model },
    async exec(ctx) {
      const pages = ctx.paginate<Record<string, unknown>>({
        endpoint: '/items',
        paginate: {
          type: 'cursor',
          response_path: 'items',
          limit: 10,
          limit_name_in_request: 'limit',
          cursor_name_in_request: 'cursor',
          cursor_path_in_response: 'next_cursor',
        },
      });
      for await (const page of pages) {
        await ctx.batchSave(page as never, MODEL);
        if (changeAfterSave) for (const r of page) r.name = 'changed by the script after batchSave';
      }
    },
  });
}
const register = (model: Model) => registerPrebuiltScripts('metabase', { ...metabaseScripts, 'paged-items': pagedSync(model) });
register(Item);

const item = (i: number) => ({ id: String(i), name: `item ${i}`, updated_at: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() });

describe('sync runs skip the pages the last run saved unchanged', () => {
  let t: TestPlatform;
  let items: GenericApiFake;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;

  const q = async (sql: string, args: unknown[] = []) => (await t.platform.deps.db.query(sql, args)).rows as Json[];
  const runs = () =>
    q(
      `SELECT r.status, r.results, r.logs FROM sync_runs r JOIN connections c ON c.id = r.connection_pk
        WHERE c.connection_id = 'acme' AND r.sync_name = 'paged-items' ORDER BY r.started_at`,
    );
  /** Triggers a run; its results and what its log says about skipped pages. */
  async function run(mode?: 'full_refresh_and_clear_cache'): Promise<{ results: Json; skipped: string | null }> {
    const n = (await runs()).length;
    await nango.triggerSync(KEY, ['paged-items'], 'acme', mode);
    const done = await waitFor('the run to finish', async () => {
      const r = (await runs())[n];
      return r && r.status !== 'RUNNING' ? r : null;
    });
    assert.equal(done.status, 'SUCCESS', JSON.stringify(done));
    const line = (done.logs as { message: string }[]).find((l) => l.message.includes('unchanged since the last run'));
    return { results: done.results[MODEL], skipped: line ? line.message.split(' unchanged')[0]! : null };
  }
  const stored = async () =>
    Object.fromEntries(
      (await q(`SELECT external_id, data, deleted_at IS NOT NULL AS deleted FROM records WHERE model = $1 ORDER BY external_id`, [MODEL])).map((r) => [
        r.external_id,
        r.deleted ? 'deleted' : r.data,
      ]),
    );
  const upstream = () => Object.fromEntries(items.state.items.map((i) => [i.id, i]));
  const lastScope = async () =>
    (await q(`SELECT delete_scopes FROM sync_runs WHERE sync_name = 'paged-items' ORDER BY started_at DESC LIMIT 1`))[0]!.delete_scopes[MODEL];
  const cursorMax = async () => (await q(`SELECT max(cursor)::text AS c FROM records WHERE model = $1`, [MODEL]))[0]!.c as string;

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    items = await startGenericApiFake({ apiKey: API_KEY, items: Array.from({ length: 25 }, (_, i) => item(i + 1)) });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await addItemsApiIntegration(t, { key: KEY, connectionId: 'acme', apiKey: API_KEY, metabaseUrl: metabase.url, itemsUrl: items.url });
    const res = await t.api(`/integrations/${KEY}/endpoints`, {
      method: 'PATCH',
      json: { endpoints: [{ method: 'GET', path: '/paged-items', enabled: true }] },
    });
    assert.equal(res.status, 200, await res.clone().text());
  });
  after(async () => {
    await t?.stop();
    await items?.close();
    await metabase?.close();
  });

  test('the first sync checks every page; an unchanged re-sync skips all three and writes nothing', async () => {
    const first = await run();
    assert.deepEqual(first, { results: { added: 25, updated: 0, deleted: 0 }, skipped: null });
    const cursor = await cursorMax();
    assert.deepEqual(await run(), { results: ZERO, skipped: '3 of 3 pages of PagedItem' });
    assert.equal(await cursorMax(), cursor, 'no record written');
    // Its deletion detection looked only at records written since it read the stored hashes (none).
    assert.deepEqual(await lastScope(), { after: cursor, ids: [] });
    assert.deepEqual(Object.keys(await stored()).length, 25);
  });

  test('one changed record in an otherwise unchanged page is updated; the two other pages are skipped', async () => {
    items.updateItem('15', { name: 'renamed upstream' });
    assert.deepEqual(await run(), { results: { added: 0, updated: 1, deleted: 0 }, skipped: '2 of 3 pages of PagedItem' });
    assert.deepEqual((await stored())['15'], upstream()['15']);
  });

  test('records another writer changed between runs are saved again: their pages, digested alike, take the per-record path', async () => {
    // One in the first page (checked in the transaction that counts the model), one in the second (checked in one statement).
    await q(
      `UPDATE records SET data = jsonb_set(data, '{name}', '"written by another writer"'), hash = md5(external_id || ' by another writer')
        WHERE model = $1 AND external_id IN ('4', '14')`,
      [MODEL],
    );
    assert.deepEqual(await run(), { results: { added: 0, updated: 2, deleted: 0 }, skipped: '1 of 3 pages of PagedItem' });
    const now = await stored();
    assert.deepEqual([now['4'], now['14']], [upstream()['4'], upstream()['14']]);
    assert.deepEqual(await run(), { results: ZERO, skipped: '3 of 3 pages of PagedItem' });
  });

  test('a page found changed is saved as it was handed to batchSave, though the script changed its records after', async () => {
    await q(`UPDATE records SET hash = md5('by another writer') WHERE model = $1 AND external_id = '14'`, [MODEL]);
    changeAfterSave = true;
    try {
      assert.deepEqual(await run(), { results: { added: 0, updated: 1, deleted: 0 }, skipped: '2 of 3 pages of PagedItem' });
    } finally {
      changeAfterSave = false;
    }
    assert.deepEqual(await stored(), upstream());
  });

  test('a record deleted upstream is detected while the pages before it are skipped', async () => {
    items.deleteItem('25');
    assert.deepEqual(await run(), { results: { added: 0, updated: 0, deleted: 1 }, skipped: '2 of 3 pages of PagedItem' });
    assert.deepEqual((await lastScope()).ids, ['25'], 'the one stored record the run did not see');
    const now = await stored();
    assert.equal(now['25'], 'deleted');
    assert.equal(Object.values(now).filter((r) => r !== 'deleted').length, 24, 'the records of the skipped pages are still live');
  });

  test('a record inserted upstream shifts the pages after it: only the page before it is skipped, and the insert is the only change', async () => {
    items.state.items.splice(12, 0, item(100));
    assert.deepEqual(await run(), { results: { added: 1, updated: 0, deleted: 0 }, skipped: '1 of 3 pages of PagedItem' });
    assert.deepEqual(await stored(), { ...upstream(), 25: 'deleted' });
    assert.deepEqual(await run(), { results: ZERO, skipped: '3 of 3 pages of PagedItem' });
  });

  test('records pruned since the last run are not skipped: the sync gives them their payload back', async () => {
    const pruned = await t.api('/records/prune', {
      method: 'PATCH',
      headers: { 'connection-id': 'acme', 'provider-config-key': KEY },
      json: { model: MODEL, until_cursor: (await list())[4]!._nango_metadata.cursor },
    });
    assert.equal(pruned.status, 200, await pruned.clone().text());
    assert.equal((await stored())['1']!.name, undefined, 'pruned');
    // The first page holds the five pruned records; the two others are as the last run left them.
    assert.deepEqual(await run(), { results: ZERO, skipped: '2 of 3 pages of PagedItem' });
    assert.deepEqual(await stored(), { ...upstream(), 25: 'deleted' });
  });

  test('after a change of the model schema, every page is checked again', async () => {
    register(ItemWithoutDate);
    try {
      const changed = await run();
      assert.deepEqual(changed, { results: { added: 0, updated: 25, deleted: 0 }, skipped: null });
      assert.deepEqual((await stored())['1'], { id: '1', name: 'item 1' });
      assert.deepEqual(await run(), { results: ZERO, skipped: '3 of 3 pages of PagedItem' });
    } finally {
      register(Item);
    }
  });

  test('a sync reset that empties the cache checks every page, though the last run noted them all: its records are all added again', async () => {
    assert.deepEqual(await run(), { results: { added: 0, updated: 25, deleted: 0 }, skipped: null });
    assert.deepEqual(await run(), { results: ZERO, skipped: '3 of 3 pages of PagedItem' });
    assert.deepEqual(await run('full_refresh_and_clear_cache'), { results: { added: 25, updated: 0, deleted: 0 }, skipped: null });
    assert.deepEqual(await stored(), upstream());
    assert.deepEqual(await run(), { results: ZERO, skipped: '3 of 3 pages of PagedItem' });
  });

  test('a full run starts reading the stored hashes before its first page arrives', async () => {
    // The read waits behind this lock; the first page fails, so the run ends without needing the read.
    const locker = await t.platform.deps.db.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE records IN ACCESS EXCLUSIVE MODE');
      items.failNext({ status: 400, body: '{"error":"bad_request"}', match: (r) => r.path === '/items' });
      const n = (await runs()).length;
      await nango.triggerSync(KEY, ['paged-items'], 'acme');
      const done = await waitFor('the run to fail', async () => {
        const r = (await runs())[n];
        return r && r.status !== 'RUNNING' ? r : null;
      });
      assert.equal(done.status, 'ERROR');
      const waiting = await q(
        `SELECT a.query FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE NOT l.granted AND l.relation = 'records'::regclass AND a.query LIKE '%SELECT external_id%'`,
      );
      assert.equal(waiting.length, 1, 'the stored-hashes read was issued before the first page was fetched');
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    assert.deepEqual(await run(), { results: ZERO, skipped: '3 of 3 pages of PagedItem' });
  });

  test("an unchanged page noted in one statement: ids seen and digest written with the run's row, nothing when the row is gone", async () => {
    const [last] = await q(`SELECT id, connection_pk FROM sync_runs WHERE sync_name = 'paged-items' ORDER BY started_at DESC LIMIT 1`);
    const check = { page: 'page-digest-of-a-test', schema: 'schema-of-a-test' };
    const written = async (runId: string) => ({
      seen: (await q(`SELECT external_ids FROM sync_run_seen WHERE run_id = $1 AND model = 'OneStatement'`, [runId])).map((r) => r.external_ids),
      pages: (await q(`SELECT content_hash FROM record_page_digests WHERE run_id = $1 AND model = 'OneStatement'`, [runId])).map((r) => r.content_hash),
    });
    const gone = new RunPageDigests(t.platform.deps.db, last!.connection_pk, 'a-run-that-does-not-exist');
    assert.equal(await gone.noteUnchanged('OneStatement', check, 'noted', ['1', '2']), false);
    assert.deepEqual(await written('a-run-that-does-not-exist'), { seen: [], pages: [] });
    assert.deepEqual(gone.counts.get('OneStatement'), undefined);

    const live = new RunPageDigests(t.platform.deps.db, last!.connection_pk, last!.id);
    assert.equal(await live.noteUnchanged('OneStatement', check, 'noted', ['1', '2']), true);
    assert.deepEqual(await written(last!.id), { seen: [['1', '2']], pages: ['noted'] });
    assert.deepEqual(live.counts.get('OneStatement'), { pages: 1, skipped: 1 });
    await q(`DELETE FROM sync_run_seen WHERE model = 'OneStatement'`);
    await q(`DELETE FROM record_page_digests WHERE model = 'OneStatement'`);
  });

  async function list(): Promise<Json[]> {
    const res = await t.api(`/records?model=${MODEL}&limit=100`, { headers: { 'connection-id': 'acme', 'provider-config-key': KEY } });
    assert.equal(res.status, 200);
    return ((await res.json()) as Json).records as Json[];
  }
});
