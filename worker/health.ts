/**
 * @module worker/health — `GET /health` of a worker process (it serves no API), for container
 * healthchecks and Kubernetes probes: 200 while its workers run and the database answers, else 503.
 * Started only when SWITCHYARD_WORKER_HEALTH_PORT is set.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WorkerHealthChecks {
  /** False once a worker stopped on its own (a fatal error) or the process is draining. */
  running(): boolean;
  database(): Promise<unknown>;
}

export async function startWorkerHealthServer(port: number, checks: WorkerHealthChecks): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://x').pathname !== '/health') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: 'only GET /health' } }));
      return;
    }
    const answer = (ok: boolean, body: object) => res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (!checks.running()) return answer(false, { result: 'degraded', worker: { ok: false, error: 'workers stopped' } });
    let timer: NodeJS.Timeout | undefined;
    Promise.race([checks.database(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 2000 ms')), 2000)))])
      .then(
        () => answer(true, { result: 'ok', worker: { ok: true }, database: { ok: true } }),
        (err: unknown) => answer(false, { result: 'degraded', worker: { ok: true }, database: { ok: false, error: (err as Error).message } }),
      )
      .finally(() => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(port, process.env.HOST ?? '0.0.0.0', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
