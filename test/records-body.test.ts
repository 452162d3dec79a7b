/**
 * `GET /records` pages built by Postgres (readRecordsBody) are byte for byte the bodies the API
 * assembled in JavaScript before (recordsResponseBody of readRecordsJson), for every query shape:
 * cursors, limits at and around the page size, filters, modified_after, ids, deleted records,
 * empty objects, unicode and escapes in the data, an empty page. Rows written straight into the table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readRecordsBody, readRecordsJson, recordsResponseBody, type RecordsQuery } from '../features/records/read.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

describe('records pages built in Postgres', () => {
  let t: TestPlatform;
  let pk: number;
  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    const db = t.platform.deps.db;
    const env = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    const integration = (
      await db.query<{ id: number }>(`INSERT INTO integrations (environment_id, unique_key, provider) VALUES ($1, 'm', 'metabase') RETURNING id`, [env])
    ).rows[0]!.id;
    pk = (
      await db.query<{ id: number }>(
        `INSERT INTO connections (environment_id, integration_id, connection_id, auth_mode, credentials_enc) VALUES ($1, $2, 'c', 'API_KEY', 'x') RETURNING id`,
        [env, integration],
      )
    ).rows[0]!.id;
    const datas = [
      {},
      { id: 'a', name: 'Zoë "quoted" \\ back', nested: { list: [1, 2.5, null, true], empty: {} } },
      { id: 'b', text: 'line\nbreak\ttab \u2028 😀', n: -0.001 },
      { id: 'c', big: 12345678901234567890, e: 1e-7 },
    ];
    for (let i = 0; i < 23; i++) {
      const action = i % 5 === 0 ? 'DELETED' : i % 3 === 0 ? 'UPDATED' : 'ADDED';
      await db.query(
        `INSERT INTO records (connection_pk, model, external_id, data, hash, first_seen_at, last_modified_at, deleted_at, last_action)
         VALUES ($1, 'Item', $2, $3, 'h', $4, $5, $6, $7)`,
        [
          pk,
          `r${i}`,
          JSON.stringify(datas[i % datas.length]),
          new Date(Date.UTC(2025, 0, 1, 0, 0, i, i)).toISOString(),
          `2025-02-01T00:00:${String(i).padStart(2, '0')}.${String(100000 + i * 7).slice(1)}+00:00`,
          action === 'DELETED' ? `2025-03-01T00:00:00.${String(i).padStart(6, '0')}+00:00` : null,
          action,
        ],
      );
    }
  });
  after(async () => {
    await t?.stop();
  });

  async function same(q: Omit<RecordsQuery, 'connectionPk'>): Promise<string | null> {
    const query = { ...q, connectionPk: pk };
    const expected = await readRecordsJson(t.platform.deps.db, query);
    const body = await readRecordsBody(t.platform.deps.db, query);
    assert.equal(body, recordsResponseBody(expected), JSON.stringify(q));
    JSON.parse(body);
    return expected.nextCursor;
  }

  test('every page of every limit, walked by next_cursor', async () => {
    for (const limit of [1, 2, 7, 22, 23, 24, 100]) {
      let cursor: string | undefined;
      let pages = 0;
      do {
        cursor = (await same({ model: 'Item', limit, cursor })) ?? undefined;
        pages++;
      } while (cursor);
      assert.equal(pages, Math.ceil(23 / limit));
    }
  });

  test('filters, modified_after, ids, an unknown model', async () => {
    for (const filter of [['added'], ['updated'], ['deleted'], ['added', 'deleted']] as const) await same({ model: 'Item', limit: 5, filter: [...filter] });
    await same({ model: 'Item', limit: 100, modifiedAfter: '2025-02-01T00:00:10.100070+00:00' });
    await same({ model: 'Item', limit: 3, modifiedAfter: new Date('2025-02-01T00:00:05Z'), filter: ['deleted', 'updated'] });
    await same({ model: 'Item', limit: 10, ids: ['r1', 'r5', 'r22', 'nope'] });
    assert.equal(await same({ model: 'Nothing', limit: 10 }), null);
    assert.equal(await readRecordsBody(t.platform.deps.db, { connectionPk: pk, model: 'Nothing', limit: 10 }), '{"records":[],"next_cursor":null}');
  });
});
