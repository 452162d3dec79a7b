/**
 * @module bench/actions — action latency and throughput, before and after in one run.
 *
 * Switchyard: `POST /action/trigger` of the no-op action (one GET to the generic fake), API and
 * worker in one process as `npm start` runs them. Floor: a bare Temporal workflow running one
 * activity that makes the same GET, in its own worker process, started and awaited by a Temporal
 * client. Every side is measured in rotating rounds so drift on a shared machine hits all of them.
 *
 * After: this tree on the run's dev server, started with DEV_SERVER_DYNAMIC_CONFIG. Before: the
 * baseline tree (eager workflow start reverted, bench/lib/baseline.ts) on a second dev server with
 * Temporal's default dynamic config, as both were before. Each has its floor on its own server.
 * `--action-levers` adds one lever at a time: this tree on the default server (eager start alone),
 * the baseline tree on the tuned server (server settings alone), and floors on a server with only
 * the transfer-queue poll rate raised, with the SQLite write-ahead log only, with the tuned settings
 * but `synchronous = normal`, and on a default server keeping its state in memory.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { DEV_SERVER_DYNAMIC_CONFIG, DEV_SERVER_SQLITE_PRAGMAS, freePort, startTemporalDevServer, type EmbeddedTemporal } from '../lib/embedded/temporal.js';
import { connectClient } from '../lib/temporal/client.js';
import { taskQueueFor } from '../workflows/contracts.js';
import { startGenericApiFake, startMetabaseFake } from '../test/fakes/index.js';
import { baselineTree } from './lib/baseline.js';
import { numberFlag, type BenchContext, type BenchGroup } from './lib/context.js';
import { runBareWorkflow, spawnFloorWorker, type FloorWorker } from './lib/floor.js';
import { latestWorkflowIds, medianHops } from './lib/hops.js';
import { closedLoop, type LoadResult } from './lib/load.js';
import { ApiClient, benchDb, platformEnv, spawnPlatform, type PlatformProcess } from './lib/platform.js';
import { NOOP_UPSTREAM_PATH } from './lib/scripts.js';
import { API_KEY, connectionHeaders, createConnection, createIntegration, INTEGRATION } from './lib/setup.js';
import { cpuBreakdown, cpuSnapshot, formatCpu, resetStatements, round, summarize, topStatements, type BenchResult, type Summary } from './lib/stats.js';

/** A Temporal server the sides run on. */
interface Server {
  name: string;
  address: string;
  pid?: number;
  client: Client;
}

/** One measured side: a call, and the processes whose CPU it is charged. */
interface Side {
  key: string;
  label: string;
  call: () => Promise<void>;
  pids: Record<string, number>;
  server: Server;
  /** Where its workflows run, to read their histories (bench/lib/hops.ts). */
  taskQueue: string;
  /** Its database, for per-statement timings (--pg-stat-statements). */
  db?: { query: (q: string) => Promise<{ rows: unknown[] }>; end: () => Promise<void> };
}

export const actions: BenchGroup = {
  names: ['action-latency', 'action-throughput'],
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const generic = await startGenericApiFake({ apiKey: API_KEY, items: [{ name: 'one' }] });
    const metabase = await startMetabaseFake({ apiKey: API_KEY });
    const upstream = generic.url + NOOP_UPSTREAM_PATH;
    const cleanups: (() => Promise<unknown>)[] = [];
    const notes: string[] = [];
    const levers = ctx.flags['action-levers'] === true;
    try {
      // ---- servers
      const servers: Server[] = [];
      const addServer = async (name: string, address: string, pid?: number) => {
        const client = await connectClient(address, 'default');
        cleanups.push(() => client.connection.close());
        const s = { name, address, pid, client };
        servers.push(s);
        return s;
      };
      const startServer = async (
        name: string,
        dynamicConfig: Record<string, string | number | boolean>,
        sqlitePragmas: Record<string, string>,
        inMemory = false,
      ): Promise<Server> => {
        const dataDir = path.join(ctx.services.workDir, `temporal-${name}`);
        await mkdir(dataDir, { recursive: true });
        const t: EmbeddedTemporal = await startTemporalDevServer({
          dataDir,
          dbFile: inMemory ? null : undefined,
          port: await freePort(),
          headless: true,
          namespace: 'default',
          cliPath: process.env.TEMPORAL_CLI_PATH,
          dynamicConfig,
          sqlitePragmas,
          log: ctx.say,
        });
        cleanups.push(t.stop);
        return addServer(name, t.address, t.pid);
      };
      const tuned = await addServer('tuned', ctx.services.temporalAddress);
      const external = Boolean(process.env.TEMPORAL_ADDRESS);
      const defaults = external ? null : await startServer('default', {}, {});
      if (external) notes.push('TEMPORAL_ADDRESS is set: no second dev server, so no before side');
      const lever = (name: string, dynamicConfig: Record<string, string | number | boolean>, pragmas: Record<string, string>, inMemory = false) =>
        levers && !external ? startServer(name, dynamicConfig, pragmas, inMemory) : Promise.resolve(null);
      const rpsOnly = await lever('rps-only', { 'history.transferProcessorMaxPollRPS': 1000 }, {});
      const walOnly = await lever('wal-only', {}, DEV_SERVER_SQLITE_PRAGMAS);
      const walNormal = await lever('wal-normal', DEV_SERVER_DYNAMIC_CONFIG, { journal_mode: 'wal', synchronous: 'normal' });
      const memory = await lever('memory', {}, {}, true);

      // ---- Switchyard processes
      let baselineRoot: string | undefined;
      if (defaults) {
        const tree = await baselineTree(path.join(ctx.services.workDir, `actions-${randomBytes(3).toString('hex')}`), ['eager-start']);
        if ('root' in tree) baselineRoot = tree.root;
        else notes.push(`before: baseline unavailable (${tree.unavailable})`);
      }
      const platformSide = async (key: string, label: string, server: Server, root?: string): Promise<{ side: Side; process: PlatformProcess }> => {
        const p = await platformEnv(ctx.services, `actions${key.replace(/[^a-z0-9]/g, '')}`, { TEMPORAL_ADDRESS: server.address });
        const proc = await spawnPlatform(p, { role: 'all', root, cpuProfDir: ctx.cpuProfDir });
        cleanups.push(proc.stop);
        const api = new ApiClient(p.url, p.devKey);
        cleanups.push(() => api.close());
        await createIntegration(api, [{ method: 'POST', path: '/bench/noop' }]);
        await createConnection(api, 'c1', metabase.url);
        await api.ok('PATCH', `/integrations/${INTEGRATION}`, { json: { integration_config: { base_url: generic.url } } });
        const call = async () => {
          const r = await api.call('POST', '/action/trigger', { headers: connectionHeaders('c1'), json: { action_name: 'bench-noop', input: {} } });
          if (r.status !== 200 || r.body !== '{"status":200}') throw new Error(`action answered ${r.status}: ${r.body.slice(0, 300)}`);
        };
        const pids = serverPids(server, { switchyard: proc.pid });
        const db = ctx.services.pgStatStatements ? benchDb(p, 1) : undefined;
        if (db) cleanups.push(() => db.end());
        return { side: { key, label, call, pids, server, taskQueue: taskQueueFor(p.taskQueuePrefix, 'dev'), db }, process: proc };
      };
      const floorSide = async (key: string, label: string, server: Server): Promise<Side> => {
        const floor: FloorWorker = await spawnFloorWorker(server.address, `bench-floor-${server.name}-${randomBytes(3).toString('hex')}`);
        cleanups.push(floor.stop);
        const call = async () => {
          const r = await runBareWorkflow(server.client, floor.taskQueue, upstream, API_KEY);
          if (r.status !== 200) throw new Error(`bare workflow got ${r.status}`);
        };
        return { key, label, call, pids: serverPids(server, { 'floor worker': floor.pid }), server, taskQueue: floor.taskQueue };
      };

      const sides: Side[] = [];
      const after = await platformSide('sy', 'Switchyard (after)', tuned);
      sides.push(after.side, await floorSide('fl', 'floor (tuned server)', tuned));
      if (defaults && baselineRoot) sides.push((await platformSide('sy-before', 'Switchyard (before)', defaults, baselineRoot)).side);
      if (defaults) sides.push(await floorSide('fl-before', 'floor (default server)', defaults));
      if (levers && defaults) sides.push((await platformSide('sy-eager-only', 'this tree, default server (eager start alone)', defaults)).side);
      if (levers && baselineRoot)
        sides.push((await platformSide('sy-server-only', 'baseline tree, tuned server (server settings alone)', tuned, baselineRoot)).side);
      if (rpsOnly) sides.push(await floorSide('fl-rps-only', 'floor, transferProcessorMaxPollRPS=1000 only', rpsOnly));
      if (walOnly) sides.push(await floorSide('fl-wal-only', 'floor, SQLite WAL (synchronous=full) only', walOnly));
      if (walNormal) sides.push(await floorSide('fl-wal-normal', 'floor, tuned server with synchronous=normal', walNormal));
      if (walNormal) sides.push((await platformSide('sy-wal-normal', 'Switchyard (after), tuned server with synchronous=normal', walNormal)).side);
      if (memory) sides.push(await floorSide('fl-memory', 'floor, default server, SQLite in memory', memory));
      notes.push(
        `tuned server: ${JSON.stringify({ ...DEV_SERVER_DYNAMIC_CONFIG, ...DEV_SERVER_SQLITE_PRAGMAS })}; default server: Temporal's defaults; SQLite files on ${ctx.services.storage}`,
      );

      // The fakes keep every request; drop them between phases so memory stays flat.
      const forget = () => {
        generic.requests.length = 0;
        metabase.requests.length = 0;
      };
      const rotate = <T>(xs: T[], r: number) => xs.map((_, i) => xs[(i + r) % xs.length]!);

      ctx.say(`actions: warming up ${sides.length} sides`);
      for (const s of sides) await closedLoop(s.call, { concurrency: 4, calls: 24 });
      forget();

      const results: BenchResult[] = [];
      const byKey = <T>(m: Map<string, T>, k: string) => m.get(k);
      if (ctx.selected.has('action-latency')) {
        const rounds = numberFlag(ctx, 'latency-rounds', 5);
        const perRound = numberFlag(ctx, 'latency-calls', 100);
        const lat = new Map<string, number[]>(sides.map((s) => [s.key, []]));
        const cpuTicks = new Map<string, Record<string, number>>();
        for (const x of sides) if (x.db) await resetStatements(x.db);
        let errors = 0;
        for (let r = 0; r < rounds; r++) {
          for (const s of rotate(sides, r)) {
            const cpu0 = cpuSnapshot();
            const res = await closedLoop(s.call, { concurrency: 1, calls: perRound });
            if (r === 0) cpuTicks.set(s.key, perCall(cpuBreakdown(cpu0, cpuSnapshot(), s.pids), res.calls));
            if (res.errors) ctx.say(`actions: ${res.errors} ${s.key} errors, first: ${res.firstError}`);
            errors += res.errors;
            lat.get(s.key)!.push(...res.latenciesMs);
          }
          forget();
          ctx.say(`actions: latency round ${r + 1}/${rounds}`);
        }
        for (const x of sides) if (x.db) for (const line of await topStatements(x.db, 12)) ctx.say(`actions (${x.key}): statement ${line}`);
        const sum = new Map([...lat].map(([k, v]) => [k, summarize(v)]));
        // Where the time goes: the median hop of the side's latest workflows, from their histories.
        const hopSample = numberFlag(ctx, 'hop-sample', 40);
        const hops = new Map<string, Record<string, number>>();
        for (const x of sides) hops.set(x.key, await medianHops(x.server.client, await latestWorkflowIds(x.server.client, x.taskQueue, hopSample)));
        const s = byKey(sum, 'sy')!;
        const f = byKey(sum, 'fl')!;
        const sb = byKey(sum, 'sy-before');
        const fb = byKey(sum, 'fl-before');
        results.push({
          name: 'action-latency',
          rows: [
            { metric: 'p50', switchyard: s.p50, floor: f.p50, unit: 'ms', ratio: s.p50 / f.p50, goal: '≤ 1.2×', met: s.p50 / f.p50 <= 1.2 },
            { metric: 'p99', switchyard: s.p99, floor: f.p99, unit: 'ms', ratio: s.p99 / f.p99, goal: '≤ 2×', met: s.p99 / f.p99 <= 2 },
            { metric: 'p90', switchyard: s.p90, floor: f.p90, unit: 'ms', ratio: s.p90 / f.p90 },
            { metric: 'mean', switchyard: s.mean, floor: f.mean, unit: 'ms', ratio: s.mean / f.mean },
            { metric: 'p50, absolute', switchyard: s.p50, floor: '', unit: 'ms', goal: '≤ 75 ms', met: s.p50 <= 75 },
            ...(sb && fb
              ? [
                  { metric: 'p50 before (default server, no eager start)', switchyard: sb.p50, floor: fb.p50, unit: 'ms', ratio: sb.p50 / fb.p50 },
                  { metric: 'p99 before', switchyard: sb.p99, floor: fb.p99, unit: 'ms', ratio: sb.p99 / fb.p99 },
                  { metric: 'p50 after ÷ before', switchyard: s.p50 / sb.p50, floor: f.p50 / fb.p50, unit: '×' },
                ]
              : []),
          ],
          details: {
            errors,
            rounds,
            perRound,
            sides: Object.fromEntries(
              sides.map((x) => [x.key, { label: x.label, ms: roundAll(sum.get(x.key)!), cpuMsPerCall: cpuTicks.get(x.key), medianHopsMs: hops.get(x.key) }]),
            ),
          },
          notes: [
            `${perRound} sequential calls per side in each of ${rounds} rotating rounds; errors: ${errors}`,
            ...sides.flatMap((x) => [
              `${x.label}: ${describe(sum.get(x.key)!)}; CPU ms per call: ${formatPerCall(cpuTicks.get(x.key))}`,
              `   median hops (ms, ${hopSample} latest histories): ${formatPerCall(hops.get(x.key))}`,
            ]),
            ...notes,
          ],
        });
      }

      if (ctx.selected.has('action-throughput')) {
        const concurrency = numberFlag(ctx, 'concurrency', 16);
        const seconds = numberFlag(ctx, 'throughput-seconds', 10);
        const rounds = numberFlag(ctx, 'throughput-rounds', 2);
        const runs = new Map<string, LoadResult[]>(sides.map((s) => [s.key, []]));
        const cpu: Record<string, string> = {};
        for (let r = 0; r < rounds; r++) {
          for (const s of rotate(sides, r)) {
            const cpu0 = cpuSnapshot();
            const res = await closedLoop(s.call, { concurrency, durationMs: seconds * 1000 });
            if (r === 0) cpu[s.key] = formatCpu(cpuBreakdown(cpu0, cpuSnapshot(), s.pids), res.seconds);
            if (res.errors) ctx.say(`actions: ${res.errors} ${s.key} errors under load, first: ${res.firstError}`);
            runs.get(s.key)!.push(res);
            ctx.say(`actions: throughput ${s.key} ${round(res.perSecond, 1)}/s`);
          }
          forget();
        }
        const rate = (k: string) => {
          const xs = runs.get(k);
          return xs ? xs.reduce((a, x) => a + x.calls, 0) / xs.reduce((a, x) => a + x.seconds, 0) : NaN;
        };
        const lat = (k: string) => summarize((runs.get(k) ?? []).flatMap((x) => x.latenciesMs));
        const syRate = rate('sy');
        const flRate = rate('fl');
        const sl = lat('sy');
        const flat = lat('fl');
        const errors = [...runs.values()].flat().reduce((a, x) => a + x.errors, 0);
        const hasBefore = runs.has('sy-before') && runs.has('fl-before');
        results.push({
          name: 'action-throughput',
          rows: [
            {
              metric: `actions/s @${concurrency}`,
              switchyard: syRate,
              floor: flRate,
              unit: '/s',
              ratio: syRate / flRate,
              goal: '≥ 0.7× and ≥ 100/s',
              met: syRate / flRate >= 0.7 && syRate >= 100,
            },
            { metric: 'p50 under load', switchyard: sl.p50, floor: flat.p50, unit: 'ms', ratio: sl.p50 / flat.p50 },
            { metric: 'p99 under load', switchyard: sl.p99, floor: flat.p99, unit: 'ms', ratio: sl.p99 / flat.p99 },
            ...(hasBefore
              ? [
                  {
                    metric: `actions/s @${concurrency} before`,
                    switchyard: rate('sy-before'),
                    floor: rate('fl-before'),
                    unit: '/s',
                    ratio: rate('sy-before') / rate('fl-before'),
                  },
                  { metric: 'actions/s after ÷ before', switchyard: syRate / rate('sy-before'), floor: flRate / rate('fl-before'), unit: '×' },
                ]
              : []),
          ],
          details: {
            concurrency,
            secondsPerRound: seconds,
            rounds,
            errors,
            perRound: Object.fromEntries([...runs].map(([k, xs]) => [k, xs.map((x) => round(x.perSecond, 1))])),
            p50: Object.fromEntries(sides.map((s) => [s.key, round(lat(s.key).p50, 1)])),
            cpu,
          },
          notes: [
            `${concurrency} concurrent callers, ${rounds} rotating rounds of ${seconds} s per side; errors: ${errors}`,
            ...sides.map((s) => `${s.label}: ${round(rate(s.key), 1)}/s, p50 ${round(lat(s.key).p50, 1)} ms; round 1 CPU: ${cpu[s.key]}`),
          ],
        });
      }
      return results;
    } finally {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
      await generic.close();
      await metabase.close();
    }
  },
};

/** The named processes of a side, with its Temporal server when this group started it (the run's own is `temporal` already). */
function serverPids(server: Server, named: Record<string, number>): Record<string, number> {
  return server.pid ? { ...named, [`temporal (${server.name})`]: server.pid } : named;
}

/** CPU seconds per process group → milliseconds per call. */
function perCall(cpu: Record<string, number>, calls: number): Record<string, number> {
  return Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, round((v * 1000) / Math.max(1, calls), 1)]));
}

function formatPerCall(cpu: Record<string, number> | undefined): string {
  return cpu
    ? Object.entries(cpu)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')
    : '';
}

function describe(s: Summary): string {
  return `p50 ${round(s.p50, 1)} ms, p90 ${round(s.p90, 1)}, p99 ${round(s.p99, 1)}, mean ${round(s.mean, 1)} (n=${s.n})`;
}

function roundAll(s: Summary) {
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, round(v, 2)]));
}
