/**
 * Bad input, generated: thousands of malformed requests to every route of the OpenAPI document.
 * Every answer must be a 4xx (or a success) with the error envelope, never a 5xx or a hang.
 * Seeded, so a failure reproduces.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestPlatform, type TestPlatform } from './harness.js';

function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const nasty = [
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
  '../../etc/passwd',
  '..%2f..%2fsecret',
  '%00',
  '\u0000',
  '😀'.repeat(50),
  'ñandú',
  '\u202e\u0644\u0627',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  'a'.repeat(5000),
  '{"a":',
  '[]',
  '{}',
  '12345678-1234-4234-8234-123456789012',
  'nango_connect_session_' + 'f'.repeat(64),
];

function deep(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * 9);
  switch (k) {
    case 0:
      return nasty[Math.floor(r() * nasty.length)];
    case 1:
      return Math.floor(r() * 2 ** 40) - 2 ** 39;
    case 2:
      return r() < 0.5;
    case 3:
      return null;
    case 4:
      return depth < 3 ? Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1)) : [];
    case 5:
      return depth < 3
        ? Object.fromEntries(
            Array.from({ length: Math.floor(r() * 4) }, () => [nasty[Math.floor(r() * nasty.length)]!.slice(0, 30), randomValue(r, depth + 1)]),
          )
        : {};
    case 6:
      return r() * 1e6;
    case 7:
      return { provider_config_key: randomValue(r, 3), connection_id: randomValue(r, 3), credentials: { type: nasty[Math.floor(r() * 6)] } };
    default:
      return 'x'.repeat(Math.floor(r() * 300));
  }
}

function bodyVariant(r: () => number): { body?: string; type?: string } {
  const k = Math.floor(r() * 8);
  switch (k) {
    case 0:
      return {};
    case 1:
      return { body: '{"unterminated": ', type: 'application/json' };
    case 2:
      return { body: JSON.stringify(deep(200)), type: 'application/json' };
    case 3:
      return { body: 'a=1&b=2', type: 'application/x-www-form-urlencoded' };
    case 4:
      return { body: JSON.stringify({ pad: 'x'.repeat(3 * 1024 * 1024) }), type: 'application/json' };
    case 5:
      return { body: '\u0000\uffff', type: 'application/json' };
    default:
      return { body: JSON.stringify(randomValue(r)), type: 'application/json' };
  }
}

function fillPath(path: string, r: () => number): string {
  return path.replace(/\{[^}]+\}/g, () => encodeURIComponent(nasty[Math.floor(r() * nasty.length)]!.slice(0, 100)) || 'x');
}

function randomQuery(r: () => number): string {
  const keys = ['provider_config_key', 'connection_id', 'model', 'limit', 'cursor', 'tags[end_user_id]', 'include', 'syncs', 'ids', 'status', 'page', 'x'];
  const n = Math.floor(r() * 4);
  const parts = Array.from(
    { length: n },
    () => `${encodeURIComponent(keys[Math.floor(r() * keys.length)]!)}=${encodeURIComponent(String(randomValue(r, 3)).slice(0, 200))}`,
  );
  return parts.length ? `?${parts.join('&')}` : '';
}

interface Operation {
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

/** The statuses for which the document declares an HTML page (the OAuth popup's pages), not the JSON envelope. */
function htmlStatuses(op: Operation): Set<number> {
  return new Set(
    Object.entries(op.responses ?? {})
      .filter(([, r]) => Object.keys(r.content ?? {}).some((type) => type.startsWith('text/html')))
      .map(([status]) => Number(status)),
  );
}

/** Why a 4xx answer is not the error envelope, or null when it is. */
function notAnEnvelope(status: number, contentType: string, text: string, html: Set<number>): string | null {
  if (contentType.startsWith('text/html') && html.has(status)) return null;
  if (!contentType.startsWith('application/json')) return `${contentType || 'no content type'}, not the JSON error envelope`;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'string' ? null : 'JSON without an error code';
  } catch {
    return 'a JSON content type over a body that is not JSON';
  }
}

describe('fuzzing every route with malformed requests', () => {
  let t: TestPlatform;
  let routes: { method: string; path: string; html: Set<number> }[] = [];
  before(async () => {
    t = await startTestPlatform();
    await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } });
    const doc = (await (await t.api('/openapi.json', { key: null })).json()) as { paths: Record<string, Record<string, Operation>> };
    routes = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, html: htmlStatuses(op) })),
    );
    const none = new Set<number>();
    routes.push(
      { method: 'GET', path: '/v1/{x}', html: none },
      { method: 'POST', path: '/users', html: none },
      { method: 'GET', path: '/proxy/{x}', html: none },
    );
  });
  after(async () => t?.stop());

  test('no 5xx, no hang, every 4xx in the JSON error envelope (or the HTML page the document declares for it)', async () => {
    const r = prng(20261121);
    // `npm run test:soak` sends ten times as many.
    const perRoute = Number(process.env.FUZZ_PER_ROUTE ?? (process.env.SWITCHYARD_SOAK ? 400 : 40));
    const failures: string[] = [];
    let sent = 0;
    const statuses: Record<string, number> = {};
    for (const route of routes) {
      for (let i = 0; i < perRoute; i++) {
        const { body, type } = bodyVariant(r);
        const headers: Record<string, string> = {};
        if (type) headers['content-type'] = type;
        const auth = r();
        if (auth < 0.7) headers.authorization = `Bearer ${t.devKey}`;
        else if (auth < 0.85) headers.authorization = `Bearer ${nasty[Math.floor(r() * nasty.length)]!.replace(/[^\x20-\x7e]/g, '')}`;
        if (r() < 0.5) headers['connection-id'] = nasty[Math.floor(r() * nasty.length)]!.replace(/[^\x20-\x7e]/g, '') || 'c';
        if (r() < 0.5) headers['provider-config-key'] = r() < 0.5 ? 'metabase' : 'nope';
        if (r() < 0.2) headers['x-async'] = 'maybe';
        const url = `${t.url}${fillPath(route.path, r)}${randomQuery(r)}`;
        const method = route.method === 'HEAD' ? 'GET' : route.method;
        sent++;
        try {
          const res = await fetch(url, {
            method,
            headers,
            body: method === 'GET' || method === 'HEAD' ? undefined : body,
            signal: AbortSignal.timeout(15_000),
            redirect: 'manual',
          });
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          const text = await res.text();
          if (res.status >= 500) failures.push(`${method} ${url.slice(0, 200)} → ${res.status} ${text.slice(0, 200)}`);
          else if (res.status >= 400) {
            const wrong = notAnEnvelope(res.status, res.headers.get('content-type') ?? '', text, route.html);
            if (wrong) failures.push(`${method} ${url.slice(0, 200)} → ${res.status} ${wrong}: ${text.slice(0, 200)}`);
          }
        } catch (err) {
          failures.push(`${method} ${url.slice(0, 200)} → ${(err as Error).message}`);
        }
      }
    }
    console.log(`fuzz: ${sent} requests over ${routes.length} routes; statuses ${JSON.stringify(statuses)}`);
    assert.deepEqual(failures.slice(0, 20), []);
    assert.ok(sent >= 1000);
  });

  test('raw requests with header injection and path tricks get 4xx, not 5xx', async () => {
    const port = new URL(t.url).port;
    const raw = [
      `GET /connections HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.devKey}\r\nX-Evil: a\rb\r\n\r\n`,
      `GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /connections/%2e%2e%2f%2e%2e?provider_config_key=metabase HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.devKey}\r\n\r\n`,
      `POST /integrations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.devKey}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{"a":`,
    ];
    for (const req of raw) {
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(req));
        let data = '';
        socket.on('data', (d) => {
          data += d.toString();
          if (data.includes('\r\n\r\n')) socket.end();
        });
        socket.on('close', () => resolve(data));
        socket.on('error', () => resolve(data));
        socket.setTimeout(10_000, () => socket.destroy());
      });
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      assert.ok(status >= 400 && status < 500, `${JSON.stringify(req.split('\r\n')[0])} → ${answer.split('\r\n')[0]}`);
    }
  });
});
