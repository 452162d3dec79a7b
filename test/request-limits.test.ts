/**
 * One request body limit on every route, counted on the stream, and a bounded number of OAuth
 * popup WebSockets that close when idle. The platform runs with small limits so the tests send little.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { loadConfig } from '../lib/config.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const LIMIT = 64 * 1024;

/** A body sent in chunks without Content-Length (Transfer-Encoding: chunked). */
function chunked(bytes: number, chunk = 8 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const n = Math.min(chunk, bytes - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
}

function openSocket(url: string): Promise<{ ws: WebSocket; ack: Json }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('message', (data) => resolve({ ws, ack: JSON.parse(String(data)) as Json }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

describe('request limits', () => {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform({
      runWorker: false,
      env: {
        SWITCHYARD_REQUEST_BODY_LIMIT_BYTES: String(LIMIT),
        SWITCHYARD_DEPLOY_BODY_LIMIT_BYTES: String(LIMIT),
        SWITCHYARD_WS_MAX_CLIENTS: '2',
        SWITCHYARD_WS_CLAIM_TIMEOUT_MS: '1000',
        SWITCHYARD_WS_IDLE_TIMEOUT_MS: '1000',
      },
    });
  });
  after(async () => t?.stop());

  test('the default limit leaves room for a 2 MB action input and its envelope', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.SWITCHYARD_REQUEST_BODY_LIMIT_BYTES, 4 * 1024 * 1024);
    assert.ok(defaults.SWITCHYARD_REQUEST_BODY_LIMIT_BYTES > defaults.SWITCHYARD_ACTION_INPUT_LIMIT_BYTES + 64 * 1024);
  });

  test('a chunked body over the limit, without Content-Length, is refused with 413 in the error envelope', async () => {
    for (const path of ['/integrations', '/connect/sessions', '/scripts/deploy/preview']) {
      const res = await t.api(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chunked(LIMIT + 1),
        duplex: 'half',
      } as RequestInit);
      const text = await res.text();
      assert.equal(res.status, 413, `${path}: ${text}`);
      assert.equal((JSON.parse(text) as Json).error.code, 'payload_too_large');
    }
  });

  test('a declared Content-Length over the limit is refused before the body is read, on any route', async () => {
    for (const path of ['/integrations', '/webhook/00000000-0000-4000-8000-000000000000/x', '/proxy/upload', '/dashboard/sign-in']) {
      const res = await t.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ' '.repeat(LIMIT + 1) });
      const text = await res.text();
      assert.equal(res.status, 413, `${path}: ${text}`);
      assert.equal((JSON.parse(text) as Json).error.code, 'payload_too_large');
    }
  });

  test('a TRACE with a body (a method fetch cannot build) gets a 4xx', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${t.url}/integrations`,
        { method: 'TRACE', headers: { authorization: `Bearer ${t.devKey}`, 'content-type': 'application/json', 'content-length': '7' } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end('{"a":1}');
    });
    assert.ok(status >= 400 && status < 500, `TRACE answered ${status}`);
  });

  test('a body at the limit is read as usual', async () => {
    const padded = JSON.stringify({ provider: 'metabase', unique_key: 'at-limit' }).padEnd(LIMIT, ' ');
    const res = await t.api('/integrations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: padded });
    assert.equal(res.status, 200, await res.text());
  });

  test('WebSocket clients are bounded and closed when no connect session claims them, pings or not', async () => {
    const url = t.url.replace(/^http/, 'ws') + '/';
    const first = await openSocket(url);
    const second = await openSocket(url);
    assert.equal(first.ack.message_type, 'connection_ack');
    await assert.rejects(openSocket(url), /upgrade refused with 503/);
    const closed = [first.ws, second.ws].map(
      (ws) => new Promise<[number, string]>((resolve) => ws.once('close', (code, reason) => resolve([code, String(reason)]))),
    );
    // The first pings all along (at most 100 times, the hang guard); the server still closes both once
    // the claim window is over, which frees their places.
    let pings = 0;
    const pinger = setInterval(() => {
      if (pings >= 100 || first.ws.readyState !== WebSocket.OPEN) return;
      first.ws.ping();
      pings++;
    }, 100);
    const outcomes = await Promise.all(closed).finally(() => clearInterval(pinger));
    assert.ok(pings < 100, 'the pinging socket was closed only once it stopped pinging');
    assert.deepEqual(outcomes, [
      [1008, 'not claimed by a connect session'],
      [1008, 'not claimed by a connect session'],
    ]);
    const third = await openSocket(url);
    assert.equal(third.ack.message_type, 'connection_ack');
    third.ws.close();
  });
});

describe('request bodies under the default limit', () => {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform({ runWorker: false });
  });
  after(async () => t?.stop());

  test('bodies that no route reads leave the connection usable for the next request', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      for (const init of [
        { key: 'not-a-key', headers: { 'content-type': 'application/json' } },
        { key: null, headers: { 'content-type': 'application/json' } },
        { headers: { 'content-type': 'text/plain' } },
        { headers: { 'content-type': 'application/json' } },
      ]) {
        const res = await t.api('/integrations', { method: 'POST', body, ...init });
        statuses.push(res.status);
        await res.text();
      }
    }
    assert.deepEqual(statuses, [401, 401, 415, 400, 401, 401, 415, 400, 401, 401, 415, 400]);
  });
});
