/**
 * @module bench/webhooks — events → deliveries received per second, and event-to-receipt latency.
 *
 * Switchyard: `emitEvent` (the event, one delivery row, then the endpoint's `webhookEndpointWorkflow`
 * woken, or on the before side a `webhookDeliveryWorkflow` started) called from this process with the
 * side's own tree; the platform's worker signs and POSTs it to a receiver on loopback.
 * Latency: one event at a time, from the emit call to the receiver reading the body. Throughput:
 * a burst of events from concurrent emitters, until the last one is received. Floor: the same
 * signed bodies POSTed directly to the receiver with undici, the same way. Before/after: a second
 * platform runs the baseline tree (the delivery changes reverted, bench/lib/baseline.ts, with its own
 * workflow bundle) on the same servers; the sides take turns; each burst reports its CPU breakdown
 * and the Temporal history that sent it (events, workflow tasks, activities: the endpoint workflow's
 * over the burst, or one delivery's own).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Agent, request } from 'undici';
import { loadConfig } from '../lib/config.js';
import { loadSecretBox } from '../start/secrets.js';
import { connectClient } from '../lib/temporal/client.js';
import { emitEvent } from '../features/webhooks/emit.js';
import { endpointKey } from '../features/webhooks/outbox.js';
import { signatureHeaders, stableStringify } from '../features/webhooks/sign.js';
import { webhookDeliveryWorkflowId, webhookEndpointWorkflowId } from '../workflows/contracts.js';
import { baselineTree } from './lib/baseline.js';
import { numberFlag, type BenchContext, type BenchGroup } from './lib/context.js';
import { closedLoop } from './lib/load.js';
import { ApiClient, benchDb, platformEnv, spawnPlatform, type PlatformProcess } from './lib/platform.js';
import {
  cpuBreakdown,
  cpuSnapshot,
  dbCounters,
  formatCpu,
  formatDbCounters,
  resetStatements,
  round,
  sleep,
  summarize,
  topStatements,
  waitUntil,
  type BenchResult,
  type Row,
} from './lib/stats.js';

/**
 * The revert (bench/baseline/) that makes the "before" side: one webhookDeliveryWorkflow per
 * delivery, as before the endpoint workflows. (The earlier passes' reverts, webhook-slot-activity,
 * webhook-begin-attempt and webhook-finish-attempt, measured the per-delivery workflow itself.)
 */
const BEFORE = ['webhook-endpoint-outbox'];

interface HistoryShape {
  runs: number;
  events: number;
  workflowTasks: number;
  activities: number;
}

/** The histories of a workflow id: every run (continue-as-new), or only `runId`. */
async function historyShape(temporal: Client, workflowId: string, allRuns: boolean): Promise<HistoryShape> {
  const runIds: (string | undefined)[] = [];
  if (allRuns) for await (const w of temporal.workflow.list({ query: `WorkflowId="${workflowId}"` })) runIds.push(w.runId);
  else runIds.push(undefined);
  const shape: HistoryShape = { runs: runIds.length, events: 0, workflowTasks: 0, activities: 0 };
  for (const runId of runIds) {
    const events = (await temporal.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    shape.events += events.length;
    shape.workflowTasks += events.filter((e) => e.eventType === 5).length;
    shape.activities += events.filter((e) => e.eventType === 10).length;
  }
  return shape;
}

const minus = (a: HistoryShape, b: HistoryShape): HistoryShape => ({
  runs: a.runs - b.runs + 1,
  events: a.events - b.events,
  workflowTasks: a.workflowTasks - b.workflowTasks,
  activities: a.activities - b.activities,
});

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
    const burst = numberFlag(ctx, 'webhook-burst', 1000);
    const emitters = numberFlag(ctx, 'webhook-emitters', 8);
    const withBefore = ctx.flags['no-baseline'] !== true;
    const receiver = await startReceiver();
    const temporal = await connectClient(ctx.services.temporalAddress, 'default');
    const direct = new Agent({ connections: emitters, keepAliveTimeout: 30_000 });
    const cleanups: (() => Promise<unknown>)[] = [];
    const notes: string[] = [];
    try {
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

      /** A platform process (this tree, or the baseline tree) with its own database and task queue; `emit` emits one event through it. */
      const side = async (name: string, root?: string) => {
        // The baseline bundles its own workflows (an empty SWITCHYARD_WORKFLOW_BUNDLE).
        const p = await platformEnv(ctx.services, name, root ? { SWITCHYARD_WORKFLOW_BUNDLE: '' } : {});
        const platform: PlatformProcess = await spawnPlatform(p, { role: 'all', root, cpuProfDir: ctx.cpuProfDir });
        cleanups.push(() => platform.stop());
        const api = new ApiClient(p.url, p.devKey);
        cleanups.push(() => api.close());
        const db = benchDb(p, 10);
        cleanups.push(() => db.end().catch(() => undefined));
        await api.ok('PATCH', '/environment', { json: { webhook_url: `${receiver.url}/hook` } });
        const config = loadConfig(p.env);
        const deps = { db, temporal, config, box: await loadSecretBox(config, false) };
        const environmentId = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
        // Each side emits with its own tree's emitEvent (which workflow it wakes is the change measured).
        const emitFn: typeof emitEvent = root
          ? ((await import(pathToFileURL(path.join(root, 'features/webhooks/emit.ts')).href)) as { emitEvent: typeof emitEvent }).emitEvent
          : emitEvent;
        const emit = async () => {
          const s = seq++;
          const r = await emitFn(deps, { environmentId, type: 'sync', integration: null, connectionId: null, payload: payload(s) });
          if (r.deliveries.length !== 1) throw new Error(`event ${s} made ${r.deliveries.length} deliveries`);
          return s;
        };
        /** The history that sent the burst: the endpoint's workflow (all runs), or the last delivery's own workflow. */
        const shape = async (): Promise<{ viaEndpoint: boolean; shape: HistoryShape }> => {
          const last = (await db.query<{ id: string; via_endpoint: boolean }>('SELECT id, via_endpoint FROM webhook_deliveries ORDER BY seq DESC LIMIT 1'))
            .rows[0]!;
          return last.via_endpoint
            ? { viaEndpoint: true, shape: await historyShape(temporal, webhookEndpointWorkflowId('dev', endpointKey(`${receiver.url}/hook`)), true) }
            : { viaEndpoint: false, shape: await historyShape(temporal, webhookDeliveryWorkflowId(last.id), false) };
        };
        return { name, db, emit, shape, pid: platform.pid };
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
          new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`event ${s} not received in 300 s`)), 300_000).unref()),
        ]);

      /** A burst from concurrent emitters; done when every event of it has been received. */
      const throughput = async (send: () => Promise<number>, count: number, pids: Record<string, number> = {}) => {
        const emittedAt = new Map<number, number>();
        const cpu0 = cpuSnapshot();
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
        const cpu = cpuBreakdown(cpu0, cpuSnapshot(), pids);
        return { perSecond: count / seconds, seconds, latencies: receipts, emitSeconds: res.seconds, cpu };
      };

      const after = await side('webhooks');
      let before: Awaited<ReturnType<typeof side>> | null = null;
      if (withBefore) {
        const tree = await baselineTree(path.join(ctx.services.workDir, `webhooks-${randomBytes(3).toString('hex')}`), BEFORE);
        if ('root' in tree) before = await side('webhooksbefore', tree.root);
        else notes.push(`before: baseline unavailable (${tree.unavailable})`);
      }
      const sides = before ? [after, before] : [after];

      ctx.say('webhooks: warming up');
      for (const sd of sides) await latency(sd.emit, 20);
      await latency(post, 20);

      const lat = new Map<string, number[]>([['direct', []], ...sides.map((sd) => [sd.name, []] as [string, number[]])]);
      const half = Math.ceil(latencyEvents / 2);
      for (let r = 0; r < 2; r++) {
        const order = r === 0 ? [...sides, null] : [null, ...[...sides].reverse()];
        for (const sd of order) lat.get(sd ? sd.name : 'direct')!.push(...(await latency(sd ? sd.emit : post, half)));
      }
      ctx.say(
        `webhooks: latency p50 ${sides.map((sd) => `${sd.name} ${round(summarize(lat.get(sd.name)!).p50, 1)} ms`).join(', ')} vs direct ${round(summarize(lat.get('direct')!).p50, 2)} ms`,
      );
      const flBurst = await throughput(post, burst);
      const bursts = new Map<string, Awaited<ReturnType<typeof throughput>>>();
      const shapes = new Map<string, HistoryShape & { per: string }>();
      for (const sd of sides) {
        const shape0 = await sd.shape();
        if (ctx.services.pgStatStatements) await resetStatements(sd.db);
        const tables = ['webhook_deliveries', 'webhook_attempts', 'webhook_endpoints'];
        const counters0 = ctx.services.pgStatStatements ? await dbCounters(sd.db, tables) : null;
        const b = await throughput(sd.emit, burst, { [sd === after ? 'switchyard' : 'switchyard before']: sd.pid });
        if (ctx.services.pgStatStatements) for (const line of await topStatements(sd.db, 12)) ctx.say(`webhooks (${sd.name}): statement ${line}`);
        bursts.set(sd.name, b);
        ctx.say(`webhooks: ${sd.name} burst ${round(b.perSecond, 1)}/s (emits ${round(b.emitSeconds, 1)} s); ${formatCpu(b.cpu, b.seconds)}`);
        await waitUntil(
          `${sd.name}: no delivery left pending`,
          async () => {
            const { rows } = await sd.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`);
            return rows[0]!.n === 0;
          },
          120_000,
          200,
        );
        if (counters0) {
          await sleep(1500); // backends report their counters within 1 s of going idle
          ctx.say(`webhooks (${sd.name}): ${formatDbCounters(counters0, await dbCounters(sd.db, tables), burst, 'delivery')}`);
        }
        const shape1 = await sd.shape();
        // The endpoint's workflow: what the burst added to its histories; a delivery's own workflow: its history.
        shapes.set(
          sd.name,
          shape1.viaEndpoint ? { ...minus(shape1.shape, shape0.shape), per: `the burst of ${burst}` } : { ...shape1.shape, per: 'one delivery' },
        );
      }
      ctx.say(`webhooks: direct burst ${round(flBurst.perSecond, 0)}/s`);

      const rows: Row[] = [];
      const details: Record<string, unknown> = { latencyEvents, burst, emitters, floorBurstSeconds: round(flBurst.seconds, 3) };
      const f = summarize(lat.get('direct')!);
      const fb = summarize(flBurst.latencies);
      for (const sd of sides) {
        const label = sd === after ? '' : ' — before';
        const b = bursts.get(sd.name)!;
        const s = summarize(lat.get(sd.name)!);
        const sb = summarize(b.latencies);
        const attempts = (await sd.db.query<{ n: number; d: number }>(`SELECT sum(attempts)::int AS n, count(*)::int AS d FROM webhook_deliveries`)).rows[0]!;
        rows.push(
          {
            metric: `deliveries/s (burst ${burst}, ${emitters} emitters)${label}`,
            switchyard: b.perSecond,
            floor: flBurst.perSecond,
            unit: '/s',
            ratio: b.perSecond / flBurst.perSecond,
            goal: sd === after ? '≥ 500/s' : 'report',
            met: sd === after ? b.perSecond >= 500 : undefined,
          },
          { metric: `event→receipt p50 (one at a time)${label}`, switchyard: s.p50, floor: f.p50, unit: 'ms', ratio: s.p50 / f.p50, goal: 'report' },
          { metric: `event→receipt p99 (one at a time)${label}`, switchyard: s.p99, floor: f.p99, unit: 'ms', ratio: s.p99 / f.p99, goal: 'report' },
          { metric: `event→receipt p50 (burst)${label}`, switchyard: sb.p50, floor: fb.p50, unit: 'ms' },
          { metric: `event→receipt p99 (burst)${label}`, switchyard: sb.p99, floor: fb.p99, unit: 'ms' },
        );
        details[sd.name] = {
          burstSeconds: round(b.seconds, 2),
          emitSeconds: round(b.emitSeconds, 2),
          cpuSeconds: b.cpu,
          history: shapes.get(sd.name),
          deliveries: attempts.d,
          attempts: attempts.n,
        };
        notes.push(
          `${sd.name}: ${attempts.d} deliveries in ${attempts.n} attempts (a retry would show as more attempts than deliveries); history for ${shapes.get(sd.name)!.per}: ${JSON.stringify(shapes.get(sd.name))}; burst ${formatCpu(b.cpu, b.seconds)}`,
        );
      }
      if (before) {
        const a = bursts.get(after.name)!.perSecond;
        const bf = bursts.get(before.name)!.perSecond;
        rows.push({ metric: 'deliveries/s after ÷ before', switchyard: a, floor: bf, unit: '/s', ratio: a / bf, goal: 'report' });
      }
      return [{ name: 'webhooks', rows, details, notes }];
    } finally {
      await direct.close();
      for (const c of cleanups.reverse()) await c();
      await temporal.connection.close().catch(() => undefined);
      await receiver.close();
    }
  },
};
