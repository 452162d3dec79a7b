/**
 * @module bench/proxy — GETs through `/proxy` against a bare pass-through proxy (bench/lib/passthrough-main.ts:
 * node:http + undici in its own process, no auth, no database) and direct GETs to the same fake URL,
 * all with undici (keep-alive, one connection per caller) at concurrency 32, in rotating rounds; then
 * the same one call at a time, for the latency added without queueing. The platform as it was before
 * the changes these benchmarks led to (bench/lib/baseline.ts) runs alongside and is measured in the
 * same rounds, for before/after figures from one run (`--no-baseline` skips it).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startGenericApiFake, startMetabaseFake } from '../test/fakes/index.js';
import { baselineTree } from './lib/baseline.js';
import { numberFlag, type BenchContext, type BenchGroup } from './lib/context.js';
import { closedLoop, type LoadResult } from './lib/load.js';
import { ApiClient, benchDb, platformEnv, spawnPlatform, type PlatformProcess } from './lib/platform.js';
import { NOOP_UPSTREAM_PATH } from './lib/scripts.js';
import { API_KEY, connectionHeaders, createConnection, createIntegration, INTEGRATION } from './lib/setup.js';
import { cpuBreakdown, cpuSnapshot, formatCpu, resetStatements, round, summarize, topStatements, type BenchResult, type Row } from './lib/stats.js';

/** The changes the proxy's before/after reverts (bench/lib/baseline.ts). */
const PROXY_CHANGES = ['provider-target', 'proxy-target', 'proxy-direct', 'request-log-batch', 'lookup-cache'];
const PASSTHROUGH_ENTRY = fileURLToPath(new URL('./lib/passthrough-main.ts', import.meta.url));

type Side = 'after' | 'before' | 'passthrough' | 'direct';

interface Target {
  side: Side;
  platform?: PlatformProcess;
  call: () => Promise<void>;
  close(): Promise<void>;
}

export const proxy: BenchGroup = {
  names: ['proxy'],
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const concurrency = numberFlag(ctx, 'proxy-concurrency', 32);
    const seconds = numberFlag(ctx, 'proxy-seconds', 8);
    const rounds = numberFlag(ctx, 'proxy-rounds', 2);
    // Rounds run in full and not counted: each process's first long idle ends in V8's first full
    // collection, which drops the proxy path's optimized code, and the round after it is the slow
    // one, once (bench/RESULTS.md, 2026-11-28 03:58–05:14). The counted rounds follow it.
    const warmupRounds = numberFlag(ctx, 'proxy-warmup-rounds', 2);
    const generic = await startGenericApiFake({ apiKey: API_KEY, items: [{ name: 'one' }] });
    const metabase = await startMetabaseFake({ apiKey: API_KEY });
    const expected = JSON.stringify(generic.state.items[0]);
    const targets: Target[] = [];
    const notes: string[] = [];
    try {
      const viaProxy = async (side: Side, root?: string): Promise<Target> => {
        const p = await platformEnv(ctx.services, side === 'after' ? 'proxy' : 'proxy-before');
        const platform = await spawnPlatform(p, { role: 'all', cpuProfDir: ctx.cpuProfDir, root });
        const api = new ApiClient(p.url, p.devKey);
        await createIntegration(api, []);
        await createConnection(api, 'c1', metabase.url);
        await api.ok('PATCH', `/integrations/${INTEGRATION}`, { json: { integration_config: { base_url: generic.url } } });
        await api.close();
        const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
        const url = `${p.url}/proxy${NOOP_UPSTREAM_PATH}`;
        const headers = { authorization: `Bearer ${p.devKey}`, ...connectionHeaders('c1') };
        const db = ctx.services.pgStatStatements ? benchDb(p, 1) : null;
        return {
          side,
          platform,
          async call() {
            const res = await request(url, { dispatcher: agent, headers });
            const body = await res.body.text();
            if (res.statusCode !== 200 || body !== expected) throw new Error(`proxy answered ${res.statusCode}: ${body.slice(0, 200)}`);
          },
          async close() {
            if (db) {
              for (const line of await topStatements(db, 8)) ctx.say(`proxy (${side}): statement ${line}`);
              await db.end();
            }
            await agent.close();
            await platform.stop();
          },
          ...(db ? { reset: () => resetStatements(db) } : {}),
        };
      };
      targets.push(await viaProxy('after'));
      if (ctx.flags['baseline'] !== 'false' && !ctx.flags['no-baseline']) {
        // --proxy-reverts=a,b: a "before" with only these changes reverted (e.g. one change alone).
        const only = ctx.flags['proxy-reverts'];
        const reverts = typeof only === 'string' ? only.split(',').filter((n) => PROXY_CHANGES.includes(n)) : PROXY_CHANGES;
        const tree = await baselineTree(ctx.services.workDir, reverts);
        if ('root' in tree) {
          targets.push(await viaProxy('before', tree.root));
          notes.push(`before = this tree with ${reverts.join(', ')} reverted (bench/lib/baseline.ts), measured in the same rounds`);
        } else notes.push(`before/after: baseline unavailable (${tree.unavailable})`);
      }
      targets.push(await passthrough(generic.url, expected, concurrency));
      const direct = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
      const directUrl = generic.url + NOOP_UPSTREAM_PATH;
      targets.push({
        side: 'direct',
        async call() {
          const res = await request(directUrl, { dispatcher: direct, headers: { 'x-api-key': API_KEY } });
          const body = await res.body.text();
          if (res.statusCode !== 200 || body !== expected) throw new Error(`fake answered ${res.statusCode}`);
        },
        close: () => direct.close(),
      });
      const forget = () => {
        generic.requests.length = 0;
      };

      ctx.say('proxy: warming up');
      for (const t of targets) await closedLoop(t.call, { concurrency, durationMs: 2000 });
      forget();
      for (const t of targets) await (t as Target & { reset?: () => Promise<void> }).reset?.();

      const loaded = new Map<Side, LoadResult[]>(targets.map((t) => [t.side, []]));
      const oneByOne = new Map<Side, number[]>(targets.map((t) => [t.side, []]));
      // Every round's, keyed `<side> round <n>`: the rounds of one side differ (the p7 section of RESULTS.md).
      const cpu = new Map<string, string>();
      const warmup = new Map<Side, number[]>(targets.map((t) => [t.side, []]));
      for (let r = 0; r < warmupRounds + rounds; r++) {
        const counted = r >= warmupRounds;
        const label = counted ? `round ${r - warmupRounds + 1}` : `warm-up round ${r + 1}`;
        // Rotate the order so no side always runs first (or right after the most tiring one).
        const order = targets.map((_, i) => targets[(i + r) % targets.length]!);
        for (const t of order) {
          const cpu0 = cpuSnapshot();
          const res = await closedLoop(t.call, { concurrency, durationMs: seconds * 1000 });
          const cpu1 = cpuSnapshot();
          if (res.errors) ctx.say(`proxy: ${res.errors} ${t.side} errors in ${label}, first: ${res.firstError}`);
          forget();
          const one = await closedLoop(t.call, { concurrency: 1, calls: 300 });
          forget();
          if (!counted) {
            warmup.get(t.side)!.push(round(res.perSecond, 0));
            continue;
          }
          cpu.set(
            `${t.side} ${label}`,
            `${res.calls} calls, ${formatCpu(
              cpuBreakdown(cpu0, cpu1, t.platform ? { [t.side === 'passthrough' ? 'pass-through proxy' : 'switchyard']: t.platform.pid } : {}),
              res.seconds,
            )}`,
          );
          loaded.get(t.side)!.push(res);
          oneByOne.get(t.side)!.push(...one.latenciesMs);
        }
        const total = counted ? `${rounds}` : `${warmupRounds} (not counted)`;
        ctx.say(
          `proxy: ${label}/${total}: ${targets.map((t) => `${t.side} ${round(counted ? loaded.get(t.side)!.at(-1)!.perSecond : warmup.get(t.side)!.at(-1)!, 0)}/s`).join(', ')}`,
        );
      }
      const rate = (side: Side) => {
        const xs = loaded.get(side)!;
        return xs.reduce((a, x) => a + x.calls, 0) / xs.reduce((a, x) => a + x.seconds, 0);
      };
      const lat = (side: Side) => summarize(loaded.get(side)!.flatMap((x) => x.latenciesMs));
      const one = (side: Side) => summarize(oneByOne.get(side)!);
      const s = lat('after');
      const f = lat('direct');
      const pt = lat('passthrough');
      const s1 = one('after');
      const f1 = one('direct');
      const pt1 = one('passthrough');
      const rows: Row[] = [
        {
          metric: `throughput @${concurrency} (floor: bare pass-through proxy)`,
          switchyard: rate('after'),
          floor: rate('passthrough'),
          unit: 'req/s',
          ratio: rate('after') / rate('passthrough'),
          goal: '≥ 0.7×',
          met: rate('after') / rate('passthrough') >= 0.7,
        },
        { metric: 'p50 added @1 (floor: direct)', switchyard: s1.p50 - f1.p50, floor: 0, unit: 'ms', goal: '≤ 0.4 ms', met: s1.p50 - f1.p50 <= 0.4 },
        { metric: 'context: pass-through p50 added @1', switchyard: '', floor: pt1.p50 - f1.p50, unit: 'ms' },
        { metric: `p50 @${concurrency} (floor: pass-through)`, switchyard: s.p50, floor: pt.p50, unit: 'ms', ratio: s.p50 / pt.p50 },
        {
          metric: `context: throughput @${concurrency} (floor: direct)`,
          switchyard: rate('after'),
          floor: rate('direct'),
          unit: 'req/s',
          ratio: rate('after') / rate('direct'),
        },
        { metric: `context: p50 added @${concurrency} (floor: direct)`, switchyard: s.p50 - f.p50, floor: 0, unit: 'ms' },
        { metric: `p99 @${concurrency} (floor: direct)`, switchyard: s.p99, floor: f.p99, unit: 'ms', ratio: s.p99 / f.p99 },
      ];
      const hasBefore = loaded.has('before');
      if (hasBefore) {
        const b = lat('before');
        const b1 = one('before');
        rows.push(
          {
            metric: `change: throughput @${concurrency} (floor = before)`,
            switchyard: rate('after'),
            floor: rate('before'),
            unit: 'req/s',
            ratio: rate('after') / rate('before'),
          },
          { metric: `change: p50 @${concurrency} (floor = before)`, switchyard: s.p50, floor: b.p50, unit: 'ms', ratio: s.p50 / b.p50 },
          {
            metric: 'change: p50 added @1 (floor = before)',
            switchyard: s1.p50 - f1.p50,
            floor: b1.p50 - f1.p50,
            unit: 'ms',
            ratio: (s1.p50 - f1.p50) / (b1.p50 - f1.p50),
          },
          {
            metric: 'change: throughput ratio to pass-through, before',
            switchyard: '',
            floor: rate('before'),
            unit: 'req/s',
            ratio: rate('before') / rate('passthrough'),
          },
        );
      }
      const errors = [...loaded.values()].flat().reduce((a, x) => a + x.errors, 0);
      return [
        {
          name: 'proxy',
          rows,
          details: {
            concurrency,
            secondsPerRound: seconds,
            rounds,
            warmupRounds,
            errors,
            warmupPerRound: Object.fromEntries(warmup),
            perRound: Object.fromEntries([...loaded].map(([k, v]) => [k, v.map((x) => round(x.perSecond, 0))])),
            p50OneByOneMs: Object.fromEntries([...oneByOne].map(([k, v]) => [k, round(summarize(v).p50, 2)])),
            cpu: Object.fromEntries(cpu),
          },
          notes: [
            `${rounds} rotating rounds of ${seconds} s per side at concurrency ${concurrency}, then 300 calls one at a time, after ${warmupRounds} such rounds not counted; errors: ${errors}`,
            ...[...cpu].map(([k, v]) => `${k}: ${v}`),
            ...notes,
          ],
        },
      ];
    } finally {
      for (const t of targets) await t.close().catch(() => undefined);
      await generic.close();
      await metabase.close();
    }
  },
};

/** The floor: a bare pass-through proxy (bench/lib/passthrough-main.ts) in its own process. */
async function passthrough(upstream: string, expected: string, concurrency: number): Promise<Target> {
  const child = fork(PASSTHROUGH_ENTRY, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PASSTHROUGH_UPSTREAM: upstream, PASSTHROUGH_API_KEY: API_KEY },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`pass-through proxy exited early (${code})`)));
  });
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
  const url = `http://127.0.0.1:${port}/proxy${NOOP_UPSTREAM_PATH}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    side: 'passthrough',
    platform: { pid: child.pid!, child, stop: async () => undefined },
    async call() {
      const res = await request(url, { dispatcher: agent, headers: connectionHeaders('c1') });
      const body = await res.body.text();
      if (res.statusCode !== 200 || body !== expected) throw new Error(`pass-through answered ${res.statusCode}: ${body.slice(0, 200)}`);
    },
    async close() {
      await agent.close();
      child.send('stop');
      await exited;
    },
  };
}
