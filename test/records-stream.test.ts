/**
 * `GET /records` pages sent as they are written (features/records/page-stream.ts): the pooled chunks
 * of a response are not reused before they are written out, and a page that fails after its first
 * bytes cuts the response short instead of ending it as if it were whole.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { readRecordsJson, type RecordsQuery } from '../features/records/read.js';
import { saveRecords } from '../features/records/store.js';
import { startMetabaseFake } from './fakes/index.js';
import { connectMetabase, startTestPlatform, type TestPlatform } from './harness.js';

const API_KEY = 'mb_stream=';
const BIG = 'BigTicket';
/** 20 MB in one page: well past what the loopback socket buffers hold, so most of it waits in the API's memory for a reader that does not read. */
const BIG_COUNT = 4000;
const conn = { 'connection-id': 'acme', 'provider-config-key': 'metabase' };

const bigTicket = (i: number) => ({ id: `b-${i}`, n: i, text: `${i % 10}`.repeat(5000) });

/** The body the string path builds for a page: what every response must carry, byte for byte. */
async function wantBody(t: TestPlatform, q: RecordsQuery): Promise<string> {
  const page = await readRecordsJson(t.platform.deps.db, q);
  return `{"records":[${page.records.join(',')}],"next_cursor":${JSON.stringify(page.nextCursor)}}`;
}

/** A GET whose response is not read until `read()`: node's client stops reading the socket once its small buffer is full. */
function heldGet(t: TestPlatform, path: string): Promise<{ res: http.IncomingMessage; read(): Promise<Buffer> }> {
  return new Promise((resolve, reject) => {
    const req = http.get(t.url + path, { headers: { authorization: `Bearer ${t.devKey}`, ...conn }, agent: false }, (res) => {
      res.pause();
      resolve({
        res,
        async read() {
          const parts: Buffer[] = [];
          for await (const part of res) parts.push(part as Buffer);
          return Buffer.concat(parts);
        },
      });
    });
    req.on('error', reject);
  });
}

/** A TCP relay to PostgreSQL that, once armed, cuts any connection after it has carried `bytes` more from the server. */
async function startCuttingRelay(target: URL): Promise<{ url: string; arm(bytes: number): void; cuts: number; close(): Promise<void> }> {
  let armedAt: number | null = null;
  const sockets = new Set<net.Socket>();
  const relay = {
    url: '',
    cuts: 0,
    arm(bytes: number) {
      armedAt = bytes;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let carried = 0;
    client.pipe(upstream);
    upstream.on('data', (d: Buffer) => {
      carried = armedAt === null ? 0 : carried + d.length;
      if (armedAt !== null && carried > armedAt) {
        relay.cuts++;
        client.destroy();
        upstream.destroy();
      } else client.write(d);
    });
    for (const s of [client, upstream]) s.on('error', () => {}).on('close', () => (client.destroy(), upstream.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  relay.url = url.toString();
  return relay;
}

describe('records pages streamed', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let pk: number;

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    await connectMetabase(t, metabase.url, API_KEY);
    const { rows } = await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM connections WHERE connection_id = 'acme'`);
    pk = rows[0]!.id;
    for (let from = 0; from < BIG_COUNT; from += 1000) {
      await saveRecords(
        t.platform.deps.db,
        pk,
        BIG,
        Array.from({ length: 1000 }, (_, i) => bigTicket(from + i)),
      );
    }
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test("a response's chunks are not reused before they are written: a reader that waits and readers meanwhile each get their own pages", async () => {
    const whole = { connectionPk: pk, model: BIG, limit: BIG_COUNT };
    const slow = await heldGet(t, `/records?model=${BIG}&limit=${BIG_COUNT}`);
    assert.equal(slow.res.statusCode, 200);
    assert.equal(slow.res.headers['transfer-encoding'], 'chunked', 'the page was sent as it was written');
    // Meanwhile other pages go through the same pool of chunks, twice over.
    for (let round = 0; round < 2; round++) {
      for (let cursor: string | null | undefined = undefined; cursor !== null;) {
        const q: RecordsQuery = { connectionPk: pk, model: BIG, limit: 1000, cursor };
        const res = await t.api(`/records?model=${BIG}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`, { headers: conn });
        const text = await res.text();
        assert.equal(text, await wantBody(t, q));
        cursor = (JSON.parse(text) as { next_cursor: string | null }).next_cursor;
      }
    }
    const body = await slow.read();
    const want = await wantBody(t, whole);
    assert.equal(body.length, Buffer.byteLength(want));
    assert.ok(body.equals(Buffer.from(want)), 'the waiting reader got its page byte for byte');
  });

  test('a page whose database connection breaks after its first bytes were sent ends in an error, not in a body that looks whole', async () => {
    const relay = await startCuttingRelay(new URL(t.databaseUrl));
    const viaRelay = await startTestPlatform({
      runWorker: false,
      env: {
        DATABASE_URL: relay.url,
        SWITCHYARD_ENCRYPTION_KEY: t.config.SWITCHYARD_ENCRYPTION_KEY!,
        SWITCHYARD_SECRET_KEY_DEV: t.devKey,
        SWITCHYARD_SECRET_KEY_PROD: t.prodKey,
      },
    });
    try {
      // The connection is looked up (and cached) before the relay is armed.
      assert.equal((await viaRelay.api(`/records?model=${BIG}&limit=1`, { headers: conn })).status, 200);
      relay.arm(2 * 1024 * 1024);
      const res = await viaRelay.api(`/records?model=${BIG}&limit=${BIG_COUNT}`, { headers: conn });
      assert.equal(res.status, 200, 'the headers went out before the connection broke');
      assert.equal(res.headers.get('content-length'), null);
      await assert.rejects(res.arrayBuffer(), 'the client sees the answer cut short');
      assert.equal(relay.cuts, 1);
      relay.arm(Infinity);
      // The API goes on answering.
      const again = await viaRelay.api(`/records?model=${BIG}&limit=3`, { headers: conn });
      assert.equal(await again.text(), await wantBody(t, { connectionPk: pk, model: BIG, limit: 3 }));
    } finally {
      await viaRelay.stop();
      await relay.close();
    }
  });
});
