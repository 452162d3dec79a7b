/**
 * The request log's batched writes (features/logs/writer.ts) on a real platform and database. With a
 * flush interval longer than the test, a proxied call's entry waits in memory: it reaches the table
 * only when a reader in the same process (GET /logs) or a clean stop writes it.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { insertRequestLogs } from '../features/logs/store.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('request log entries written in batches', () => {
  let upstream: http.Server;
  let upstreamUrl: string;
  const platforms: TestPlatform[] = [];

  before(async () => {
    upstream = http.createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const t of platforms) await t.stop().catch(() => undefined);
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  async function ok(res: Response, status = 200): Promise<Json> {
    const text = await res.text();
    assert.equal(res.status, status, text);
    return text ? (JSON.parse(text) as Json) : {};
  }

  /** A platform whose entries wait a minute unless something writes them, with one API-key connection to the upstream. */
  async function platform(): Promise<TestPlatform> {
    const t = await startTestPlatform({ runWorker: false, env: { SWITCHYARD_REQUEST_LOG_FLUSH_MS: '60000' } });
    platforms.push(t);
    const provider = { name: 'upstream', display_name: 'Upstream', auth_mode: 'API_KEY', proxy: { base_url: upstreamUrl, headers: { 'x-key': '${apiKey}' } } };
    await ok(await t.api('/providers', { method: 'POST', json: provider }), 201);
    await ok(await t.api('/integrations', { method: 'POST', json: { provider: 'upstream', unique_key: 'up' } }));
    const connection = { provider_config_key: 'up', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'k' } };
    await ok(await t.api('/connections', { method: 'POST', json: connection }), 201);
    return t;
  }

  const call = async (t: TestPlatform, path: string) => ok(await t.api(`/proxy${path}`, { headers: { 'connection-id': 'c1', 'provider-config-key': 'up' } }));

  async function storedUrls(databaseUrl: string): Promise<string[]> {
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      return (await db.query<{ url: string }>(`SELECT url FROM request_logs WHERE kind = 'proxy' ORDER BY id`)).rows.map((r) => r.url);
    } finally {
      await db.end();
    }
  }

  test('a proxied call waits in memory; GET /logs writes what waits before it lists', async () => {
    const t = await platform();
    await call(t, '/first?x=1');
    assert.deepEqual(await storedUrls(t.databaseUrl), [], 'not written with the call: its batch is not due');
    const logs = await ok(await t.api('/logs?kind=proxy'));
    assert.deepEqual(
      (logs.data as Json[]).map((l) => `${l.status} ${l.url}`),
      [`200 ${upstreamUrl}/first?x=1`],
    );
    assert.deepEqual(await storedUrls(t.databaseUrl), [`${upstreamUrl}/first?x=1`]);
  });

  test('a clean stop writes every entry still waiting before it closes the database', async () => {
    const t = await platform();
    for (const path of ['/a', '/b', '/c']) await call(t, path);
    assert.deepEqual(await storedUrls(t.databaseUrl), []);
    platforms.splice(platforms.indexOf(t), 1);
    await t.stop();
    assert.deepEqual(
      await storedUrls(t.databaseUrl),
      ['/a', '/b', '/c'].map((p) => upstreamUrl + p),
    );
  });

  test('a batch is stored field for field: absent fields as NULL, large byte counts, milliseconds, a lone surrogate as U+FFFD', async () => {
    const t = await platform();
    const db = new pg.Pool({ connectionString: t.databaseUrl, max: 1 });
    try {
      const { rows: envs } = await db.query<{ id: number }>('SELECT id FROM environments ORDER BY id LIMIT 1');
      const environmentId = envs[0]!.id;
      const createdAt = new Date('2026-11-27T10:11:12.345Z');
      await insertRequestLogs(db, [
        {
          environmentId,
          integration: 'up',
          connectionId: 'c1',
          runId: 'run-1',
          kind: 'sync',
          method: 'POST',
          url: 'https://api.example.com/x?token=[redacted]',
          status: 201,
          durationMs: 12.6,
          requestBytes: 5_000_000_000,
          responseBytes: 7,
          createdAt,
        },
        {
          environmentId,
          kind: 'proxy',
          method: 'GET',
          url: 'https://api.example.com/y',
          status: null,
          durationMs: 3,
          requestBytes: null,
          responseBytes: null,
          error: 'broken \ud800 "quoted" ü',
          createdAt,
        },
      ]);
      const { rows } = await db.query<Json>(
        `SELECT integration, connection_id, run_id, kind, method, url, status, duration_ms, request_bytes, response_bytes, error, created_at
         FROM request_logs WHERE environment_id = $1 AND kind IN ('sync', 'proxy') AND url LIKE 'https://api.example.com/%' ORDER BY id`,
        [environmentId],
      );
      assert.deepEqual(rows, [
        {
          integration: 'up',
          connection_id: 'c1',
          run_id: 'run-1',
          kind: 'sync',
          method: 'POST',
          url: 'https://api.example.com/x?token=[redacted]',
          status: 201,
          duration_ms: 13,
          request_bytes: 5_000_000_000,
          response_bytes: 7,
          error: null,
          created_at: createdAt,
        },
        {
          integration: null,
          connection_id: null,
          run_id: null,
          kind: 'proxy',
          method: 'GET',
          url: 'https://api.example.com/y',
          status: null,
          duration_ms: 3,
          request_bytes: null,
          response_bytes: null,
          error: 'broken \ufffd "quoted" ü',
          created_at: createdAt,
        },
      ]);
    } finally {
      await db.end();
    }
  });
});
