/**
 * The OAuth popup sockets on a plain loopback server: bounded per remote address, closed when nobody
 * claims them, closed when their time is up whatever the client sends, one per connect session.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { AuthSocketHub, type AuthSocketLimits } from './ws.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Opened {
  ws: WebSocket;
  id: string;
  closed: Promise<[number, string]>;
}

function open(url: string, localAddress = '127.0.0.1'): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress });
    const closed = new Promise<[number, string]>((done) => ws.once('close', (code, reason) => done([code, String(reason)])));
    ws.once('message', (data) => resolve({ ws, id: (JSON.parse(String(data)) as Json).ws_client_id as string, closed }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** Pings every `everyMs` until the socket closes or `max` pings went out; resolves with how many went out before the close. */
function pingUntilClosed(s: Opened, everyMs: number, max: number): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= max) {
        clearInterval(timer);
        return;
      }
      if (s.ws.readyState === WebSocket.OPEN) {
        s.ws.ping();
        sent++;
      }
    }, everyMs);
    void s.closed.then(() => {
      clearInterval(timer);
      resolve(sent);
    });
  });
}

async function hubServer(limits: AuthSocketLimits): Promise<{ hub: AuthSocketHub; url: string; close(): Promise<void> }> {
  const hub = new AuthSocketHub(limits);
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on('upgrade', (req, socket, head) => hub.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    hub,
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    async close() {
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('OAuth popup sockets', () => {
  let s: Awaited<ReturnType<typeof hubServer>>;
  before(async () => {
    s = await hubServer({ maxClients: 10, maxClientsPerAddress: 2, claimTimeoutMs: 300, idleTimeoutMs: 600 });
  });
  after(async () => s?.close());

  test('a remote address holds at most its share of sockets; another address still gets one', async () => {
    const a = await open(s.url);
    const b = await open(s.url);
    await assert.rejects(open(s.url), /upgrade refused with 429/);
    const other = await open(s.url, '127.0.0.2');
    for (const x of [a, b, other]) x.ws.close();
    await Promise.all([a.closed, b.closed]);
    // Closed sockets give their places back.
    const again = await open(s.url);
    again.ws.close();
    await again.closed;
  });

  test('pings do not keep an unclaimed socket open: it is closed after the claim window while the client still pings', async () => {
    const x = await open(s.url);
    // The hang guard: pinging stops after 200 pings (20 s) whatever happens.
    const pingsBeforeClose = await pingUntilClosed(x, 100, 200);
    assert.ok(pingsBeforeClose < 200, 'the socket was closed only once the client stopped pinging');
    assert.deepEqual(await x.closed, [1008, 'not claimed by a connect session']);
  });

  test('a claimed socket outlives the claim window, gets its outcome, and is closed at the idle timeout however much it pings', async () => {
    const unclaimed = await open(s.url);
    const claimed = await open(s.url, '127.0.0.2');
    assert.equal(s.hub.claim(claimed.id, 1), true);
    assert.equal(s.hub.claim(claimed.id, 2), false, 'another session cannot take it');
    assert.equal(s.hub.claim('00000000-0000-4000-8000-000000000000', 1), false);
    await unclaimed.closed;
    assert.equal(claimed.ws.readyState, WebSocket.OPEN);
    const pingsBeforeClose = await pingUntilClosed(claimed, 100, 200);
    assert.ok(pingsBeforeClose < 200, 'the socket was closed only once the client stopped pinging');
    assert.deepEqual(await claimed.closed, [1000, 'idle timeout']);

    const next = await open(s.url);
    const message = new Promise<Json>((resolve) => next.ws.once('message', (d) => resolve(JSON.parse(String(d)) as Json)));
    assert.equal(s.hub.claim(next.id, 1), true);
    s.hub.publish(next.id, { message_type: 'success', provider_config_key: 'drive', connection_id: 'c1', is_pending: false });
    assert.deepEqual(await message, { message_type: 'success', provider_config_key: 'drive', connection_id: 'c1', is_pending: false });
    await next.closed;
  });

  test('a connect session holds one socket: a newer claim closes the older one', async () => {
    const first = await open(s.url);
    const second = await open(s.url);
    assert.equal(s.hub.claim(first.id, 7), true);
    assert.equal(s.hub.claim(second.id, 7), true);
    assert.deepEqual(await first.closed, [1000, 'replaced by a newer flow of this session']);
    assert.equal(second.ws.readyState, WebSocket.OPEN);
    second.ws.close();
    await second.closed;
  });
});
