import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { decodeCursor, encodeCursor, readRecords, readRecordsBody, readRecordsJson, type RecordsQuery } from '../features/records/read.js';
import { deleteRecords, deleteUnseen, forgetRun, saveRecords, storedHashes } from '../features/records/store.js';
import { RunSeen } from '../features/records/delete-scope.js';
import { withTransaction } from '../lib/db/pool.js';
import { copyOut, inlineParams } from '../lib/db/copy-out.js';
import { startMetabaseFake } from './fakes/index.js';
import { connectMetabase, startTestPlatform, type TestPlatform } from './harness.js';
import { readAhead } from '../api/routes/records.js';
import { z } from 'zod';
import { getConnectionByPk } from '../features/connections/store.js';
import { createScriptContext } from '../features/scripts/context.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const API_KEY = 'mb_records=';
const MODEL = 'Ticket';
const TOTAL = 2500;
const MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;
const conn = { 'connection-id': 'acme', 'provider-config-key': 'metabase' };

const ticket = (i: number, title = `Ticket ${i}`) => ({ id: `t-${i}`, title, n: i, tags: ['a', 'b'] });

describe('records', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;
  let pk: number;

  const list = (opts: Json = {}) =>
    nango.listRecords({ providerConfigKey: 'metabase', connectionId: 'acme', model: MODEL, ...opts }) as Promise<{
      records: Json[];
      next_cursor: string | null;
    }>;

  async function listAll(opts: Json = {}): Promise<{ records: Json[]; pages: number }> {
    const records: Json[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await list({ ...opts, cursor });
      pages++;
      records.push(...page.records);
      if (!page.next_cursor) return { records, pages };
      cursor = page.next_cursor;
    }
  }

  async function one(id: string): Promise<Json> {
    const { records } = await list({ ids: [id] });
    assert.equal(records.length, 1, `record ${id}`);
    return records[0]!;
  }

  async function apiError(res: Response, status: number, code: string): Promise<Json> {
    const body = (await res.json()) as Json;
    assert.equal(res.status, status, JSON.stringify(body));
    assert.equal(body.error.code, code);
    return body;
  }

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await connectMetabase(t, metabase.url, API_KEY);
    const { rows } = await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM connections WHERE connection_id = 'acme'`);
    pk = rows[0]!.id;
    const saved = await saveRecords(
      t.platform.deps.db,
      pk,
      MODEL,
      Array.from({ length: TOTAL }, (_, i) => ticket(i)),
    );
    assert.deepEqual(saved, { added: TOTAL, updated: 0, unchanged: 0 });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('cursor paging with listRecords returns every record exactly once, in cursor order', async () => {
    const { records, pages } = await listAll({ limit: 1000 });
    assert.equal(pages, 3);
    assert.equal(records.length, TOTAL);
    assert.equal(new Set(records.map((r) => r.id)).size, TOTAL);
    const cursors = records.map((r) => BigInt(decodeCursor(r._nango_metadata.cursor)));
    for (let i = 1; i < cursors.length; i++) assert.ok(cursors[i]! > cursors[i - 1]!, 'cursors ascend');
    const first = records[0]!;
    assert.equal(first.id, 't-0');
    assert.equal(first.title, 'Ticket 0');
    assert.deepEqual(first.tags, ['a', 'b']);
    const meta = first._nango_metadata;
    assert.match(meta.first_seen_at, MICROS);
    assert.equal(meta.last_modified_at, meta.first_seen_at);
    assert.equal(meta.last_action, 'ADDED');
    assert.equal(meta.deleted_at, null);
    assert.equal(meta.pruned_at, null);
    assert.match(meta.cursor, /^[A-Za-z0-9_-]+$/);

    // A page that ends exactly at the last record has no next cursor (no empty page after it).
    assert.equal((await listAll({ limit: 500 })).pages, 5);
    // Default limit is 100.
    const page = await list();
    assert.equal(page.records.length, 100);
    assert.equal(page.next_cursor, page.records[99]!._nango_metadata.cursor);
    // A record's own cursor resumes right after it.
    const resumed = await list({ cursor: records[9]!._nango_metadata.cursor, limit: 5 });
    assert.deepEqual(
      resumed.records.map((r) => r.id),
      ['t-10', 't-11', 't-12', 't-13', 't-14'],
    );
  });

  test('an unchanged re-save keeps the cursor; an update moves the record to the end as UPDATED', async () => {
    const db = t.platform.deps.db;
    const before = await one('t-5');
    assert.deepEqual(await saveRecords(db, pk, MODEL, [ticket(5)]), { added: 0, updated: 0, unchanged: 1 });
    assert.deepEqual(await one('t-5'), before);

    const all = await list({ limit: 10000 });
    const endCursor = all.records[all.records.length - 1]!._nango_metadata.cursor;
    assert.deepEqual(await saveRecords(db, pk, MODEL, [ticket(5, 'Renamed')]), { added: 0, updated: 1, unchanged: 0 });
    const after = await list({ cursor: endCursor });
    assert.deepEqual(
      after.records.map((r) => r.id),
      ['t-5'],
    );
    const moved = after.records[0]!;
    assert.equal(moved.title, 'Renamed');
    assert.equal(moved._nango_metadata.last_action, 'UPDATED');
    assert.equal(moved._nango_metadata.first_seen_at, before._nango_metadata.first_seen_at);
    assert.ok(moved._nango_metadata.last_modified_at > before._nango_metadata.last_modified_at);
    assert.ok(BigInt(decodeCursor(moved._nango_metadata.cursor)) > BigInt(decodeCursor(endCursor)));
    const updated = await list({ filter: 'updated' });
    assert.deepEqual(
      updated.records.map((r) => r.id),
      ['t-5'],
    );
    // Still every record once, the updated one last.
    const again = await listAll({ limit: 700 });
    assert.equal(again.records.length, TOTAL);
    assert.equal(again.records[TOTAL - 1]!.id, 't-5');
  });

  test('a batch re-saved unchanged writes and locks none of its rows; a mixed batch writes only what changed', async () => {
    const db = t.platform.deps.db;
    const SCRATCH = 'ScratchTicket';
    const batch = Array.from({ length: 50 }, (_, i) => ticket(i));
    const rowState = async () =>
      (
        await db.query<{ id: string; v: string; action: string }>(
          `SELECT external_id AS id, xmin::text || '/' || xmax::text || '/' || ctid::text AS v, last_action AS action FROM records
           WHERE connection_pk = $1 AND model = $2 ORDER BY records.id`,
          [pk, SCRATCH],
        )
      ).rows;
    assert.deepEqual(await saveRecords(db, pk, SCRATCH, batch), { added: 50, updated: 0, unchanged: 0 });
    const before = await rowState();
    // What a sync run compares its pages with.
    const stored = (await storedHashes(db, pk, SCRATCH))!;
    assert.equal(stored.size, 50);
    // Keys in another order: the same content.
    const reordered = batch.map(({ tags, n, title, id }) => ({ tags, n, title, id }));
    const again = await withTransaction(db, (tx) => saveRecords(tx, pk, SCRATCH, reordered, { stored }));
    assert.deepEqual([again.added, again.updated, again.unchanged], [0, 0, 50]);
    // xmax would hold the saving transaction had it locked the rows (ON CONFLICT DO UPDATE … WHERE false does).
    assert.deepEqual(await rowState(), before);

    const mixed = [ticket(0), ticket(1, 'Changed'), ticket(50)];
    const saved = await saveRecords(db, pk, SCRATCH, mixed, { stored });
    assert.deepEqual([saved.added, saved.updated, saved.unchanged], [1, 1, 1]);
    assert.deepEqual([...saved.hashes!.keys()], ['t-0', 't-1', 't-50']);
    const after = await rowState();
    assert.deepEqual(after[0], before[0], 't-0 untouched');
    assert.notDeepEqual(after[1]!.v, before[1]!.v, 't-1 rewritten');
    assert.equal(after[1]!.action, 'UPDATED');
    assert.deepEqual(after.slice(2, 50), before.slice(2), 'the rest untouched');
    assert.equal(after[50]!.id, 't-50');
    await deleteRecords(db, pk, SCRATCH, ['t-50']);
    assert.deepEqual(await saveRecords(db, pk, SCRATCH, [ticket(50)]), { added: 0, updated: 1, unchanged: 0 }, 'a deleted record saved again is written');
    assert.equal((await rowState())[50]!.action, 'ADDED');
    await db.query('DELETE FROM records WHERE connection_pk = $1 AND model = $2', [pk, SCRATCH]);
  });

  test("a sync run's page of ids it takes for new is saved whole when another writer stored one of them meanwhile; tombstones it deleted come back ADDED", async () => {
    const db = t.platform.deps.db;
    const RACED = 'RacedTicket';
    const connection = (await getConnectionByPk(db, t.platform.deps.box, pk))!;
    const ctx = createScriptContext(t.platform.deps, connection, {
      kind: 'sync',
      runId: 'raced-run',
      models: { [RACED]: z.object({ id: z.string(), title: z.string(), n: z.number(), tags: z.array(z.string()) }) },
      compareStored: true,
      log: () => undefined,
    });
    const state = async () =>
      (
        await db.query<{ id: string; title: string; action: string; deleted: boolean }>(
          `SELECT external_id AS id, data->>'title' AS title, last_action AS action, deleted_at IS NOT NULL AS deleted FROM records
           WHERE connection_pk = $1 AND model = $2 ORDER BY external_id`,
          [pk, RACED],
        )
      ).rows;
    // The run reads the model's stored hashes at its first page (none yet).
    await ctx.batchSave([ticket(1)], RACED);
    // Another writer (a webhook's run, say) stores t-2 after that.
    await saveRecords(db, pk, RACED, [ticket(2, 'From elsewhere')]);
    await ctx.batchSave([ticket(2), ticket(3)], RACED);
    assert.deepEqual(await state(), [
      { id: 't-1', title: 'Ticket 1', action: 'ADDED', deleted: false },
      { id: 't-2', title: 'Ticket 2', action: 'UPDATED', deleted: false },
      { id: 't-3', title: 'Ticket 3', action: 'ADDED', deleted: false },
    ]);
    await ctx.batchDelete([{ id: 't-3' }], RACED);
    await ctx.batchSave([ticket(3)], RACED);
    assert.deepEqual((await state())[2], { id: 't-3', title: 'Ticket 3', action: 'ADDED', deleted: false });
    await db.query('DELETE FROM records WHERE connection_pk = $1 AND model = $2', [pk, RACED]);
  });

  test("a sync run's deletion detection looks only at the stored records it did not see and at records written since it read them", async () => {
    const db = t.platform.deps.db;
    const SCOPED = 'ScopedTicket';
    const runId = 'scoped-run';
    await saveRecords(
      db,
      pk,
      SCOPED,
      [1, 2, 3, 4, 5].map((i) => ticket(i)),
    );
    const seen = new RunSeen();
    const connection = (await getConnectionByPk(db, t.platform.deps.box, pk))!;
    const ctx = createScriptContext(t.platform.deps, connection, {
      kind: 'sync',
      runId,
      models: { [SCOPED]: z.object({ id: z.string(), title: z.string(), n: z.number(), tags: z.array(z.string()) }) },
      compareStored: true,
      seenRunId: runId,
      seen,
      log: () => undefined,
    });
    await ctx.batchSave([ticket(1), ticket(2, 'Changed')], SCOPED);
    await ctx.batchUpdate([{ id: 't-3', title: 'Merged' }], SCOPED);
    // Another writer stores t-6 after the run read the stored hashes.
    await saveRecords(db, pk, SCOPED, [ticket(6)]);
    const scope = seen.scopes()[SCOPED]!;
    assert.deepEqual(scope.ids.sort(), ['t-4', 't-5']);
    const live = async () =>
      (
        await db.query<{ id: string }>(
          'SELECT external_id AS id FROM records WHERE connection_pk = $1 AND model = $2 AND deleted_at IS NULL ORDER BY external_id',
          [pk, SCOPED],
        )
      ).rows.map((r) => r.id);
    // t-5 left out of the scope: only what the scope names is looked at.
    const narrowed = { after: scope.after, ids: ['t-4'] };
    assert.equal(await withTransaction(db, (tx) => deleteUnseen(tx, pk, SCOPED, runId, narrowed)), 2);
    assert.deepEqual(await live(), ['t-1', 't-2', 't-3', 't-5']);
    assert.equal(await withTransaction(db, (tx) => deleteUnseen(tx, pk, SCOPED, runId, scope)), 1);
    assert.deepEqual(await live(), ['t-1', 't-2', 't-3']);
    await forgetRun(db, runId);
    await db.query('DELETE FROM records WHERE connection_pk = $1 AND model = $2', [pk, SCOPED]);
  });

  test('modified_after (and the deprecated delta) keeps records modified at or after the instant, to the microsecond', async () => {
    const db = t.platform.deps.db;
    const t5 = (await one('t-5'))._nango_metadata.last_modified_at as string;
    await saveRecords(db, pk, MODEL, [ticket(7, 'Seven'), ticket(8, 'Eight')]);
    const t7 = (await one('t-7'))._nango_metadata.last_modified_at as string;
    assert.ok(t7 > t5);
    const since5 = await list({ modifiedAfter: t5 });
    assert.deepEqual(
      since5.records.map((r) => r.id),
      ['t-5', 't-7', 't-8'],
    );
    const since7 = await list({ modifiedAfter: t7 });
    assert.deepEqual(
      since7.records.map((r) => r.id),
      ['t-7', 't-8'],
    );
    const viaDelta = (await (await t.api(`/records?model=${MODEL}&delta=${encodeURIComponent(t7)}`, { headers: conn })).json()) as Json;
    assert.deepEqual(
      viaDelta.records.map((r: Json) => r.id),
      ['t-7', 't-8'],
    );
    const future = await list({ modifiedAfter: new Date(Date.now() + 86_400_000).toISOString() });
    assert.deepEqual(future, { records: [], next_cursor: null });
  });

  test('deleted records stay readable as tombstones; filter=deleted lists them', async () => {
    assert.equal(await deleteRecords(t.platform.deps.db, pk, MODEL, ['t-10', 't-11']), 2);
    const deleted = await list({ filter: 'deleted' });
    assert.deepEqual(
      deleted.records.map((r) => r.id),
      ['t-10', 't-11'],
    );
    for (const r of deleted.records) {
      assert.equal(r._nango_metadata.last_action, 'DELETED');
      assert.match(r._nango_metadata.deleted_at, MICROS);
      assert.equal(r._nango_metadata.last_modified_at, r._nango_metadata.deleted_at);
      assert.equal(r.title, `Ticket ${r.id.slice(2)}`);
    }
    const addedOrDeleted = await list({ filter: 'ADDED,Deleted', limit: 10000 });
    assert.equal(addedOrDeleted.records.length, TOTAL - 3);
    assert.equal(addedOrDeleted.records.filter((r) => r._nango_metadata.last_action === 'DELETED').length, 2);
    assert.equal((await listAll({ limit: 10000 })).records.length, TOTAL);
  });

  test("timestamps are UTC to the microsecond whatever the database session's time zone", async () => {
    // PostgreSQL's text output of a timestamptz follows the session's TimeZone: read through
    // sessions with offsets of whole hours, half hours, 45 minutes and negatives, and compare with
    // what to_char in UTC gives for the same rows (tombstones included, for deleted_at).
    const utc = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;
    const client = await t.platform.deps.db.connect();
    try {
      await client.query(
        `UPDATE records SET first_seen_at = first_seen_at - interval '1 day 3 hours 0.123457 seconds' WHERE connection_pk = $1 AND external_id = 't-3'`,
        [pk],
      );
      const { rows } = await client.query<{ id: string; f: string; m: string; d: string | null }>(
        `SELECT external_id AS id, ${utc('first_seen_at')} AS f, ${utc('last_modified_at')} AS m, ${utc('deleted_at')} AS d FROM records WHERE connection_pk = $1 AND model = $2`,
        [pk, MODEL],
      );
      const want = new Map(rows.map((r) => [r.id, r]));
      for (const zone of ['UTC', 'America/St_Johns', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/Los_Angeles']) {
        await client.query(`SET TimeZone = '${zone}'`);
        const page = await readRecords(client, { connectionPk: pk, model: MODEL, limit: 10_000, ids: ['t-3', 't-10', 't-20'] });
        assert.equal(page.records.length, 3);
        for (const r of page.records) {
          const w = want.get(r.id as string)!;
          assert.deepEqual(
            [r._nango_metadata.first_seen_at, r._nango_metadata.last_modified_at, r._nango_metadata.deleted_at],
            [w.f, w.m, w.d],
            `${r.id as string} in ${zone}`,
          );
        }
      }
    } finally {
      await client.query('RESET TimeZone');
      client.release();
    }
  });

  test('ids selects records by external id', async () => {
    const { records } = await list({ ids: ['t-2', 't-1', 'nope'] });
    assert.deepEqual(
      records.map((r) => r.id),
      ['t-1', 't-2'],
    );
    const single = await t.api(`/records?model=${MODEL}&ids=t-3`, { headers: conn });
    assert.deepEqual(
      ((await single.json()) as Json).records.map((r: Json) => r.id),
      ['t-3'],
    );
    const tooMany = Array.from({ length: 101 }, (_, i) => `ids=t-${i}`).join('&');
    const body = await apiError(await t.api(`/records?model=${MODEL}&${tooMany}`, { headers: conn }), 400, 'invalid_query_params');
    assert.equal(body.error.errors[0].path[0], 'ids');
  });

  test('a page read ahead: records changed or deleted after it was read still come later, with their change; another query does not take it', async () => {
    const db = t.platform.deps.db;
    const ahead = readAhead(t.platform.deps);
    const first = await list({ limit: 1000 });
    assert.ok(first.next_cursor);
    await ahead.settled();
    assert.ok(ahead.holds({ connectionPk: pk, model: MODEL, cursor: first.next_cursor, limit: 1000 }), 'the next page was read ahead');
    // What the page read ahead holds: the same query, read directly.
    const second = await readRecords(db, { connectionPk: pk, model: MODEL, cursor: first.next_cursor, limit: 1000 });
    const changed = second.records[10]!.id as string;
    const deleted = second.records[20]!.id as string;
    await saveRecords(db, pk, MODEL, [ticket(Number(changed.slice(2)), 'Changed after the read ahead')]);
    assert.equal(await deleteRecords(db, pk, MODEL, [deleted]), 1);

    // The same cursor with another limit or filter is another query: read now, not the page read ahead.
    assert.equal((await list({ cursor: first.next_cursor, limit: 5 })).records.length, 5);
    const deletedOnly = await list({ cursor: first.next_cursor, limit: 1000, filter: 'deleted' });
    assert.ok(deletedOnly.records.some((r) => r.id === deleted));

    const rest: Json[] = [];
    for (let cursor: string | null = first.next_cursor; cursor;) {
      const page = await list({ cursor, limit: 1000 });
      rest.push(...page.records);
      cursor = page.next_cursor;
    }
    const latest = new Map([...first.records, ...rest].map((r) => [r.id as string, r]));
    assert.equal(latest.size, TOTAL, 'every record once at least');
    assert.equal(latest.get(changed)!.title, 'Changed after the read ahead');
    assert.equal(latest.get(changed)!._nango_metadata.last_action, 'UPDATED');
    assert.equal(latest.get(deleted)!._nango_metadata.last_action, 'DELETED');
    assert.equal(rest.at(-2)!.id, changed, 'the changes are the last records, after everything read ahead');
    assert.equal(rest.at(-1)!.id, deleted);
  });

  test("the body carries each record's stored JSON text unchanged, timestamps in Nango's format to the microsecond and cursors past 2^53", async () => {
    const db = t.platform.deps.db;
    const ODD = 'OddTicket';
    const odd: ({ id: string } & Record<string, unknown>)[] = [
      { id: 'u-1', text: 'naïve café 日本語 🎉', quote: 'he said "hi" \\ back\\slash', ctrl: 'line\nbreak\ttab\u0001\u001f', seps: '\u2028\u2029</script>' },
      { id: 'u-2', nested: { deep: [1, [2, { x: null }], {}], empty: [] }, t: true, f: false },
      { id: 'u-3' },
      { id: 'u-4' },
    ];
    await saveRecords(db, pk, ODD, odd);
    // Numbers JSON.stringify cannot write; timestamps without a fraction and with trailing zeros;
    // cursors a JS number cannot hold (2^53 + 1) and the largest bigint.
    await db.query(
      `UPDATE records SET data = '{"id": "u-3", "big": 123456789012345678901234567890, "exp": 1.50e-7, "neg": -0.0}'::jsonb,
         first_seen_at = '2025-03-04 05:06:07+00', last_modified_at = '2025-03-04 05:06:07.5+00', deleted_at = '2025-03-04 05:06:07.000001+00',
         pruned_at = '1999-12-31 23:59:59.12345+00', last_action = 'DELETED', cursor = 9007199254740993
       WHERE connection_pk = $1 AND model = $2 AND external_id = 'u-3'`,
      [pk, ODD],
    );
    await db.query(`UPDATE records SET cursor = 9223372036854775807 WHERE connection_pk = $1 AND model = $2 AND external_id = 'u-4'`, [pk, ODD]);
    const utc = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;
    const { rows: stored } = await db.query<{ id: string; data: string; f: string; m: string; d: string | null; p: string | null; cursor: string }>(
      `SELECT external_id AS id, data::text AS data, ${utc('first_seen_at')} AS f, ${utc('last_modified_at')} AS m, ${utc('deleted_at')} AS d,
         ${utc('pruned_at')} AS p, cursor::text AS cursor FROM records WHERE connection_pk = $1 AND model = $2 ORDER BY cursor`,
      [pk, ODD],
    );
    const res = await t.api(`/records?model=${ODD}&limit=10`, { headers: conn });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const body = JSON.parse(text) as { records: Json[]; next_cursor: string | null };
    assert.equal(body.next_cursor, null);
    assert.deepEqual(
      body.records.map((r) => r.id),
      stored.map((r) => r.id),
    );
    for (const [i, want] of stored.entries()) {
      // The stored text itself, byte for byte, with the metadata appended before its closing brace.
      assert.ok(text.includes(`${want.data.slice(0, -1)},"_nango_metadata":{`), `${want.id}'s stored text`);
      const { _nango_metadata: meta, ...data } = body.records[i]!;
      assert.deepEqual(data, JSON.parse(want.data));
      assert.deepEqual(meta, {
        first_seen_at: want.f,
        last_modified_at: want.m,
        last_action: want.id === 'u-3' ? 'DELETED' : 'ADDED',
        deleted_at: want.d,
        pruned_at: want.p,
        cursor: encodeCursor(want.cursor),
      });
    }
    assert.deepEqual(
      stored.slice(2).map((r) => [r.f, r.m, r.d, r.p, r.cursor]),
      [
        [
          '2025-03-04T05:06:07.000000+00:00',
          '2025-03-04T05:06:07.500000+00:00',
          '2025-03-04T05:06:07.000001+00:00',
          '1999-12-31T23:59:59.123450+00:00',
          '9007199254740993',
        ],
        [stored[3]!.f, stored[3]!.m, null, null, '9223372036854775807'],
      ],
    );
    // A page that ends on the record past 2^53 names exactly its cursor, and the next page starts after it.
    const first = (await (await t.api(`/records?model=${ODD}&limit=3`, { headers: conn })).json()) as { records: Json[]; next_cursor: string | null };
    assert.equal(first.next_cursor, encodeCursor('9007199254740993'));
    const last = (await (await t.api(`/records?model=${ODD}&limit=3&cursor=${first.next_cursor}`, { headers: conn })).json()) as Json;
    assert.deepEqual(
      last.records.map((r: Json) => r.id),
      ['u-4'],
    );
    assert.equal(last.next_cursor, null);
    await db.query('DELETE FROM records WHERE connection_pk = $1 AND model = $2', [pk, ODD]);
  });

  test('the page body written as bytes is the records joined as strings, byte for byte, for varied records, cursors and filters', async () => {
    const db = t.platform.deps.db;
    const MIX = 'MixTicket';
    const mixed: ({ id: string } & Record<string, unknown>)[] = [
      { id: 'm-1', text: 'naïve café 日本語 🎉 \u0001', quote: 'a "b" \\ c', seps: '\u2028\u2029' },
      { id: 'm-2', nested: { deep: [1, [2, { x: null }], {}], empty: [] }, n: -1.5e-7 },
      { id: 'm-3', big: 'é'.repeat(40_000) + 'x'.repeat(70_000) },
      { id: 'm-4' },
      { id: 'm-5', text: 'ünïcödé at the end: 🎉' },
      { id: 'm-6', n: 6 },
      { id: 'm-7', n: 7 },
      { id: 'm-8', n: 8 },
      { id: 'm-9', n: 9 },
      // Ids the page's COPY writes into its statement as literals.
      { id: "q'uote", n: 10 },
      { id: 'back\\slash', n: 11 },
      { id: '$1 $2', n: 12 },
    ];
    await saveRecords(db, pk, MIX, mixed);
    const where = `connection_pk = $1 AND model = '${MIX}' AND external_id = $2`;
    // Timestamps, actions and nulls that change from one record to the next (the metadata the body
    // reuses for a run of equal ones), an empty object, and cursors of every length modulo 3.
    await db.query(`UPDATE records SET data = '{}'::jsonb, cursor = 7 WHERE ${where}`, [pk, 'm-4']);
    await db.query(
      `UPDATE records SET deleted_at = '2025-03-04 05:06:07+00', last_modified_at = '2025-03-04 05:06:07.5+00', last_action = 'DELETED', cursor = 42 WHERE ${where}`,
      [pk, 'm-2'],
    );
    await db.query(`UPDATE records SET pruned_at = '1999-12-31 23:59:59.12345+00', cursor = 123 WHERE ${where}`, [pk, 'm-6']);
    await db.query(`UPDATE records SET last_action = 'UPDATED', first_seen_at = first_seen_at - interval '1 day', cursor = 4567 WHERE ${where}`, [pk, 'm-5']);
    // m-1, m-8, m-9 next to each other: m-8 differs from m-1 in its action alone, m-9 from m-8 in last_modified_at alone.
    await db.query(`UPDATE records SET cursor = 1000 WHERE ${where}`, [pk, 'm-1']);
    await db.query(`UPDATE records SET last_action = 'UPDATED', cursor = 1001 WHERE ${where}`, [pk, 'm-8']);
    await db.query(`UPDATE records SET last_action = 'UPDATED', last_modified_at = last_modified_at + interval '1 microsecond', cursor = 1002 WHERE ${where}`, [
      pk,
      'm-9',
    ]);
    await db.query(`UPDATE records SET cursor = 9007199254740993 WHERE ${where}`, [pk, 'm-3']);
    await db.query(`UPDATE records SET cursor = 9223372036854775807 WHERE ${where}`, [pk, 'm-7']);
    const base = { connectionPk: pk, model: MIX };
    const queries: RecordsQuery[] = [
      ...[1, 2, 3, 5, 7, 100].map((limit) => ({ ...base, limit })),
      { ...base, limit: 2, cursor: encodeCursor(42) },
      { ...base, limit: 10, filter: ['deleted'] },
      { ...base, limit: 10, filter: ['added', 'updated'] },
      { ...base, limit: 10, ids: ['m-1', 'm-3', 'm-4'] },
      { ...base, limit: 10, ids: ['nope'] },
      { ...base, limit: 2, ids: ["q'uote", 'back\\slash', '$1 $2', 'm-4'] },
      { ...base, limit: 10, modifiedAfter: '2025-03-04T05:06:07.5+00:00' },
    ];
    let read = 0;
    for (const q of queries) {
      // Page by page to the end, each page's bytes against the strings it was built from before.
      for (let cursor = q.cursor; ;) {
        const page = { ...q, cursor };
        const want = await readRecordsJson(db, page);
        const got = await readRecordsBody(db, page);
        const wantText = `{"records":[${want.records.join(',')}],"next_cursor":${JSON.stringify(want.nextCursor)}}`;
        assert.ok(Buffer.isBuffer(got.body));
        assert.equal(got.body.toString('utf8'), wantText, JSON.stringify(page));
        assert.equal(got.body.length, Buffer.byteLength(wantText));
        assert.deepEqual(JSON.parse(got.body.toString('utf8')), { records: want.records.map((r) => JSON.parse(r) as Json), next_cursor: want.nextCursor });
        assert.deepEqual([got.count, got.nextCursor], [want.records.length, want.nextCursor]);
        read += got.count;
        if (got.nextCursor === null) break;
        cursor = got.nextCursor;
      }
    }
    assert.ok(read > mixed.length);
    // And through the API, parsed, as the pages of strings parse.
    const res = await t.api(`/records?model=${MIX}&limit=100`, { headers: conn });
    const text = await res.text();
    // A length when the page was whole before its first byte went out, else chunks (its 150 KB record spans two).
    if (res.headers.get('transfer-encoding') !== 'chunked') assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(text));
    const want = await readRecordsJson(db, { ...base, limit: 100 });
    assert.deepEqual(JSON.parse(text), { records: want.records.map((r) => JSON.parse(r) as Json), next_cursor: null });
    await db.query('DELETE FROM records WHERE connection_pk = $1 AND model = $2', [pk, MIX]);
  });

  test('a failed COPY of a page rejects, and the pool and a transaction go on', async () => {
    const db = t.platform.deps.db;
    const seen: number[] = [];
    await assert.rejects(
      copyOut(db, 'COPY (SELECT 1 / (3 - g) FROM generate_series(1, 5) g) TO STDOUT (FORMAT binary)', (m) => seen.push(m.length)),
      /division by zero/,
    );
    assert.equal((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one, 1);
    await assert.rejects(
      copyOut(db, 'COPY (SELECT 1) TO STDOUT (FORMAT binary)', () => {
        throw new Error('not this row');
      }),
      /not this row/,
    );
    const page = await withTransaction(db, (client) => readRecordsBody(client, { connectionPk: pk, model: MODEL, limit: 2 }));
    assert.equal(page.count, 2);
    assert.throws(() => inlineParams('SELECT $1', [{}]), TypeError);
    assert.equal(inlineParams('SELECT $1, $2, $3', ["it's \\ $2", 7, ['a', "b'"]]), "SELECT  E'it''s \\\\ $2', 7, ARRAY['a','b''']::text[]");
  });

  test('/records and /records/ answer the same', async () => {
    const plain = await t.api(`/records?model=${MODEL}&limit=3`, { headers: conn });
    const slash = await t.api(`/records/?model=${MODEL}&limit=3`, { headers: conn });
    assert.equal(plain.status, 200);
    assert.match(plain.headers.get('content-type') ?? '', /^application\/json/);
    // The answer's headers, as every route gives them (CORS, request id) and a length, not chunks.
    assert.equal(plain.headers.get('access-control-allow-origin'), '*');
    assert.equal(plain.headers.get('access-control-expose-headers'), 'Content-Type,Content-Length,Location,X-Request-Id');
    assert.match(plain.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(plain.headers.get('transfer-encoding'), null);
    assert.equal(Number(plain.headers.get('content-length')), Buffer.byteLength(await plain.clone().text()));
    assert.deepEqual(await plain.json(), await slash.json());
  });

  test('validation errors are 400s naming the field', async () => {
    const cases: [string, string][] = [
      ['model=ticket', 'model'],
      ['limit=5', 'model'],
      [`model=${MODEL}&limit=0`, 'limit'],
      [`model=${MODEL}&limit=10001`, 'limit'],
      [`model=${MODEL}&limit=ten`, 'limit'],
      [`model=${MODEL}&cursor=not-a-cursor!`, 'cursor'],
      [`model=${MODEL}&cursor=${encodeCursor('abc')}`, 'cursor'],
      [`model=${MODEL}&cursor=${'A'.repeat(1001)}`, 'cursor'],
      [`model=${MODEL}&filter=created`, 'filter'],
      [`model=${MODEL}&modified_after=yesterday`, 'modified_after'],
      [`model=${MODEL}&variant=v::2`, 'variant'],
      [`model=${MODEL}&ids=${'x'.repeat(257)}`, 'ids'],
    ];
    for (const [qs, field] of cases) {
      const body = await apiError(await t.api(`/records/?${qs}`, { headers: conn }), 400, 'invalid_query_params');
      assert.ok(
        body.error.errors.some((e: Json) => e.path[0] === field),
        `${qs}: ${JSON.stringify(body.error.errors)}`,
      );
    }
    await apiError(await t.api(`/records?model=${MODEL}&page=2`, { headers: conn }), 400, 'invalid_query_params');
    const noHeaders = await apiError(await t.api(`/records?model=${MODEL}`), 400, 'invalid_headers');
    assert.ok(noHeaders.error.errors.some((e: Json) => e.path[0] === 'connection-id'));
    await apiError(await t.api(`/records?model=${MODEL}`, { headers: conn, key: null }), 401, 'missing_auth_header');
    // Through the Node client too (axios error).
    await assert.rejects(list({ model: 'bad' }), (err: Json) => {
      assert.equal(err.response.status, 400);
      assert.equal(err.response.data.error.code, 'invalid_query_params');
      return true;
    });
  });

  test('unknown connections, and connections of another environment, answer unknown_connection', async () => {
    const message = 'Provided ConnectionId and ProviderConfigKey does not match a valid connection';
    const ghost = await apiError(await t.api(`/records?model=${MODEL}`, { headers: { ...conn, 'connection-id': 'ghost' } }), 400, 'unknown_connection');
    assert.equal(ghost.error.message, message);
    await apiError(await t.api(`/records?model=${MODEL}`, { headers: { ...conn, 'provider-config-key': 'nope' } }), 400, 'unknown_connection');
    const prod = new Nango({ secretKey: t.prodKey, host: t.url });
    await assert.rejects(prod.listRecords({ providerConfigKey: 'metabase', connectionId: 'acme', model: MODEL }), (err: Json) => {
      assert.equal(err.response.status, 400);
      assert.equal(err.response.data.error.code, 'unknown_connection');
      assert.equal(err.response.data.error.message, message);
      return true;
    });
  });

  test('a sync endpoint serves its records through the API: model optional with one model, required with several', async () => {
    // Two deployed syncs on the real API: one with the Ticket model only, one with two models.
    const sync = (name: string, path: string, models: string[]) => {
      const manifest = { type: 'sync', frequency: 'every day', endpoints: [{ method: 'GET', path }], models: Object.fromEntries(models.map((m) => [m, {}])) };
      const bundle = `var __switchyard = { describe: () => (${JSON.stringify(manifest)}), run: async () => null };`;
      return { integration: 'metabase', name, bundle, manifest };
    };
    const deployed = await t.api('/scripts/deploy', {
      method: 'POST',
      json: { cli_version: '0.67.0', scripts: [sync('one-model', '/tickets-one', [MODEL]), sync('two-models', '/tickets-two', ['Other', MODEL])] },
    });
    assert.equal(deployed.status, 200, await deployed.clone().text());
    const enabled = await t.api('/integrations/metabase/endpoints', {
      method: 'PATCH',
      json: { endpoints: ['/tickets-one', '/tickets-two'].map((path) => ({ method: 'GET', path, enabled: true })) },
    });
    assert.equal(enabled.status, 200, await enabled.clone().text());
    const get = (path: string, key?: string) => t.api(path, { headers: conn, key });
    const one = (await (await get('/tickets-one?limit=2&filter=deleted')).json()) as Json;
    assert.deepEqual(
      one.records.map((r: Json) => r.id),
      ['t-10', 't-11'],
    );
    const missing = await apiError(await get('/tickets-two'), 400, 'invalid_query_params');
    assert.equal(missing.error.errors[0].path[0], 'model');
    const wrong = await apiError(await get('/tickets-one?model=Other'), 400, 'invalid_query_params');
    assert.equal(wrong.error.errors[0].path[0], 'model');
    const two = (await (await get(`/tickets-two?model=${MODEL}&ids=t-1`)).json()) as Json;
    assert.equal(two.records[0].id, 't-1');
    // The prod key does not see dev's integration, so not its endpoint either.
    const prod = await apiError(await get('/tickets-one', t.prodKey), 404, 'not_found');
    assert.equal(prod.error.message, "Unknown endpoint 'GET /tickets-one'");
  });
});
