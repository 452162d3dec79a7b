/**
 * @module bench/actions — action latency and throughput.
 *
 * Switchyard: `POST /action/trigger` of the no-op action (one GET to the generic fake), API and
 * worker in one process as `npm start` runs them. Floor: a bare Temporal workflow running one
 * activity that makes the same GET, in its own worker process, started and awaited by a Temporal
 * client. Both sides are measured in alternating rounds so drift on a shared machine hits both.
 */
import { connectClient } from '../lib/temporal/client.js';
import { startGenericApiFake, startMetabaseFake } from '../test/fakes/index.js';
import { numberFlag, type BenchContext, type BenchGroup } from './lib/context.js';
import { runBareWorkflow, spawnFloorWorker } from './lib/floor.js';
import { closedLoop, type LoadResult } from './lib/load.js';
import { ApiClient, platformEnv, spawnPlatform } from './lib/platform.js';
import { NOOP_UPSTREAM_PATH } from './lib/scripts.js';
import { API_KEY, connectionHeaders, createConnection, createIntegration, INTEGRATION } from './lib/setup.js';
import { cpuBreakdown, cpuSnapshot, formatCpu, round, summarize, type BenchResult } from './lib/stats.js';

export const actions: BenchGroup = {
  names: ['action-latency', 'action-throughput'],
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const generic = await startGenericApiFake({ apiKey: API_KEY, items: [{ name: 'one' }] });
    const metabase = await startMetabaseFake({ apiKey: API_KEY });
    const p = await platformEnv(ctx.services, 'actions');
    const platform = await spawnPlatform(p, { role: 'all', cpuProfDir: ctx.cpuProfDir });
    const floor = await spawnFloorWorker(ctx.services.temporalAddress, `${p.taskQueuePrefix}-floor`);
    const api = new ApiClient(p.url, p.devKey);
    const temporal = await connectClient(ctx.services.temporalAddress, 'default');
    try {
      await createIntegration(api, [{ method: 'POST', path: '/bench/noop' }]);
      await createConnection(api, 'c1', metabase.url);
      await api.ok('PATCH', `/integrations/${INTEGRATION}`, { json: { integration_config: { base_url: generic.url } } });
      const upstream = generic.url + NOOP_UPSTREAM_PATH;

      const switchyard = async () => {
        const r = await api.call('POST', '/action/trigger', { headers: connectionHeaders('c1'), json: { action_name: 'bench-noop', input: {} } });
        if (r.status !== 200 || r.body !== '{"status":200}') throw new Error(`action answered ${r.status}: ${r.body.slice(0, 300)}`);
      };
      const bare = async () => {
        const r = await runBareWorkflow(temporal, floor.taskQueue, upstream, API_KEY);
        if (r.status !== 200) throw new Error(`bare workflow got ${r.status}`);
      };
      // The fakes keep every request; drop them between phases so memory stays flat.
      const forget = () => {
        generic.requests.length = 0;
        metabase.requests.length = 0;
      };

      ctx.say('actions: warming up');
      await closedLoop(switchyard, { concurrency: 4, calls: 24 });
      await closedLoop(bare, { concurrency: 4, calls: 24 });
      forget();

      const results: BenchResult[] = [];
      if (ctx.selected.has('action-latency')) {
        const rounds = numberFlag(ctx, 'latency-rounds', 5);
        const perRound = numberFlag(ctx, 'latency-calls', 100);
        const sy: number[] = [];
        const fl: number[] = [];
        let errors = 0;
        for (let r = 0; r < rounds; r++) {
          const order = r % 2 === 0 ? ['sy', 'fl'] : ['fl', 'sy'];
          for (const side of order) {
            const res = await closedLoop(side === 'sy' ? switchyard : bare, { concurrency: 1, calls: perRound });
            if (res.errors) ctx.say(`actions: ${res.errors} ${side} errors, first: ${res.firstError}`);
            errors += res.errors;
            (side === 'sy' ? sy : fl).push(...res.latenciesMs);
          }
          forget();
          ctx.say(`actions: latency round ${r + 1}/${rounds}`);
        }
        const s = summarize(sy);
        const f = summarize(fl);
        results.push({
          name: 'action-latency',
          rows: [
            { metric: 'p50', switchyard: s.p50, floor: f.p50, unit: 'ms', ratio: s.p50 / f.p50, goal: '≤ 1.3×', met: s.p50 / f.p50 <= 1.3 },
            { metric: 'p99', switchyard: s.p99, floor: f.p99, unit: 'ms', ratio: s.p99 / f.p99, goal: '≤ 2×', met: s.p99 / f.p99 <= 2 },
            { metric: 'p90', switchyard: s.p90, floor: f.p90, unit: 'ms', ratio: s.p90 / f.p90 },
            { metric: 'mean', switchyard: s.mean, floor: f.mean, unit: 'ms', ratio: s.mean / f.mean },
          ],
          details: { calls: { switchyard: s.n, floor: f.n }, errors, rounds, perRound, switchyardMs: roundAll(s), floorMs: roundAll(f) },
          notes: [`${s.n} + ${f.n} sequential calls in ${rounds} alternating rounds; errors: ${errors}`],
        });
      }

      if (ctx.selected.has('action-throughput')) {
        const concurrency = numberFlag(ctx, 'concurrency', 16);
        const seconds = numberFlag(ctx, 'throughput-seconds', 10);
        const rounds = numberFlag(ctx, 'throughput-rounds', 2);
        const sy: LoadResult[] = [];
        const fl: LoadResult[] = [];
        const cpu: Record<string, string> = {};
        for (let r = 0; r < rounds; r++) {
          const order = r % 2 === 0 ? ['sy', 'fl'] : ['fl', 'sy'];
          for (const side of order) {
            const cpu0 = cpuSnapshot();
            const res = await closedLoop(side === 'sy' ? switchyard : bare, { concurrency, durationMs: seconds * 1000 });
            if (r === 0) cpu[side] = formatCpu(cpuBreakdown(cpu0, cpuSnapshot(), { switchyard: platform.pid, 'floor worker': floor.pid }), res.seconds);
            if (res.errors) ctx.say(`actions: ${res.errors} ${side} errors under load, first: ${res.firstError}`);
            (side === 'sy' ? sy : fl).push(res);
            ctx.say(`actions: throughput ${side === 'sy' ? 'switchyard' : 'floor'} ${round(res.perSecond, 1)}/s`);
          }
          forget();
        }
        const rate = (xs: LoadResult[]) => xs.reduce((a, x) => a + x.calls, 0) / xs.reduce((a, x) => a + x.seconds, 0);
        const syRate = rate(sy);
        const flRate = rate(fl);
        const sl = summarize(sy.flatMap((x) => x.latenciesMs));
        const flat = summarize(fl.flatMap((x) => x.latenciesMs));
        const errors = [...sy, ...fl].reduce((a, x) => a + x.errors, 0);
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
          ],
          details: {
            concurrency,
            secondsPerRound: seconds,
            rounds,
            errors,
            perRound: { switchyard: sy.map((x) => round(x.perSecond, 1)), floor: fl.map((x) => round(x.perSecond, 1)) },
            cpu,
          },
          notes: [
            `${concurrency} concurrent callers, ${rounds} alternating rounds of ${seconds} s per side; errors: ${errors}`,
            `switchyard round 1: ${cpu.sy}`,
            `floor round 1: ${cpu.fl}`,
          ],
        });
      }
      return results;
    } finally {
      await api.close();
      await temporal.connection.close().catch(() => undefined);
      await floor.stop();
      await platform.stop();
      await generic.close();
      await metabase.close();
    }
  },
};

function roundAll(s: ReturnType<typeof summarize>) {
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, round(v, 2)]));
}
