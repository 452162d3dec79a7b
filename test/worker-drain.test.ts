/**
 * Graceful drain on SIGTERM, measured: a worker process is stopped while one of its activities (a
 * webhook delivery to a backend that answers after HOLD_MS) is in flight. It stops polling, lets the
 * activity finish within SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS, and exits 0; the request is made once.
 * The figures (time from SIGTERM to exit, idle and with the activity) are printed for the README.
 * Also the worker's GET /health (SWITCHYARD_WORKER_HEALTH_PORT).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { emitEvent } from '../features/webhooks/emit.js';
import { freePort } from '../lib/embedded/temporal.js';
import { startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

const HOLD_MS = 3000;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('worker drain on SIGTERM', () => {
  let t: TestPlatform;
  const requests: { at: number; answeredAt?: number }[] = [];
  let server: http.Server;
  let url = '';

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    server = http.createServer((req, res) => {
      req.resume();
      const r: { at: number; answeredAt?: number } = { at: Date.now() };
      requests.push(r);
      setTimeout(() => {
        r.answeredAt = Date.now();
        res.writeHead(200).end('ok');
      }, HOLD_MS);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  after(async () => {
    server?.closeAllConnections();
    server?.close();
    await t?.stop();
  });

  async function stopTimed(worker: WorkerProcess): Promise<{ ms: number; code: number | null; at: number }> {
    const exited = new Promise<number | null>((r) => worker.child.once('exit', (code) => r(code)));
    const start = Date.now();
    worker.child.kill('SIGTERM');
    const code = await exited;
    return { ms: Date.now() - start, code, at: Date.now() };
  }

  test(`an activity in flight (a delivery answered after ${HOLD_MS} ms) finishes before the worker exits; the request is not repeated`, async () => {
    const healthPort = await freePort();
    const idleWorker = await startWorkerProcess(t, { SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS: '10000', SWITCHYARD_WORKER_HEALTH_PORT: String(healthPort) });
    // The worker's own health endpoint (compose healthcheck, Kubernetes probes): 200 while it polls.
    const health = await fetch(`http://127.0.0.1:${healthPort}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { result: 'ok', worker: { ok: true }, database: { ok: true } });
    assert.equal((await fetch(`http://127.0.0.1:${healthPort}/other`)).status, 404);
    const idle = await stopTimed(idleWorker);
    assert.equal(idle.code, 0);

    const worker = await startWorkerProcess(t, { SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS: '10000' });
    assert.equal((await t.api('/environment', { method: 'PATCH', json: { webhook_url: url } })).status, 200);
    const env = (await t.platform.deps.db.query(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0];
    const { deliveries } = await emitEvent(t.platform.deps, {
      environmentId: env.id,
      type: 'async_action',
      integration: 'x',
      connectionId: 'c',
      payload: { type: 'async_action', payload: { id: 'drain' } },
    });
    await waitFor('the delivery request', async () => requests.length === 1);
    const busy = await stopTimed(worker);
    assert.equal(busy.code, 0, 'the worker exits cleanly');
    assert.ok(requests[0]!.answeredAt !== undefined && requests[0]!.answeredAt <= busy.at, 'the backend answered before the worker exited');

    // A new worker completes the workflow from the recorded activity result: no second request.
    const next = await startWorkerProcess(t);
    try {
      const done = await waitFor('delivered', async () => {
        const list = ((await (await t.api('/webhook-deliveries?limit=100')).json()) as Json).data as Json[];
        const d = list.find((x) => x.id === deliveries[0]);
        return d?.status === 'delivered' ? d : undefined;
      });
      assert.deepEqual(
        done.attempts.map((a: Json) => a.status),
        [200],
      );
      assert.equal(requests.length, 1);
    } finally {
      await next.stop();
    }
    const remaining = requests[0]!.answeredAt! - (busy.at - busy.ms);
    console.log(
      `[drain] SIGTERM → exit: idle ${idle.ms} ms; with an activity in flight ${busy.ms} ms (activity still had ${remaining} ms to run; overhead after it ${busy.ms - remaining} ms)`,
    );
  });
});

describe('SWITCHYARD_WORKER_ENVIRONMENTS', () => {
  test('a worker limited to prod polls the prod task queue only; the dev queue has no poller', async () => {
    const t = await startTestPlatform({ env: { SWITCHYARD_WORKER_ENVIRONMENTS: 'prod' } });
    try {
      const prefix = t.config.SWITCHYARD_TASK_QUEUE_PREFIX;
      assert.deepEqual(t.platform.workers?.taskQueues, [`${prefix}-prod`]);
      const pollers = async (env: string) =>
        (
          await t.platform.deps.temporal.workflowService.describeTaskQueue({
            namespace: t.config.TEMPORAL_NAMESPACE,
            taskQueue: { name: `${prefix}-${env}` },
            taskQueueType: 1, // WORKFLOW
          })
        ).pollers ?? [];
      await waitFor('a poller on the prod queue', async () => (await pollers('prod')).length > 0);
      assert.equal((await pollers('dev')).length, 0);
    } finally {
      await t.stop();
    }
  });
});
