/**
 * @module bench/schedules — many schedules: N connections (default 1000), each with a sync on a
 * 1-minute schedule, for M minutes (default 5; `--schedules-minutes` shortens it). The API and the
 * worker run in separate processes so the worker's memory is its own.
 *
 * Lag of a run = when the sync run started (its `sync_runs.started_at`, written by the first
 * activity) − the time the schedule fired it for (Temporal's `scheduledAt`). Only the interval
 * firings inside the observation window count (not the run each schedule makes when created).
 * Firings that produced no run (skipped for overlap, missed, or not started by the end) are counted.
 */
import type { Client } from '@temporalio/client';
import { connectClient } from '../lib/temporal/client.js';
import { startMetabaseFake } from '../test/fakes/index.js';
import { numberFlag, type BenchContext, type BenchGroup } from './lib/context.js';
import { closedLoop } from './lib/load.js';
import { ApiClient, benchDb, platformEnv, spawnPlatform, type PlatformProcess } from './lib/platform.js';
import { API_KEY, createConnection, createIntegration, INTEGRATION } from './lib/setup.js';
import { round, sampleRss, sleep, summarize, type BenchResult } from './lib/stats.js';

const SYNC = 'bench-ticks';
const syncScheduleId = (c: string) => `sync:dev:${INTEGRATION}:${c}:${SYNC}`;
const checkScheduleId = (c: string) => `check:dev:${INTEGRATION}:${c}`;

interface Firing {
  connection: string;
  scheduledAt: Date;
  takenAt: Date;
  runKey: string;
}

export const schedules: BenchGroup = {
  names: ['schedules'],
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const connections = numberFlag(ctx, 'connections', 1000);
    const minutes = numberFlag(ctx, 'schedules-minutes', 5);
    const metabase = await startMetabaseFake({
      apiKey: API_KEY,
      users: Array.from({ length: 5 }, (_, i) => ({ email: `user${i}@example.com`, first_name: `F${i}`, last_name: `L${i}` })),
    });
    const p = await platformEnv(ctx.services, 'schedules');
    const apiProcess = await spawnPlatform(p, { role: 'api' });
    let worker: PlatformProcess | null = null;
    const api = new ApiClient(p.url, p.devKey, 16);
    const db = benchDb(p);
    const temporal = await connectClient(ctx.services.temporalAddress, 'default');
    const ids = Array.from({ length: connections }, (_, i) => `conn-${String(i).padStart(5, '0')}`);
    let created = 0;
    try {
      worker = await spawnPlatform(p, { role: 'worker', cpuProfDir: ctx.cpuProfDir });
      const rss = sampleRss(worker.pid, 1000);
      await createIntegration(api, [{ method: 'GET', path: '/bench/ticks' }]);
      ctx.say(`schedules: creating ${connections} connections (each gets a 1-minute sync schedule)`);
      const t0 = performance.now();
      let next = 0;
      const setup = await closedLoop(
        async () => {
          const id = ids[next++]!;
          await createConnection(api, id, metabase.url);
          created++;
          if (created % 200 === 0) ctx.say(`schedules: ${created} connections`);
        },
        { concurrency: 8, calls: connections },
      );
      if (setup.errors) throw new Error(`${setup.errors} connections failed: ${setup.firstError}`);
      const setupSeconds = (performance.now() - t0) / 1000;
      metabase.requests.length = 0;
      const setupRss = rss.stop();
      const observe = sampleRss(worker.pid, 1000);
      const windowStart = new Date();
      ctx.say(`schedules: set up in ${setupSeconds.toFixed(0)} s (worker RSS ${setupRss.lastMb.toFixed(0)} MB); observing for ${minutes} min`);
      const windowMs = minutes * 60_000;
      for (let waited = 0; waited < windowMs; waited += 30_000) {
        await sleep(Math.min(30_000, windowMs - waited));
        metabase.requests.length = 0;
        const runs = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sync_runs WHERE started_at >= $1`, [windowStart])).rows[0]!.n;
        ctx.say(`schedules: ${((waited + 30_000) / 60_000).toFixed(1)} min, ${runs} runs so far, worker RSS ${observe.peek().toFixed(0)} MB`);
      }
      const windowEnd = new Date();
      // Firings of the window's last seconds get a grace period to start.
      await sleep(15_000);
      const rssWindow = observe.stop();

      ctx.say('schedules: reading the schedules');
      const firings: Firing[] = [];
      let skippedOverlap = 0;
      let missedCatchup = 0;
      let idx = 0;
      await closedLoop(
        async () => {
          const c = ids[idx++]!;
          const d = await temporal.schedule.getHandle(syncScheduleId(c)).describe();
          skippedOverlap += d.info.numActionsSkippedOverlap;
          missedCatchup += d.info.numActionsMissedCatchupWindow;
          for (const a of d.info.recentActions) {
            if (a.scheduledAt < windowStart || a.scheduledAt > windowEnd || a.action.type !== 'startWorkflow') continue;
            firings.push({
              connection: c,
              scheduledAt: a.scheduledAt,
              takenAt: a.takenAt,
              runKey: `${a.action.workflow.workflowId}/${a.action.workflow.firstExecutionRunId}`,
            });
          }
        },
        { concurrency: 16, calls: connections },
      );
      const { rows } = await db.query<{ id: string; started_at: Date; status: string }>(`SELECT id, started_at, status FROM sync_runs WHERE started_at >= $1`, [
        new Date(windowStart.getTime() - 60_000),
      ]);
      const runs = new Map(rows.map((r) => [r.id, r]));
      const lags: number[] = [];
      const takeLags: number[] = [];
      let noRun = 0;
      let errors = 0;
      for (const f of firings) {
        takeLags.push(f.takenAt.getTime() - f.scheduledAt.getTime());
        const run = runs.get(f.runKey);
        if (!run) {
          noRun++;
          continue;
        }
        if (run.status === 'ERROR') errors++;
        lags.push(run.started_at.getTime() - f.scheduledAt.getTime());
      }
      const minuteMarks = Math.floor(windowEnd.getTime() / 60_000) - Math.ceil(windowStart.getTime() / 60_000) + 1;
      const expected = minuteMarks * connections;
      const lag = summarize(lags);
      const take = summarize(takeLags);
      const maxRss = Math.max(setupRss.maxMb, rssWindow.maxMb);
      const result: BenchResult = {
        name: 'schedules',
        rows: [
          { metric: 'lag p99 (run start − scheduled)', switchyard: lag.p99 / 1000, floor: 0, unit: 's', goal: '< 5 s', met: lag.p99 < 5000 },
          { metric: 'lag p50', switchyard: lag.p50 / 1000, floor: 0, unit: 's' },
          { metric: 'lag max', switchyard: lag.max / 1000, floor: 0, unit: 's' },
          { metric: 'context: Temporal take lag p99', switchyard: take.p99 / 1000, floor: 0, unit: 's' },
          { metric: 'worker RSS max', switchyard: maxRss, floor: '', unit: 'MB', goal: '< 500 MB', met: maxRss < 500 },
          { metric: 'runs started / firings expected', switchyard: lags.length, floor: expected, unit: 'runs', ratio: lags.length / expected },
        ],
        details: {
          connections,
          minutes,
          setupSeconds: round(setupSeconds, 1),
          firings: firings.length,
          expected,
          runsStarted: lags.length,
          firingsWithoutRun: noRun,
          runErrors: errors,
          skippedOverlap,
          missedCatchupWindow: missedCatchup,
          lagMs: Object.fromEntries(Object.entries(lag).map(([k, v]) => [k, round(v, 0)])),
          takeLagMs: Object.fromEntries(Object.entries(take).map(([k, v]) => [k, round(v, 0)])),
          workerRssMb: {
            afterSetup: round(setupRss.lastMb, 0),
            maxSetup: round(setupRss.maxMb, 0),
            maxWindow: round(rssWindow.maxMb, 0),
            end: round(rssWindow.lastMb, 0),
          },
        },
        notes: [
          `${connections} connections × ${minuteMarks} minute marks in ${minutes} min; ${firings.length} firings seen, ${noRun} without a run, ${skippedOverlap} skipped (overlap), ${missedCatchup} missed (catch-up window), ${errors} runs ended in error`,
          `setup (creating the connections and their schedules): ${setupSeconds.toFixed(0)} s`,
        ],
      };
      return [result];
    } finally {
      await worker?.stop();
      await apiProcess.stop();
      await api.close();
      await db.end().catch(() => undefined);
      ctx.say('schedules: deleting the schedules');
      await deleteSchedules(temporal, ids.slice(0, Math.max(created, 0) + 8));
      await temporal.connection.close().catch(() => undefined);
      await metabase.close();
    }
  },
};

async function deleteSchedules(temporal: Client, connectionIds: string[]): Promise<void> {
  const all = connectionIds.flatMap((c) => [syncScheduleId(c), checkScheduleId(c)]);
  let i = 0;
  await closedLoop(
    async () => {
      const id = all[i++]!;
      await temporal.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    },
    { concurrency: 16, calls: all.length },
  );
}
