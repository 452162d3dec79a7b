/**
 * @module fakes/faulty — a third party that misbehaves on purpose: answers too slowly, cuts bodies
 * short, sends invalid JSON, or serves records that break the model's schema. Each route misbehaves
 * for its first `n` requests (query `fail=n`), then answers properly.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultyApi {
  url: string;
  hits: Record<string, number>;
  close(): Promise<void>;
}

const good = (res: http.ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startFaultyApi(): Promise<FaultyApi> {
  const hits: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const n = (hits[url.pathname] = (hits[url.pathname] ?? 0) + 1);
    const failing = n <= Number(url.searchParams.get('fail') ?? 0);
    switch (url.pathname) {
      case '/slow':
        // Beyond the client's timeout while failing, then prompt.
        if (failing) setTimeout(() => good(res, { ok: true, late: true }), Number(url.searchParams.get('ms') ?? 5000)).unref();
        else good(res, { ok: true, attempt: n });
        return;
      case '/truncated':
        if (failing) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
          res.write('{"items":[{"id":"1"');
          setTimeout(() => res.socket?.destroy(), 20).unref();
        } else good(res, { ok: true, attempt: n });
        return;
      case '/invalid-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"items": [ {"id": 1,, } ');
        return;
      case '/storm':
        if (failing) {
          res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
          res.end('{"error":"rate limited"}');
        } else good(res, { ok: true, attempt: n });
        return;
      case '/burst':
        if (failing) {
          res.writeHead(503, { 'content-type': 'text/plain' });
          res.end('unavailable');
        } else good(res, { ok: true, attempt: n });
        return;
      case '/api/user/current':
        good(res, { id: 1, email: 'key@example.com' });
        return;
      case '/records':
        good(res, { items: [{ id: 'a', name: 'ok' }, { id: 'b', name: 42 }, { id: 'c' }, { id: 'd', name: 'fine' }] });
        return;
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
