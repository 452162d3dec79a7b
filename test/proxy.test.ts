import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Nango } from '@nangohq/node';
import { providerTarget } from '../features/connections/target.js';
import { freePort } from '../lib/embedded/temporal.js';
import { deterministicSha256, startGenericApiFake, startMetabaseFake, startOAuthProviderFake, type GenericApiFake } from './fakes/index.js';
import { addMetabaseConnection, addOAuthIntegration, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const API_KEY = 'proxy-test-key-0123456789';

// A full GC before each memory sample, so that the samples measure what is retained rather than
// garbage not yet collected (the runner does not pass --expose-gc).
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const PCK = 'mb';
const CONN = 'conn-1';
const BODY_LIMIT = 16 * 1024 * 1024;

describe('the proxy and the request log', () => {
  let t: TestPlatform;
  let generic: GenericApiFake;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;

  const proxy = (path: string, init: RequestInit & { json?: unknown; key?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('connection-id')) headers.set('connection-id', CONN);
    if (!headers.has('provider-config-key')) headers.set('provider-config-key', PCK);
    return t.api(`/proxy${path}`, { ...init, headers });
  };

  before(async () => {
    // Above the 10 MB replay buffer, so that large uploads can be streamed.
    t = await startTestPlatform({ runWorker: false, env: { SWITCHYARD_REQUEST_BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
    generic = await startGenericApiFake({ apiKey: API_KEY });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    // The connection is verified against the Metabase fake (GET /api/user/current), then the
    // integration's base URL is pointed at the generic fake for every call that follows.
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: PCK } })).status, 200);
    await addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: PCK, connectionId: CONN });
    const patched = await t.api(`/integrations/${PCK}`, { method: 'PATCH', json: { integration_config: { base_url: generic.url } } });
    assert.equal(patched.status, 200);
  });
  after(async () => {
    await t?.stop();
    await generic?.close();
    await metabase?.close();
  });

  test('GET with a query: credentials injected, only prefixed headers forwarded', async () => {
    const res = await proxy('/echo?a=1&b=two%20words&a=2', {
      headers: { 'Nango-Proxy-Accept': 'application/json', 'Switchyard-Proxy-X-Trace': 'abc', 'X-Not-Forwarded': 'nope', 'Base-Url-Override': '' },
    });
    assert.equal(res.status, 200);
    const echo = (await res.json()) as Json;
    assert.equal(echo.method, 'GET');
    assert.equal(echo.path, '/echo');
    assert.deepEqual(generic.requests.at(-1)!.query, { a: '2', b: 'two words' });
    assert.deepEqual(echo.query, { a: '2', b: 'two words' });
    assert.equal(echo.headers['x-api-key'], API_KEY);
    assert.equal(echo.headers.accept, 'application/json');
    assert.equal(echo.headers['x-trace'], 'abc');
    assert.equal(echo.headers['x-not-forwarded'], undefined);
    assert.equal(echo.headers.authorization, undefined, 'the caller’s secret key must never reach the provider');
    assert.equal(echo.headers['connection-id'], undefined);
    assert.equal(echo.headers['provider-config-key'], undefined);
  });

  test('JSON, binary and multipart bodies arrive byte for byte with their content type', async () => {
    const json = JSON.stringify({ name: 'ü', nested: { list: [1, 2, 3] } });
    const jsonRes = await proxy('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: json });
    assert.equal(jsonRes.status, 200);
    const jsonEcho = (await jsonRes.json()) as Json;
    assert.equal(jsonEcho.body, json);
    assert.equal(jsonEcho.headers['content-type'], 'application/json');

    const binary = randomBytes(3 * 1024 * 1024 + 17);
    const binRes = await proxy('/echo-binary', { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: binary });
    assert.equal(binRes.status, 200);
    assert.equal(binRes.headers.get('content-type'), 'application/octet-stream');
    assert.ok(Buffer.from(await binRes.arrayBuffer()).equals(binary));
    assert.equal(generic.requests.at(-1)!.headers['content-type'], 'application/octet-stream');

    const form = new FormData();
    form.append('title', 'report');
    form.append('file', new Blob([randomBytes(200_000)], { type: 'application/pdf' }), 'report.pdf');
    const encoded = new Request('http://x/', { method: 'POST', body: form });
    const multipart = Buffer.from(await encoded.arrayBuffer());
    const multipartType = encoded.headers.get('content-type')!;
    assert.match(multipartType, /^multipart\/form-data; boundary=/);
    const mpRes = await proxy('/echo-binary', { method: 'POST', headers: { 'content-type': multipartType }, body: multipart });
    assert.equal(mpRes.status, 200);
    assert.ok(Buffer.from(await mpRes.arrayBuffer()).equals(multipart));
    assert.equal(generic.requests.at(-1)!.headers['content-type'], multipartType);

    const form2 = await proxy('/echo', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=%C3%BC' });
    assert.equal(((await form2.json()) as Json).body, 'a=1&b=%C3%BC');
  });

  test('upstream errors come back unchanged', async () => {
    const notFound = await proxy('/nope');
    assert.equal(notFound.status, 404);
    assert.deepEqual(await notFound.json(), { error: 'not_found' });

    generic.failNext({
      status: 500,
      body: '{"boom":true,"detail":"upstream broke"}',
      headers: { 'x-upstream': 'yes', 'set-cookie': 'a=b', 'access-control-allow-origin': 'https://evil' },
    });
    const broken = await proxy('/echo');
    assert.equal(broken.status, 500);
    assert.equal(await broken.text(), '{"boom":true,"detail":"upstream broke"}');
    assert.equal(broken.headers.get('x-upstream'), 'yes');
    assert.equal(broken.headers.get('set-cookie'), null);
    assert.equal(broken.headers.get('access-control-allow-origin'), '*', 'our CORS policy, not the upstream’s');

    const seen = generic.requests.length;
    generic.failNext({ status: 429, body: 'slow down', headers: { 'retry-after': '1' } });
    const limited = await proxy('/echo', { headers: { Retries: '0' } });
    assert.equal(limited.status, 429);
    assert.equal(await limited.text(), 'slow down');
    assert.equal(limited.headers.get('retry-after'), '1');
    assert.equal(generic.requests.length, seen + 1);
  });

  test('retries: 5xx, 429 with Retry-After and Retry-On statuses are retried; a replayed body is identical', async () => {
    let seen = generic.requests.length;
    generic.failNext({ status: 503, body: 'unavailable' });
    const ok = await proxy('/echo', { headers: { Retries: '2' } });
    assert.equal(ok.status, 200);
    assert.equal(generic.requests.length - seen, 2);

    seen = generic.requests.length;
    generic.failNext({ status: 429, body: 'later', headers: { 'retry-after': '0' } });
    const payload = JSON.stringify({ name: 'replayed' });
    const posted = await proxy('/echo', { method: 'POST', headers: { Retries: '1', 'content-type': 'application/json' }, body: payload });
    assert.equal(posted.status, 200);
    assert.equal(((await posted.json()) as Json).body, payload);
    assert.deepEqual(
      generic.requests.slice(seen).map((r) => [r.status, r.body]),
      [
        [429, payload],
        [200, payload],
      ],
    );

    seen = generic.requests.length;
    generic.failNext({ status: 409, body: 'conflict', headers: { 'retry-after': '0' } });
    assert.equal((await proxy('/echo', { headers: { Retries: '1' } })).status, 409, '409 is not retried unless asked');
    generic.failNext({ status: 409, body: 'conflict', headers: { 'retry-after': '0' } });
    assert.equal((await proxy('/echo', { headers: { Retries: '1', 'Retry-On': '409,423' } })).status, 200);
    assert.equal(generic.requests.length - seen, 3);

    // A body above the 10 MB replay buffer is streamed once and not retried.
    const large = randomBytes(10 * 1024 * 1024 + 1);
    seen = generic.requests.length;
    generic.failNext({ status: 503, body: 'unavailable', headers: { 'retry-after': '0' } });
    const once = await proxy('/echo-binary', { method: 'POST', headers: { Retries: '2', 'content-type': 'application/octet-stream' }, body: large });
    assert.equal(once.status, 503);
    assert.equal(await once.text(), 'unavailable');
    assert.equal(generic.requests.length - seen, 1);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < large.length; at += 1024 * 1024) controller.enqueue(large.subarray(at, at + 1024 * 1024));
        controller.close();
      },
    });
    const streamed = await proxy('/echo-binary', {
      method: 'POST',
      headers: { Retries: '2', 'content-type': 'application/octet-stream' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    assert.equal(streamed.status, 200);
    assert.ok(Buffer.from(await streamed.arrayBuffer()).equals(large), 'a chunked body above the limit arrives whole');

    seen = generic.requests.length;
    generic.failNext({ status: 502, body: 'bad gateway', times: 3, headers: { 'retry-after': '0' } });
    const exhausted = await proxy('/echo', { headers: { Retries: '2' } });
    assert.equal(exhausted.status, 502);
    assert.equal(await exhausted.text(), 'bad gateway');
    assert.equal(generic.requests.length - seen, 3, 'Retries + 1 attempts in all');
  });

  test('a POST or PATCH that reached the provider is retried only with an Idempotency-Key (the write policy)', async () => {
    const sent = (from: number, method: string) => generic.requests.slice(from).filter((r) => r.method === method && r.path === '/echo');
    for (const method of ['POST', 'PATCH']) {
      const payload = JSON.stringify({ name: `unkeyed-${method}` });
      let seen = generic.requests.length;
      generic.failNext({ status: 500, body: 'lost answer', headers: { 'retry-after': '0' } });
      const unkeyed = await proxy('/echo', { method, headers: { Retries: '2', 'content-type': 'application/json' }, body: payload });
      assert.equal(unkeyed.status, 500, `${method}: the 500 comes back, not a second write`);
      assert.equal(sent(seen, method).length, 1, `${method} without an Idempotency-Key reaches the provider once`);
      assert.equal(sent(seen, method)[0]!.headers['idempotency-key'], undefined);

      // A listed Retry-On status also proves the request arrived.
      seen = generic.requests.length;
      generic.failNext({ status: 409, body: 'conflict', headers: { 'retry-after': '0' } });
      const listed = await proxy('/echo', { method, headers: { Retries: '2', 'Retry-On': '409', 'content-type': 'application/json' }, body: payload });
      assert.equal(listed.status, 409);
      assert.equal(sent(seen, method).length, 1, `${method} with Retry-On is not repeated without a key`);

      seen = generic.requests.length;
      generic.failNext({ status: 500, body: 'lost answer', headers: { 'retry-after': '0' } });
      const keyed = await proxy('/echo', {
        method,
        headers: { Retries: '2', 'content-type': 'application/json', 'Nango-Proxy-Idempotency-Key': `key-${method}` },
        body: payload,
      });
      assert.equal(keyed.status, 200, `${method} with an Idempotency-Key is retried`);
      assert.deepEqual(
        sent(seen, method).map((r) => [r.status, r.headers['idempotency-key']]),
        [
          [500, `key-${method}`],
          [200, `key-${method}`],
        ],
      );
    }
  });

  test('a POST whose upstream timed out is not sent again without an Idempotency-Key', async () => {
    // A server that takes the request and never answers: the proxy's upstream timeout ends the wait.
    let received = 0;
    const silent = http.createServer((req) => {
      received++;
      req.resume();
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const short = await startTestPlatform({ runWorker: false, env: { SWITCHYARD_PROVIDER_TIMEOUT_MS: '300' } });
    try {
      assert.equal((await short.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: PCK } })).status, 200);
      await addMetabaseConnection(short, metabase.url, API_KEY, { providerConfigKey: PCK, connectionId: CONN });
      assert.equal((await short.api(`/integrations/${PCK}`, { method: 'PATCH', json: { integration_config: { base_url: base } } })).status, 200);
      const res = await short.api('/proxy/slow', {
        method: 'POST',
        headers: { 'connection-id': CONN, 'provider-config-key': PCK, Retries: '2', 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      assert.equal(res.status, 504, await res.clone().text());
      assert.equal(received, 1, 'the POST left once');
    } finally {
      await short.stop();
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  test('the answer is written as the provider sent it, on a connection that stays usable', async () => {
    // A bare upstream (no fake framework): no content type, a repeated header, a body in two writes,
    // and a body that breaks off midway.
    const upstream = http.createServer((req, res) => {
      if (req.url === '/broken') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('only ten..');
        setImmediate(() => res.destroy());
        return;
      }
      if (req.url === '/empty') {
        res.writeHead(204, { 'x-empty': 'yes' });
        res.end();
        return;
      }
      res.writeHead(203, [
        ['x-multi', 'a'],
        ['x-multi', 'b'],
        ['x-request-id', 'upstream-id'],
      ]);
      res.write('first ');
      setImmediate(() => res.end('second'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    // One keep-alive socket: every request after the first must reuse it.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; reused: boolean }>((resolve, reject) => {
        const req = http.get(
          `${t.url}/proxy${path}`,
          {
            agent,
            headers: {
              authorization: `Bearer ${t.devKey}`,
              'connection-id': CONN,
              'provider-config-key': PCK,
              'base-url-override': base,
              origin: 'https://app',
            },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, reused: req.reusedSocket }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
      });
    try {
      const first = await get('/plain');
      assert.equal(first.status, 203);
      assert.equal(first.body, 'first second');
      assert.equal(first.headers['content-type'], undefined, 'no content type is added to an answer that has none');
      assert.equal(first.headers['x-multi'], 'a, b');
      assert.match(String(first.headers['x-request-id']), /^[0-9a-f-]{36}$/, 'our request id, not the upstream’s');
      assert.equal(first.headers['access-control-allow-origin'], '*');

      const empty = await get('/empty');
      assert.equal(empty.status, 204);
      assert.equal(empty.headers['x-empty'], 'yes');
      assert.equal(empty.body, '');
      assert.ok(empty.reused, 'the connection is kept alive after a proxied answer');

      await assert.rejects(get('/broken'), 'a body that breaks off upstream is cut off here, not ended as if complete');
      const after = await get('/plain');
      assert.equal(after.body, 'first second');
      // Every call is in the request log (written in batches, so it may trail the answer).
      const expected = [`203 ${base}/plain`, `204 ${base}/empty`, `200 ${base}/broken`];
      let lines: string[] = [];
      for (let i = 0; i < 100 && !expected.every((l) => lines.includes(l)); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 50));
        const logged = (await (await t.api('/logs?kind=proxy&limit=50')).json()) as Json;
        lines = (logged.data as Json[]).map((l) => `${l.status} ${l.url}`);
      }
      for (const line of expected) assert.ok(lines.includes(line), `${line} in ${lines.join('; ')}`);
    } finally {
      agent.destroy();
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  test('a caller that goes away before the provider answers stops the upstream call, which the log records as aborted', async () => {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    // Never answers: only the caller's going away (or undici's 30 s headers timeout) ends the request.
    const upstream = http.createServer(() => arrived());
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    try {
      const req = http.get(`${t.url}/proxy/abandoned`, {
        headers: { authorization: `Bearer ${t.devKey}`, 'connection-id': CONN, 'provider-config-key': PCK, 'base-url-override': base },
      });
      req.on('error', () => undefined);
      await arrival;
      req.destroy();
      let entry: Json | undefined;
      for (let i = 0; !entry; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 50));
        const logged = (await (await t.api('/logs?kind=proxy&limit=50')).json()) as Json;
        entry = (logged.data as Json[]).find((l) => l.url === `${base}/abandoned`);
      }
      assert.equal(entry.status, null);
      assert.match(String(entry.error), /abort/i, 'stopped when the caller left, not by the headers timeout');
    } finally {
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  test('a proxied answer written on the node response builds one web Response, none spare for the middleware headers', async () => {
    // Counts the web Responses this process builds during one call (the client is node:http, which builds none).
    const Original = globalThis.Response;
    let built = 0;
    class Counting extends Original {
      constructor(...args: ConstructorParameters<typeof Response>) {
        super(...args);
        built++;
      }
      static override [Symbol.hasInstance](x: unknown): boolean {
        return x instanceof Original;
      }
    }
    const call = () =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const req = http.get(
          `${t.url}/proxy/echo`,
          { headers: { authorization: `Bearer ${t.devKey}`, 'connection-id': CONN, 'provider-config-key': PCK, 'x-request-id': 'one-response' } },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
      });
    await call(); // the connection's target is resolved and cached first
    globalThis.Response = Counting as typeof Response;
    let res: Awaited<ReturnType<typeof call>>;
    try {
      res = await call();
    } finally {
      globalThis.Response = Original;
    }
    assert.equal(res.status, 200);
    assert.equal((JSON.parse(res.body) as Json).path, '/echo');
    assert.equal(res.headers['x-request-id'], 'one-response');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-expose-headers'], 'Content-Type,Content-Length,Location,X-Request-Id');
    assert.equal(built, 1, 'only the answer that tells the middleware its status');
  });

  test('a streamed upload over the request body limit is cut off with 413 payload_too_large', async () => {
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 2 * BODY_LIMIT) return controller.close();
        sent += 1024 * 1024;
        controller.enqueue(new Uint8Array(1024 * 1024));
      },
    });
    const res = await proxy('/echo-binary', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as Json).error.code, 'payload_too_large');
  });

  test('a 50 MB download streams through in bounded memory', async (ctx) => {
    const bytes = 50 * 1024 * 1024;
    const MB = 1024 * 1024;
    gc();
    const base = process.memoryUsage();
    // Growth over the baseline of what is retained (a full GC first): resident set, and memory
    // outside the V8 heap (Buffers, sockets). Platform and consumer share this process.
    const peak = { rss: 0, external: 0, arrayBuffers: 0 };
    const sample = () => {
      gc();
      const m = process.memoryUsage();
      peak.rss = Math.max(peak.rss, m.rss - base.rss);
      peak.external = Math.max(peak.external, m.external - base.external);
      peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers - base.arrayBuffers);
    };
    const res = await proxy(`/files/big?bytes=${bytes}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(bytes));
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="big.bin"');
    sample();
    let received = 0;
    let sinceSample = 0;
    const hash = createHash('sha256');
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      sinceSample += value.byteLength;
      hash.update(value);
      if (sinceSample >= 2 * MB) {
        sinceSample = 0;
        sample();
      }
    }
    assert.equal(received, bytes);
    assert.equal(hash.digest('hex'), deterministicSha256(bytes));
    const mb = (n: number) => (n / MB).toFixed(1);
    ctx.diagnostic(`peak growth while streaming: rss ${mb(peak.rss)} MB, external ${mb(peak.external)} MB, arrayBuffers ${mb(peak.arrayBuffers)} MB`);
    for (const [name, grew] of Object.entries(peak)) assert.ok(grew < 40 * MB, `${name} grew by ${mb(grew)} MB`);
  });

  test('bad headers, unknown integration or connection, refused and unreachable base URLs', async () => {
    const missing = await t.api('/proxy/echo');
    assert.equal(missing.status, 400);
    const problem = (await missing.json()) as Json;
    assert.equal(problem.error.code, 'invalid_headers');
    assert.deepEqual(problem.error.errors.map((e: Json) => e.path[0]).sort(), ['Connection-Id', 'Provider-Config-Key']);

    const badRetries = (await (await proxy('/echo', { headers: { Retries: '11' } })).json()) as Json;
    assert.equal(badRetries.error.code, 'invalid_headers');
    assert.deepEqual(badRetries.error.errors[0].path, ['Retries']);
    const badRetryOn = (await (await proxy('/echo', { headers: { 'Retry-On': '409;500' } })).json()) as Json;
    assert.deepEqual(badRetryOn.error.errors[0].path, ['Retry-On']);

    assert.equal((await t.api('/proxy/echo', { key: null })).status, 401);
    const unknownIntegration = await proxy('/echo', { headers: { 'Provider-Config-Key': 'ghost' } });
    assert.equal(unknownIntegration.status, 400);
    assert.equal(((await unknownIntegration.json()) as Json).error.code, 'unknown_provider_config');
    const unknownConnection = await proxy('/echo', { headers: { 'Connection-Id': 'ghost' } });
    assert.equal(unknownConnection.status, 400);
    assert.equal(((await unknownConnection.json()) as Json).error.code, 'unknown_connection');

    for (const override of ['http://169.254.169.254/', 'http://169.254.169.254/latest/meta-data', 'ftp://example.com/', 'not a url', '/relative']) {
      const refused = await proxy('/echo', { headers: { 'Base-Url-Override': override } });
      assert.equal(refused.status, 400, override);
      assert.equal(((await refused.json()) as Json).error.code, 'base_url_override_not_allowed', override);
    }
    // Credentials go only to the provider's origins: an override elsewhere gets the request without them.
    const other = await startGenericApiFake({ apiKey: API_KEY });
    try {
      const overridden = await proxy('/echo', { headers: { 'Base-Url-Override': other.url } });
      assert.equal(other.requests.length, 1);
      assert.equal(other.requests[0]!.headers['x-api-key'], undefined);
      assert.equal(overridden.status, 401, 'the other host answers as it does to a request without a key');
    } finally {
      await other.close();
    }
    const seen = generic.requests.length;
    const sameOrigin = await proxy('/echo', { headers: { 'Base-Url-Override': `${generic.url}/` } });
    assert.equal(sameOrigin.status, 200);
    assert.equal(generic.requests[seen]!.headers['x-api-key'], API_KEY);
    const closed = await proxy('/echo', { headers: { 'Base-Url-Override': `http://127.0.0.1:${await freePort()}` } });
    assert.equal(closed.status, 502);
    assert.equal(((await closed.json()) as Json).error.code, 'upstream_unreachable');
  });

  test("a connection's target is resolved once per version of its rows, and again after its integration changes", async () => {
    const deps = t.platform.deps;
    const env = (await deps.lookups.keyHolder(t.devKey))!.environment;
    const read = async () => {
      const integration = (await deps.lookups.integration(env.id, PCK))!;
      return { integration, connection: (await deps.lookups.connection(env.id, PCK, CONN))! };
    };
    const first = await read();
    const a = await providerTarget(deps, first.connection, first.integration);
    const again = await read();
    assert.equal(again.connection, first.connection, 'the lookup cache hands out the same connection while its row is unchanged');
    assert.equal(await providerTarget(deps, again.connection, again.integration), a, 'the same target, not resolved again');
    assert.equal(a.baseUrl, generic.url);

    const other = await startGenericApiFake({ apiKey: API_KEY });
    try {
      const patched = await t.api(`/integrations/${PCK}`, { method: 'PATCH', json: { integration_config: { base_url: other.url } } });
      assert.equal(patched.status, 200);
      const changed = await read();
      const b = await providerTarget(deps, changed.connection, changed.integration);
      assert.notEqual(b, a);
      assert.equal(b.baseUrl, other.url);
      assert.equal((await proxy('/echo')).status, 200);
      assert.equal(other.requests.length, 1, 'the next proxied call goes to the new base URL');
      assert.equal(other.requests[0]!.headers['x-api-key'], API_KEY);
    } finally {
      await t.api(`/integrations/${PCK}`, { method: 'PATCH', json: { integration_config: { base_url: generic.url } } });
      await other.close();
    }
  });

  test('a loopback base URL is refused when it is not allow-listed', async () => {
    const strict = await startTestPlatform({ runWorker: false, env: { SWITCHYARD_ALLOWED_PRIVATE_HOSTS: '' } });
    try {
      assert.deepEqual(strict.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS, []);
      const integration = await strict.api('/integrations', {
        method: 'POST',
        json: {
          provider: 'slack',
          unique_key: 'slack',
          credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret' },
          integration_config: { base_url: generic.url },
        },
      });
      assert.equal(integration.status, 200, await integration.clone().text());
      const conn = await strict.api('/connections', {
        method: 'POST',
        json: { provider_config_key: 'slack', connection_id: 's-1', credentials: { type: 'OAUTH2', access_token: 'xoxb-token' } },
      });
      assert.equal(conn.status, 201, await conn.clone().text());
      const seen = generic.requests.length;
      const headers = { 'Connection-Id': 's-1', 'Provider-Config-Key': 'slack' };
      const refused = await strict.api('/proxy/echo', { headers });
      assert.equal(refused.status, 400);
      const body = (await refused.json()) as Json;
      assert.equal(body.error.code, 'address_not_allowed');
      assert.match(body.error.message, /127\.0\.0\.1/);
      const overridden = await strict.api('/proxy/echo', { headers: { ...headers, 'Base-Url-Override': generic.url } });
      assert.equal(overridden.status, 400);
      assert.equal(((await overridden.json()) as Json).error.code, 'base_url_override_not_allowed');
      assert.equal(generic.requests.length, seen, 'nothing reached the loopback fake');
    } finally {
      await strict.stop();
    }
  });

  test('@nangohq/node proxy, get and post work unchanged', async () => {
    const proxied = await nango.proxy({
      method: 'GET',
      endpoint: '/echo',
      providerConfigKey: PCK,
      connectionId: CONN,
      params: { q: 'search term' },
      headers: { 'X-Custom': 'v1' },
    });
    assert.equal(proxied.status, 200);
    assert.equal(proxied.data.query.q, 'search term');
    assert.equal(proxied.data.headers['x-custom'], 'v1');
    assert.equal(proxied.data.headers['x-api-key'], API_KEY);

    const created = await nango.post({ endpoint: '/items', providerConfigKey: PCK, connectionId: CONN, data: { name: 'from-nango' }, retries: 1 });
    assert.equal(created.status, 201);
    assert.equal(created.data.name, 'from-nango');
    const listed = await nango.get({ endpoint: '/items', providerConfigKey: PCK, connectionId: CONN, params: { per_page: '10' } });
    assert.equal(listed.status, 200);
    assert.ok(listed.data.items.some((i: Json) => i.name === 'from-nango'));

    await assert.rejects(nango.get({ endpoint: '/items/999', providerConfigKey: PCK, connectionId: CONN }), (err: Json) => {
      assert.equal(err.response.status, 404);
      assert.deepEqual(err.response.data, { error: 'not_found' });
      return true;
    });
  });

  test('GET /logs lists every proxy call, redacted, filterable, paged, per environment', async () => {
    const res = await proxy('/echo?api_key=secret&keep=1', { headers: { 'Nango-Proxy-X-Api-Key': 'not-this-one' } });
    assert.equal(res.status, 200);
    let entry: Json | undefined;
    for (let i = 0; i < 100 && !entry; i++) {
      const page = (await (await t.api('/logs?kind=proxy&limit=10')).json()) as Json;
      entry = page.data.find((l: Json) => l.url.includes('keep=1'));
      if (!entry) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(entry, 'the call is logged');
    assert.equal(entry.url, `${generic.url}/echo?api_key=[redacted]&keep=1`);
    assert.equal(entry.kind, 'proxy');
    assert.equal(entry.method, 'GET');
    assert.equal(entry.status, 200);
    assert.equal(entry.integration, PCK);
    assert.equal(entry.connection_id, CONN);
    assert.equal(entry.run_id, null);
    assert.equal(typeof entry.duration_ms, 'number');
    assert.ok(!Number.isNaN(Date.parse(entry.created_at)));

    const all = (await (await t.api('/logs?limit=1000')).json()) as Json;
    assert.equal(all.next_cursor, null);
    const text = JSON.stringify(all);
    assert.ok(!text.includes(API_KEY), 'the API key is never logged');
    assert.ok(!text.includes('secret&'), 'secret query values are redacted');
    const proxyLogs = all.data.filter((l: Json) => l.kind === 'proxy');
    assert.ok(proxyLogs.length >= 25, `proxy calls logged: ${proxyLogs.length}`);
    assert.ok(proxyLogs.some((l: Json) => l.url === `${generic.url}/files/big?bytes=${50 * 1024 * 1024}`));
    assert.ok(proxyLogs.some((l: Json) => l.status === 404));
    assert.ok(
      proxyLogs.some((l: Json) => l.status === null && l.error),
      'a call that got no answer is logged with its error',
    );
    const auth = all.data.filter((l: Json) => l.kind === 'auth');
    assert.ok(auth.some((l: Json) => l.url === `${metabase.url}/api/user/current`));
    for (let i = 1; i < all.data.length; i++) assert.ok(all.data[i - 1].created_at >= all.data[i].created_at, 'newest first');

    const get = async (q: string) => {
      const r = await t.api(`/logs?${q}`);
      assert.equal(r.status, 200, q);
      return ((await r.json()) as Json).data as Json[];
    };
    assert.ok((await get('status=404')).every((l) => l.status === 404));
    assert.ok((await get('status=404')).length >= 2);
    const errors = await get('status=error&limit=1000');
    assert.ok(errors.length > 0 && errors.every((l) => l.status === null || l.status >= 400 || l.error));
    const successes = await get('status=success&limit=1000');
    assert.ok(successes.length > 0 && successes.every((l) => l.status < 400 && !l.error));
    assert.equal(errors.length + successes.length, all.data.length);
    assert.ok((await get('kind=auth')).every((l) => l.kind === 'auth'));
    assert.ok((await get(`connection_id=${CONN}&limit=1000`)).every((l) => l.connection_id === CONN));
    assert.deepEqual(await get('connection_id=nobody'), []);
    assert.ok((await get(`integration=${PCK}&limit=1000`)).length === all.data.filter((l: Json) => l.integration === PCK).length);
    assert.deepEqual(await get('run_id=none'), []);
    assert.deepEqual(await get(`after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`), []);
    assert.equal((await get(`before=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&limit=1000`)).length, all.data.length);

    const ids: number[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (await t.api(`/logs?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json()) as Json;
      assert.ok(page.data.length <= 7);
      ids.push(...page.data.map((l: Json) => l.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(
      ids,
      all.data.map((l: Json) => l.id),
    );

    const badCursor = await t.api('/logs?cursor=not-a-cursor');
    assert.equal(badCursor.status, 400);
    assert.deepEqual(((await badCursor.json()) as Json).error.errors[0].path, ['cursor']);
    for (const q of ['limit=0', 'limit=1001', 'kind=nope', 'status=abc', 'after=yesterday', 'unknown=1']) {
      const bad = await t.api(`/logs?${q}`);
      assert.equal(bad.status, 400, q);
      assert.equal(((await bad.json()) as Json).error.code, 'invalid_query_params', q);
    }
    assert.equal((await t.api('/logs', { key: null })).status, 401);

    const prod = (await (await t.api('/logs?limit=1000', { key: t.prodKey })).json()) as Json;
    assert.deepEqual(prod, { data: [], next_cursor: null });

    const openapi = (await (await t.api('/openapi.json')).json()) as Json;
    assert.ok(openapi.paths['/logs'].get.parameters.some((p: Json) => p.name === 'cursor'));
    assert.ok(openapi.paths['/proxy/{path}'].post.parameters.some((p: Json) => p.name === 'Retries' && p.in === 'header'));
  });
});

describe('the proxy under concurrent calls', () => {
  /** Turns a call that never gets its answer into a failure instead of a hung run: a hang guard, not a measure. */
  const HANG_GUARD_MS = 60_000;
  const POOL_SIZE = 4;
  const POOL_WAIT_MS = 2000;
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let oauth: Awaited<ReturnType<typeof startOAuthProviderFake>>;

  before(async () => {
    // A small pool, so that a handful of concurrent calls is enough to fill it.
    t = await startTestPlatform({ runWorker: false, env: { DATABASE_POOL_SIZE: String(POOL_SIZE), DATABASE_POOL_WAIT_MS: String(POOL_WAIT_MS) } });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    oauth = await startOAuthProviderFake({ clientId: 'cid', clientSecret: 'csecret', accessTokenTtlSeconds: 3600, issueRefreshTokens: true });
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } })).status, 200);
    await addMetabaseConnection(t, metabase.url, API_KEY);
    await addOAuthIntegration(t, { uniqueKey: 'drive', oauthUrl: oauth.url, clientId: 'cid', clientSecret: 'csecret' });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    await oauth?.close();
  });

  /**
   * The fuzzer's call, PATCH /proxy/0 with Retry-On: 000: on the Metabase connection its upstream
   * answers 404; on a connection id nobody has it is a 400 that needs a database read (unknown rows
   * are not cached).
   */
  const fuzzerCall = (connectionId = 'acme') =>
    t.api('/proxy/0', {
      method: 'PATCH',
      headers: { 'connection-id': connectionId, 'provider-config-key': 'metabase', 'retry-on': '000' },
      signal: AbortSignal.timeout(HANG_GUARD_MS),
    });

  test('calls on a connection whose token refresh waits on its provider do not stall the calls of other connections', async () => {
    oauth.state.refreshTokens.push({ refreshToken: 'rt-held', scope: 'x', issuedAt: Date.now(), revoked: false, uses: 0 });
    const imported = await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'drive',
        connection_id: 'held',
        // Inside the refresh margin: the next call refreshes first.
        credentials: { type: 'OAUTH2', access_token: 'at-old', refresh_token: 'rt-held', expires_at: new Date(Date.now() + 60_000).toISOString() },
      },
    });
    assert.equal(imported.status, 201, await imported.text());
    assert.equal((await fuzzerCall()).status, 404, 'alone, the call is answered');

    const refreshesBefore = oauth.state.refreshCount;
    const release = oauth.provider.holdTokenResponses();
    try {
      // Twice as many calls on the held connection as the pool has clients.
      const held = Array.from({ length: 2 * POOL_SIZE }, () =>
        t.api('/proxy/userinfo', { headers: { 'connection-id': 'held', 'provider-config-key': 'drive' }, signal: AbortSignal.timeout(HANG_GUARD_MS) }),
      );
      await waitFor('the refresh to reach the provider', () => oauth.requests.some((r) => r.path === '/oauth/token' && r.status === 0));
      const others = await Promise.all([fuzzerCall(), fuzzerCall('0'), fuzzerCall('nobody')]);
      assert.deepEqual(
        others.map((r) => r.status),
        [404, 400, 400],
        'answered while the refresh is still held',
      );
      release();
      const answers = await Promise.all(held);
      assert.deepEqual(
        answers.map((r) => r.status),
        Array.from({ length: 2 * POOL_SIZE }, () => 200),
      );
      assert.equal(oauth.state.refreshCount - refreshesBefore, 1, 'one refresh for all of them');
    } finally {
      release();
    }
  });

  test('a call that finds every pool connection busy gets 503 database_busy once the pool wait is over, instead of waiting on', async () => {
    // Whatever holds them (here: the test), the pool's connections stay busy past the wait.
    const busy = await Promise.all(Array.from({ length: POOL_SIZE }, () => t.platform.deps.db.connect()));
    try {
      const res = await fuzzerCall('nobody-either');
      const body = (await res.json()) as Json;
      assert.equal(res.status, 503, JSON.stringify(body));
      assert.equal(body.error.code, 'database_busy');
    } finally {
      for (const client of busy) client.release();
    }
    assert.equal((await fuzzerCall('nobody-either')).status, 400, 'answered as usual once a connection is free');
  });
});
