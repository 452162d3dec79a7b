import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { Agent } from 'undici';
import { StreamedBody } from './streamed-body.js';

const CHUNK = Buffer.alloc(64 * 1024, 0x62);

let server: Server;
let origin: string;
let agent: Agent;
/** How each `/endless` answer ended upstream: `closed` when the download was stopped. */
const endless: Promise<'closed'>[] = [];

function endlessAnswer(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  const more = () => {
    while (!res.destroyed && res.write(CHUNK));
  };
  res.on('drain', more);
  more();
  endless.push(once(res, 'close').then(() => 'closed' as const));
}

before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/endless') return endlessAnswer(res);
    if (req.url === '/broken') {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial');
      setTimeout(() => res.destroy(), 20);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'x-kind': 'small' });
    res.end('hello, body');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agent = new Agent();
});

after(async () => {
  await agent.close();
  server.close();
});

function call(path: string): StreamedBody {
  const body = new StreamedBody(null, null);
  agent.dispatch({ origin, path, method: 'GET', headers: {} }, body);
  return body;
}

/** A sink as the proxy's node response is one: a writable that says when it was destroyed. */
function sink(highWaterMark = 16 * 1024): PassThrough & { chunks: Buffer[] } {
  const out = Object.assign(new PassThrough({ highWaterMark }), { chunks: [] as Buffer[] });
  out.on('data', (c: Buffer) => out.chunks.push(c));
  return out;
}

describe('a streamed response body', () => {
  test('the status and headers come first; chunks that arrived before the consumer are written before later ones', async () => {
    const body = call('/small');
    const start = await body.started;
    assert.equal(start.statusCode, 200);
    assert.equal(start.headers['x-kind'], 'small');
    const out = sink();
    body.pipeTo(out);
    await once(out, 'finish');
    assert.equal(Buffer.concat(out.chunks).toString(), 'hello, body');
  });

  test('a sink that closes before the body ends stops the upstream download', async () => {
    const body = call('/endless');
    await body.started;
    const out = sink();
    // A sink that nobody reads fills and pauses the download; then the caller goes away.
    out.pause();
    body.pipeTo(out);
    await new Promise((resolve) => setImmediate(resolve));
    out.destroy();
    assert.equal(await endless.at(-1), 'closed');
  });

  test('a body that breaks off upstream destroys the sink instead of ending it', async () => {
    const body = call('/broken');
    await body.started;
    const out = sink();
    const ended = once(out, 'finish').then(() => 'finished');
    const closed = once(out, 'close').then(() => (out.writableFinished ? 'finished' : 'destroyed'));
    body.pipeTo(out);
    assert.equal(await Promise.race([ended, closed]), 'destroyed');
  });

  test('read as a node stream, and dropped: a discarded body stops the download', async () => {
    const small = call('/small');
    await small.started;
    const chunks: Buffer[] = [];
    for await (const c of small.readable()) chunks.push(c as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), 'hello, body');

    const big = call('/endless');
    await big.started;
    big.discard();
    assert.equal(await endless.at(-1), 'closed');
  });
});
