import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { requestLogWriter } from '../../features/logs/writer.js';
import { AddressNotAllowed, NetworkError, RateLimited, ResponseTooLarge, UpstreamHttpError } from './errors.js';
import { buildUrl, createProviderHttpClient, type ProviderHttpClient, type ProviderRequest, type RequestLogEntry } from './provider-client.js';
import { rejection } from '../../test/assert.js';

const MB = 1024 * 1024;
const NOW = new Date('2030-01-01T00:00:00Z');

function handler(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url!, 'http://x');
  hits.push(url.pathname);
  if (url.pathname.endsWith('/echo')) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, size: text.length, text: text.toString('utf8') }));
    });
    return;
  }
  if (url.pathname === '/status') {
    const status = Number(url.searchParams.get('code'));
    for (const [k, v] of url.searchParams) if (k !== 'code' && k !== 'body') res.setHeader(k, v);
    if (url.searchParams.has('body')) res.setHeader('content-type', 'application/json');
    res.writeHead(status);
    res.end(url.searchParams.get('body') ?? 'plain failure');
    return;
  }
  if (url.pathname === '/big') {
    const total = Number(url.searchParams.get('bytes'));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        const n = Math.min(chunk.length, total - sent);
        sent += n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
    return;
  }
  if (url.pathname === '/hang') return; // never answers
  res.writeHead(404).end();
}

let hits: string[] = [];
let server: Server;
let base: string;
let port: number;
let client: ProviderHttpClient;
const logs: RequestLogEntry[] = [];

const ctx = { environmentId: 1, integration: 'checkr', connectionId: 'conn-1', runId: 'run-1', kind: 'action' } as const;
function req(over: Partial<ProviderRequest>): ProviderRequest {
  return { method: 'GET', baseUrl: base, path: '/echo', auth: { type: 'none' }, context: ctx, ...over };
}

before(async () => {
  server = createServer(handler);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  client = createProviderHttpClient({ allowedPrivateHosts: ['127.0.0.1'], requestLog: (e) => void logs.push(e), now: () => NOW });
});

after(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
});

describe('auth injection and URL building', () => {
  const cases: [string, ProviderRequest['auth'], string, string][] = [
    ['bearer', { type: 'bearer', token: 'tok' }, 'authorization', 'Bearer tok'],
    ['basic', { type: 'basic', username: 'u', password: 'p' }, 'authorization', `Basic ${Buffer.from('u:p').toString('base64')}`],
    [
      'basic with an empty password (Checkr)',
      { type: 'basic', username: 'key', password: '' },
      'authorization',
      `Basic ${Buffer.from('key:').toString('base64')}`,
    ],
    ['header (x-api-key)', { type: 'header', name: 'X-API-Key', value: 'mb_1' }, 'x-api-key', 'mb_1'],
  ];
  for (const [name, auth, header, value] of cases) {
    test(`${name} is injected and overrides a caller header of the same name`, async () => {
      const res = await client.request(req({ auth, headers: { [header.toUpperCase()]: 'caller value', accept: 'application/json' } }));
      const echo = JSON.parse(res.body!.toString()) as { headers: Record<string, string> };
      assert.equal(echo.headers[header], value);
      assert.equal(echo.headers.accept, 'application/json');
    });
  }

  test('none leaves the caller headers alone and drops hop-by-hop ones', async () => {
    const res = await client.request(req({ headers: { authorization: 'Token abc', connection: 'close', host: 'evil.example' } }));
    const echo = JSON.parse(res.body!.toString()) as { headers: Record<string, string> };
    assert.equal(echo.headers.authorization, 'Token abc');
    assert.equal(echo.headers.host, `127.0.0.1:${port}`);
  });

  test('the base URL prefix, the path query and the query object are combined', async () => {
    const res = await client.request(req({ baseUrl: `${base}/api/v1/`, path: 'echo?a=1', query: { b: 'x y', c: [1, 2], d: true, e: undefined } }));
    const echo = JSON.parse(res.body!.toString()) as { url: string };
    assert.equal(echo.url, '/api/v1/echo?a=1&b=x+y&c=1&c=2&d=true');
    assert.equal(res.url, `${base}/api/v1/echo?a=1&b=x+y&c=1&c=2&d=true`);
    assert.equal(buildUrl('https://h.example/v2', '').toString(), 'https://h.example/v2');
  });

  test('a request body is sent and counted', async () => {
    logs.length = 0;
    const res = await client.request(req({ method: 'post', body: 'héllo', headers: { 'content-type': 'text/plain' } }));
    assert.equal((JSON.parse(res.body!.toString()) as { size: number }).size, 6);
    assert.equal(logs[0]!.requestBytes, 6);
    assert.equal(logs[0]!.method, 'POST');
  });

  test("a definition's body fields (proxy.body, Mandrill's key) are merged into a JSON body, or are the body when there is none", async () => {
    const auth: ProviderRequest['auth'] = { type: 'custom', headers: {}, query: {}, body: { key: 'md-secret' } };
    const echo = async (over: Partial<ProviderRequest>) =>
      JSON.parse((await client.request(req({ auth, ...over }))).body!.toString()) as { text: string; headers: Record<string, string> };
    const merged = await echo({
      method: 'POST',
      body: JSON.stringify({ message: { text: 'hi' }, key: 'caller' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual(JSON.parse(merged.text), { message: { text: 'hi' }, key: 'md-secret' });
    const alone = await echo({ method: 'POST' });
    assert.deepEqual(JSON.parse(alone.text), { key: 'md-secret' });
    assert.equal(alone.headers['content-type'], 'application/json');
    // A GET gets no body, and a body that is not a JSON object is sent as it is.
    assert.equal((await echo({ method: 'GET' })).text, '');
    assert.equal((await echo({ method: 'POST', body: '[1,2]', headers: { 'content-type': 'application/json' } })).text, '[1,2]');
    assert.equal((await echo({ method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).text, 'a=1');
  });
});

describe('statuses and typed errors', () => {
  test('request() answers any status without throwing', async () => {
    const res = await client.request(req({ path: '/status', query: { code: 404 } }));
    assert.equal(res.status, 404);
    assert.equal(res.body!.toString(), 'plain failure');
  });

  test('429 with Retry-After: 2 is RateLimited(2000) from the headers', async () => {
    const err = await rejection(client.requestOrThrow(req({ path: '/status', query: { code: 429, 'retry-after': '2' } })));
    assert.ok(err instanceof RateLimited);
    assert.equal(err.retryAfterMs, 2000);
    assert.equal(err.fromHeaders, true);
    assert.equal(err.retryable, true);
    assert.equal(err.code, 'rate_limited');
    assert.equal(err.response.status, 429);
  });

  const resets: [string, string, number][] = [
    ['epoch seconds', String(NOW.getTime() / 1000 + 5), 5000],
    ['epoch milliseconds', String(NOW.getTime() + 7000), 7000],
    ['a date', new Date(NOW.getTime() + 10_000).toUTCString(), 10_000],
  ];
  for (const [name, value, expected] of resets) {
    test(`429 with X-Ratelimit-Reset as ${name}`, async () => {
      const err = await rejection(client.requestOrThrow(req({ path: '/status', query: { code: 429, 'X-Ratelimit-Reset': value } })));
      assert.ok(err instanceof RateLimited);
      assert.equal(err.retryAfterMs, expected);
    });
  }

  test('429 without a hint gets the default delay, flagged as not from headers', async () => {
    const err = await rejection(client.requestOrThrow(req({ path: '/status', query: { code: 429 } })));
    assert.ok(err instanceof RateLimited);
    assert.equal(err.retryAfterMs, 1000);
    assert.equal(err.fromHeaders, false);
  });

  test('503 is a retryable UpstreamHttpError with the JSON body parsed', async () => {
    const err = await rejection(client.requestOrThrow(req({ path: '/status', query: { code: 503, body: '{"error":"down"}' } })));
    assert.ok(err instanceof UpstreamHttpError);
    assert.equal(err.status, 503);
    assert.equal(err.retryable, true);
    assert.deepEqual(err.body, { error: 'down' });
  });

  test('404 is a non-retryable UpstreamHttpError with the text body; 408 is retryable', async () => {
    const err = await rejection(client.requestOrThrow(req({ path: '/status', query: { code: 404 } })));
    assert.ok(err instanceof UpstreamHttpError);
    assert.equal(err.retryable, false);
    assert.equal(err.body, 'plain failure');
    const timeout = await rejection(client.requestOrThrow(req({ path: '/status', query: { code: 408 } })));
    assert.ok(timeout instanceof UpstreamHttpError && timeout.retryable);
  });

  test('an error status of a streamed request still becomes a typed error', async () => {
    const err = await rejection(client.requestOrThrow(req({ path: '/status', query: { code: 400, body: '{"bad":1}' }, stream: true })));
    assert.ok(err instanceof UpstreamHttpError);
    assert.deepEqual(err.body, { bad: 1 });
  });

  test('a response over maxResponseBytes is ResponseTooLarge', async () => {
    const err = await rejection(client.request(req({ path: '/big', query: { bytes: 2 * MB }, maxResponseBytes: MB })));
    assert.ok(err instanceof ResponseTooLarge);
    assert.equal(err.retryable, false);
  });

  test('a timeout is a retryable NetworkError with code timeout', async () => {
    logs.length = 0;
    const err = await rejection(client.request(req({ path: '/hang', timeoutMs: 200 })));
    assert.ok(err instanceof NetworkError);
    assert.equal(err.code, 'timeout');
    assert.equal(err.retryable, true);
    assert.equal(err.sent, true, 'a request that timed out may have been delivered');
    assert.equal(logs[0]!.status, null);
    assert.match(logs[0]!.error!, /within 200 ms/);
  });

  test('a refused connection is a retryable NetworkError', async () => {
    const closed = createServer();
    await new Promise<void>((ok) => closed.listen(0, '127.0.0.1', ok));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((ok) => closed.close(ok));
    const err = await rejection(client.request(req({ baseUrl: `http://127.0.0.1:${deadPort}` })));
    assert.ok(err instanceof NetworkError);
    assert.equal(err.code, 'ECONNREFUSED');
    assert.equal(err.retryable, true);
    assert.equal(err.sent, false, 'a refused connection never carried the request');
  });
});

describe('address policy', () => {
  test('loopback is refused when not allow-listed, before any connection', async () => {
    const strict = createProviderHttpClient({ allowedPrivateHosts: [] });
    hits = [];
    try {
      const err = await rejection(strict.request(req({})));
      assert.ok(err instanceof AddressNotAllowed);
      assert.equal(err.retryable, false);
      assert.equal(err.host, '127.0.0.1');
      assert.deepEqual(hits, []);
    } finally {
      await strict.close();
    }
  });

  test("'localhost' resolving to loopback is refused at connect time although 127.0.0.1 is allowed", async () => {
    hits = [];
    const err = await rejection(client.request(req({ baseUrl: `http://localhost:${port}` })));
    assert.ok(err instanceof AddressNotAllowed, String(err));
    assert.equal(err.host, 'localhost');
    assert.deepEqual(hits, []);
  });

  test("'localhost' is reachable once allow-listed by name", async () => {
    const named = createProviderHttpClient({ allowedPrivateHosts: ['LOCALHOST'] });
    try {
      const res = await named.request(req({ baseUrl: `http://localhost:${port}` }));
      assert.equal(res.status, 200);
    } finally {
      await named.close();
    }
  });

  for (const host of ['169.254.169.254', '[::ffff:127.0.0.1]', '[::1]', '0.0.0.0', '10.0.0.1']) {
    test(`${host} is refused`, async () => {
      logs.length = 0;
      const err = await rejection(client.request(req({ baseUrl: `http://${host}`, timeoutMs: 1000 })));
      assert.ok(err instanceof AddressNotAllowed, String(err));
      assert.equal(logs.length, 1);
      assert.match(logs[0]!.error!, /not allowed/);
    });
  }
});

describe('streaming', () => {
  test('a streamed 50 MB response passes without being buffered', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const used = () => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const total = 50 * MB;
    const res = await client.request(req({ path: '/big', query: { bytes: total }, stream: true }));
    assert.equal(res.body, null);
    assert.ok(res.stream);
    const baseline = used();
    let peak = 0;
    let count = 0;
    let nextSample = 0;
    for await (const chunk of res.stream.readable()) {
      count += (chunk as Buffer).length;
      if (count >= nextSample) {
        peak = Math.max(peak, used() - baseline);
        nextSample += 5 * MB;
      }
    }
    assert.equal(count, total);
    assert.ok(peak < 25 * MB, `memory grew by ${Math.round(peak / MB)} MB while streaming`);
  });
});

describe('request log', () => {
  test('every call is logged with the secrets of its URL redacted and without headers', async () => {
    logs.length = 0;
    await client.request(req({ path: '/echo?api_key=x&page=2', auth: { type: 'bearer', token: 'sekret' } }));
    await client.request(req({ path: '/big', query: { bytes: 1024 }, stream: true })).then((r) => r.stream!.readable().resume());
    assert.equal(logs.length, 2);
    const [first, streamed] = logs;
    assert.equal(first!.url, `${base}/echo?api_key=[redacted]&page=2`);
    assert.equal(first!.status, 200);
    assert.equal(first!.environmentId, 1);
    assert.equal(first!.connectionId, 'conn-1');
    assert.equal(first!.integration, 'checkr');
    assert.equal(first!.runId, 'run-1');
    assert.equal(first!.kind, 'action');
    assert.equal(first!.requestBytes, 0);
    assert.ok(first!.responseBytes! > 0);
    assert.ok(first!.durationMs >= 0);
    assert.equal(first!.createdAt, NOW);
    assert.ok(!JSON.stringify(first).includes('sekret'));
    assert.equal(streamed!.responseBytes, null);
  });

  test('a failing sink never fails the request, and close() waits for pending writes', async () => {
    const written: RequestLogEntry[] = [];
    const errors: unknown[] = [];
    const originalError = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    const failing = createProviderHttpClient({ allowedPrivateHosts: ['127.0.0.1'], requestLog: () => Promise.reject(new Error('db down')) });
    const fakeDb = { query: () => Promise.reject(new Error('db down')) } as unknown as Parameters<typeof requestLogWriter>[0];
    const writer = requestLogWriter(fakeDb);
    const viaRepo = createProviderHttpClient({ allowedPrivateHosts: ['127.0.0.1'], requestLog: writer.sink });
    const slow = createProviderHttpClient({
      allowedPrivateHosts: ['127.0.0.1'],
      requestLog: (e) => new Promise<void>((ok) => setTimeout(() => ok(void written.push(e)), 50)),
    });
    try {
      assert.equal((await failing.request(req({}))).status, 200);
      assert.equal((await viaRepo.request(req({}))).status, 200);
      assert.equal((await slow.request(req({}))).status, 200);
    } finally {
      await Promise.all([failing.close(), viaRepo.close().then(() => writer.close()), slow.close()]);
      console.error = originalError;
    }
    assert.equal(written.length, 1);
    assert.equal(errors.length, 2);
  });
});
