/**
 * The API keeps an idle keep-alive connection open past node's 5 s default (api/server-options.ts):
 * a client that pauses between requests, as the proxy benchmark's rounds and a load balancer's pooled
 * connections do, sends its next request on the same connection instead of finding it closed.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { API_KEEP_ALIVE_TIMEOUT_MS } from '../api/server-options.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

/** Node's own default, which the API's setting must outlast. */
const NODE_DEFAULT_KEEP_ALIVE_MS = 5_000;

/** One GET /health on `socket`, its status line; rejects when the server closed the connection instead. */
function getHealth(socket: Socket, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // A connection the server closed while it sat idle has already seen its end.
    if (socket.readableEnded || socket.destroyed) return reject(new Error('the server closed the connection while it was idle'));
    let data = '';
    const onData = (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const head = data.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(data);
      if (head !== -1 && length && data.length >= head + 4 + Number(length[1])) {
        done();
        resolve(data.slice(0, data.indexOf('\r\n')));
      }
    };
    const onEnd = () => {
      done();
      reject(new Error(`the server closed the connection (${data.length} bytes of an answer)`));
    };
    const done = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
    socket.write(`GET /health HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n\r\n`);
  });
}

describe('API keep-alive', () => {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform({ runWorker: false });
  });
  after(async () => {
    await t?.stop();
  });

  test('a connection idle for longer than node’s 5 s default still serves the next request', async () => {
    assert.ok(API_KEEP_ALIVE_TIMEOUT_MS > NODE_DEFAULT_KEEP_ALIVE_MS + 2_000);
    const { hostname, port } = new URL(t.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    try {
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      assert.match(await getHealth(socket, `${hostname}:${port}`), /^HTTP\/1\.1 200/);
      await sleep(NODE_DEFAULT_KEEP_ALIVE_MS + 1_500);
      assert.match(await getHealth(socket, `${hostname}:${port}`), /^HTTP\/1\.1 200/, 'the same connection serves the second request');
    } finally {
      socket.destroy();
    }
  });
});
