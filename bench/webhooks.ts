/**
 * @module bench/webhooks — events → deliveries received per second, and event-to-receipt latency.
 *
 * Switchyard: `emitEvent` (the outbox row, one delivery row, a `webhookDeliveryWorkflow` started)
 * called from this process; the platform's worker signs and POSTs it to a receiver on loopback.
 * Latency: one event at a time, from the emit call to the receiver reading the body. Throughput:
 * a burst of events from concurrent emitters, until the last one is received. Floor: the same
 * signed bodies POSTed directly to the receiver with undici, the same way.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { loadConfig } from '../lib/config.js';
import { loadSecretBox } from '../start/secrets.js';
import { connectClient } from '../lib/temporal/client.js';
import { emitEvent } from '../features/webhooks/emit.js';
import { signatureHeaders, stableStringify } from '../features/webhooks/sign.js';
import { numberFlag, type BenchContext, type BenchGroup } from './lib/context.js';
import { closedLoop } from './lib/load.js';
import { ApiClient, benchDb, platformEnv, spawnPlatform } from './lib/platform.js';
import { round, summarize, waitUntil, type BenchResult } from './lib/stats.js';

interface Receiver {
  url: string;
  /** Resolves when the body with this sequence number has been read. */
  receipt(seq: number): Promise<number>;
  received(): number;
  lastAt(): number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrived = new Map<number, number>();
  const waiting = new Map<number, (at: number) => void>();
  let last = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const seq = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { bench_seq: number }).bench_seq;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (arrived.has(seq)) return; // a retried delivery counts once
      arrived.set(seq, at);
      last = at;
      waiting.get(seq)?.(at);
      waiting.delete(seq);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    receipt: (seq) => {
      const at = arrived.get(seq);
      return at !== undefined ? Promise.resolve(at) : new Promise((resolve) => waiting.set(seq, resolve));
    },
    received: () => arrived.size,
    lastAt: () => last,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const webhooks: BenchGroup = {
  names: ['webhooks'],
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const latencyEvents = numberFlag(ctx, 'webhook-latency-events', 100);
    const burst = numberFlag(ctx, 'webhook-burst', 300);
    const emitters = numberFlag(ctx, 'webhook-emitters', 8);
    const receiver = await startReceiver();
    const p = await platformEnv(ctx.services, 'webhooks');
    const platform = await spawnPlatform(p, { role: 'all', cpuProfDir: ctx.cpuProfDir });
    const api = new ApiClient(p.url, p.devKey);
    const db = benchDb(p, 10);
    const temporal = await connectClient(ctx.services.temporalAddress, 'default');
    const direct = new Agent({ connections: emitters, keepAliveTimeout: 30_000 });
    try {
      await api.ok('PATCH', '/environment', { json: { webhook_url: `${receiver.url}/hook` } });
      const config = loadConfig(p.env);
      const deps = { db, temporal, config, box: await loadSecretBox(config, false) };
      const environmentId = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
      const payload = (seq: number) => ({
        from: 'switchyard',
        type: 'sync',
        connectionId: 'c1',
        providerConfigKey: 'bench',
        syncName: 'bench-items',
        syncVariant: 'base',
        model: 'BenchItem',
        syncType: 'INCREMENTAL',
        success: true,
        modifiedAfter: new Date().toISOString(),
        queryTimeStamp: new Date().toISOString(),
        responseResults: { added: 1, updated: 0, deleted: 0 },
        bench_seq: seq,
      });
      let seq = 0;
      const emit = async () => {
        const s = seq++;
        const r = await emitEvent(deps, { environmentId, type: 'sync', integration: null, connectionId: null, payload: payload(s) });
        if (r.deliveries.length !== 1) throw new Error(`event ${s} made ${r.deliveries.length} deliveries`);
        return s;
      };
      const floorKeys = { current: 'f'.repeat(64) };
      const post = async () => {
        const s = seq++;
        const body = stableStringify(payload(s));
        const res = await request(`${receiver.url}/direct`, {
          method: 'POST',
          dispatcher: direct,
          headers: {
            ...signatureHeaders(body, floorKeys, Math.floor(Date.now() / 1000), `msg_bench_${s}`),
            'content-type': 'application/json',
            'user-agent': 'bench',
          },
          body,
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
        return s;
      };

      /** One at a time: event → receipt. */
      const latency = async (send: () => Promise<number>, count: number) => {
        const out: number[] = [];
        for (let i = 0; i < count; i++) {
          const t0 = performance.now();
          const s = await send();
          out.push((await receipt(s)) - t0);
        }
        return out;
      };
      const receipt = (s: number) =>
        Promise.race([
          receiver.receipt(s),
          new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`event ${s} not received in 180 s`)), 180_000).unref()),
        ]);

      /** A burst from concurrent emitters; done when every event of it has been received. */
      const throughput = async (send: () => Promise<number>, count: number) => {
        const emittedAt = new Map<number, number>();
        const t0 = performance.now();
        const res = await closedLoop(
          async () => {
            const at = performance.now();
            emittedAt.set(await send(), at);
          },
          { concurrency: emitters, calls: count },
        );
        if (res.errors) throw new Error(`${res.errors} emits failed: ${res.firstError}`);
        const seqs = [...emittedAt.keys()];
        const receipts = await Promise.all(seqs.map(async (s) => (await receipt(s)) - emittedAt.get(s)!));
        const seconds = (Math.max(...seqs.map((s, i) => emittedAt.get(s)! + receipts[i]!)) - t0) / 1000;
        return { perSecond: count / seconds, seconds, latencies: receipts, emitSeconds: res.seconds };
      };

      ctx.say('webhooks: warming up');
      await latency(emit, 20);
      await latency(post, 20);

      const syLat: number[] = [];
      const flLat: number[] = [];
      for (let r = 0; r < 2; r++) {
        const half = Math.ceil(latencyEvents / 2);
        if (r === 0) {
          syLat.push(...(await latency(emit, half)));
          flLat.push(...(await latency(post, half)));
        } else {
          flLat.push(...(await latency(post, half)));
          syLat.push(...(await latency(emit, half)));
        }
      }
      ctx.say(`webhooks: latency p50 ${round(summarize(syLat).p50, 1)} ms vs direct ${round(summarize(flLat).p50, 2)} ms`);
      const flBurst = await throughput(post, burst);
      const syBurst = await throughput(emit, burst);
      ctx.say(`webhooks: burst ${round(syBurst.perSecond, 0)}/s vs direct ${round(flBurst.perSecond, 0)}/s`);
      await waitUntil(
        'no delivery left pending',
        async () => {
          const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`);
          return rows[0]!.n === 0;
        },
        60_000,
        200,
      );
      const attempts = (await db.query<{ n: number; d: number }>(`SELECT sum(attempts)::int AS n, count(*)::int AS d FROM webhook_deliveries`)).rows[0]!;

      const s = summarize(syLat);
      const f = summarize(flLat);
      const sb = summarize(syBurst.latencies);
      const fb = summarize(flBurst.latencies);
      return [
        {
          name: 'webhooks',
          rows: [
            {
              metric: `deliveries/s (burst ${burst}, ${emitters} emitters)`,
              switchyard: syBurst.perSecond,
              floor: flBurst.perSecond,
              unit: '/s',
              ratio: syBurst.perSecond / flBurst.perSecond,
              goal: 'report',
            },
            { metric: 'event→receipt p50 (one at a time)', switchyard: s.p50, floor: f.p50, unit: 'ms', ratio: s.p50 / f.p50, goal: 'report' },
            { metric: 'event→receipt p99 (one at a time)', switchyard: s.p99, floor: f.p99, unit: 'ms', ratio: s.p99 / f.p99, goal: 'report' },
            { metric: 'event→receipt p50 (burst)', switchyard: sb.p50, floor: fb.p50, unit: 'ms' },
            { metric: 'event→receipt p99 (burst)', switchyard: sb.p99, floor: fb.p99, unit: 'ms' },
          ],
          details: {
            latencyEvents,
            burst,
            emitters,
            burstSeconds: { switchyard: round(syBurst.seconds, 2), floor: round(flBurst.seconds, 3) },
            emitSeconds: round(syBurst.emitSeconds, 2),
            deliveries: attempts.d,
            attempts: attempts.n,
          },
          notes: [`${attempts.d} deliveries in ${attempts.n} attempts (a retry would show as more attempts than deliveries)`],
        },
      ];
    } finally {
      await direct.close();
      await temporal.connection.close().catch(() => undefined);
      await db.end().catch(() => undefined);
      await api.close();
      await platform.stop();
      await receiver.close();
    }
  },
};
