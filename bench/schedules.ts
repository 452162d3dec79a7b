/**
 * @module bench/schedules — many schedules: N connections (default 1000), each with a sync on a
 * 1-minute schedule. Once the setup's backlog has drained (or after `--schedules-settle` s, default
 * 360), a window of M whole minutes (default 3, `--schedules-minutes`). The API and the worker run in
 * separate processes so the worker's memory is its own.
 *
 * Lag of a run = when the sync run started (its `sync_runs.started_at`, written by the first
 * activity) − the time the schedule fired it for (Temporal's `scheduledAt`). Only the interval
 * firings inside the observation window count (not the run each schedule makes when created).
 * Firings that produced no run (skipped for overlap, missed, or not started by the end) are counted.
 */
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { connectClient } from '../lib/temporal/client.js';
import { startMetabaseFake } from '../test/fakes/index.js';
import { numberFlag, type BenchContext, type BenchGroup } from './lib/context.js';
import { closedLoop } from './lib/load.js';
import { ApiClient, benchDb, platformEnv, spawnPlatform, type PlatformProcess } from './lib/platform.js';
import { API_KEY, createConnection, createIntegration, INTEGRATION } from './lib/setup.js';
import { checkWorkflowId, syncScheduleId } from '../workflows/contracts.js';
import { configSchema } from '../lib/config.js';
import { intervalSpec } from '../features/syncs/schedules.js';
import { formatMemory, formatWorkflowCache, memoryAt, readMemoryLog } from './lib/memory-probe.js';
import { cpuBreakdown, cpuSnapshot, formatCpu, round, sampleRss, sleep, summarize, type BenchResult } from './lib/stats.js';

const SYNC = 'bench-ticks';
/** A schedule-started workflow's id ends with the time it was scheduled for (Temporal appends it, RFC 3339); the run id follows. */
const SCHEDULED_AT = /-(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\/[^/]+$/;
const syncScheduleOf = (prefix: string, c: string) => syncScheduleId(prefix, 'dev', INTEGRATION, c, SYNC);
const checkScheduleOf = (prefix: string, c: string) => checkWorkflowId(prefix, 'dev', INTEGRATION, c);

export const schedules: BenchGroup = {
  names: ['schedules'],
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const connections = numberFlag(ctx, 'connections', 1000);
    const minutes = numberFlag(ctx, 'schedules-minutes', 3);
    const metabase = await startMetabaseFake({
      apiKey: API_KEY,
      users: Array.from({ length: 5 }, (_, i) => ({ email: `user${i}@example.com`, first_name: `F${i}`, last_name: `L${i}` })),
    });
    // The schedule settings under test (unset: Switchyard's defaults, lib/config.ts).
    const knobs: Record<string, string> = {};
    if (ctx.flags['schedules-catchup'] !== undefined) knobs.SWITCHYARD_SYNC_CATCHUP_MINUTES = String(numberFlag(ctx, 'schedules-catchup', 60));
    if (ctx.flags['schedules-spread'] !== undefined) knobs.SWITCHYARD_SYNC_SPREAD_SECONDS = String(ctx.flags['schedules-spread']);
    const settleMaxSeconds = numberFlag(ctx, 'schedules-settle', 360);
    const p = await platformEnv(ctx.services, 'schedules', knobs);
    const apiProcess = await spawnPlatform(p, { role: 'api' });
    let worker: PlatformProcess | null = null;
    const api = new ApiClient(p.url, p.devKey, 16);
    const db = benchDb(p);
    const unchecked = async (olderThanSeconds: number) =>
      (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM connections WHERE last_check_at IS NULL AND created_at < now() - make_interval(secs => $1)`,
          [olderThanSeconds],
        )
      ).rows[0]!.n;
    const temporal = await connectClient(ctx.services.temporalAddress, 'default');
    // The worker's heaps and native memory, sampled in the worker itself (bench/lib/memory-probe.ts).
    const memoryLog = path.join(ctx.services.workDir, `memory-${p.taskQueuePrefix}.jsonl`);
    // --worker-env=K=V,K=V: environment of the worker process only (settings under test).
    const workerEnv = Object.fromEntries(
      typeof ctx.flags['worker-env'] === 'string'
        ? ctx.flags['worker-env'].split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])
        : [],
    );
    const ids = Array.from({ length: connections }, (_, i) => `conn-${String(i).padStart(5, '0')}`);
    let created = 0;
    try {
      worker = await spawnPlatform(
        { ...p, env: { ...p.env, ...workerEnv, BENCH_MEMORY_LOG: memoryLog } },
        {
          role: 'worker',
          cpuProfDir: ctx.cpuProfDir,
          nodeFlags: typeof ctx.flags['worker-node-flags'] === 'string' ? ctx.flags['worker-node-flags'].split(/\s+/).filter(Boolean) : [],
        },
      );
      const rss = sampleRss(worker.pid, 1000);
      const idleRss = rss.peek();
      await createIntegration(api, [{ method: 'GET', path: '/bench/ticks' }]);
      ctx.say(`schedules: creating ${connections} connections (each gets a 1-minute sync schedule)`);
      const t0 = performance.now();
      const t0Wall = Date.now();
      let next = 0;
      const setup = await closedLoop(
        async () => {
          const id = ids[next++]!;
          await createConnection(api, id, metabase.url);
          created++;
          if (created % 200 === 0) ctx.say(`schedules: ${created} connections, ${await unchecked(15)} unchecked for > 15 s (the sweeper's to redo)`);
        },
        { concurrency: 8, calls: connections },
      );
      if (setup.errors) throw new Error(`${setup.errors} connections failed: ${setup.firstError}`);
      const setupSeconds = (performance.now() - t0) / 1000;
      const setupRss = rss.stop();

      // A connection's immediate run carries the time it was triggered, off its schedule's grid of
      // interval firings (every minute at the schedule's offset).
      const spreadMs = 1000 * Number(knobs.SWITCHYARD_SYNC_SPREAD_SECONDS ?? configSchema.shape.SWITCHYARD_SYNC_SPREAD_SECONDS.parse(undefined));
      const offsetOf = new Map(ids.map((c) => [c, intervalSpec(syncScheduleOf(p.taskQueuePrefix, c), 60_000, spreadMs).offset ?? 0]));
      // The setup's progress: connections whose immediate run has started, and connections whose latest
      // interval firing due at least 10 s ago (the one in [now - 70 s, now - 10 s)) has started.
      const setupProgress = async () => {
        const { rows } = await db.query<{ connection_id: string; id: string }>(
          `SELECT c.connection_id, r.id FROM sync_runs r JOIN connections c ON c.id = r.connection_pk WHERE r.started_at >= $1`,
          [new Date(t0Wall)],
        );
        const dueBy = Date.now() - 10_000;
        const withImmediate = new Set<string>();
        const onTime = new Set<string>();
        for (const r of rows) {
          const at = SCHEDULED_AT.exec(r.id)?.[1];
          if (!at) continue;
          const offset = offsetOf.get(r.connection_id)!;
          const scheduled = new Date(at).getTime();
          if ((scheduled - offset) % 60_000 !== 0) withImmediate.add(r.connection_id);
          else if (scheduled === Math.floor((dueBy - offset) / 60_000) * 60_000 + offset) onTime.add(r.connection_id);
        }
        return { immediate: withImmediate.size, latestFiring: onTime.size };
      };
      // Settle: the setup leaves a backlog in Temporal (each connection's immediate sync run, its check
      // workflow, and the interval firings queued behind them). The window starts once every connection
      // is checked, every immediate run has started and the latest minute's firings have started (or
      // after --schedules-settle s), at the next whole minute. Without the last condition a window
      // could open on minutes of queued firings: it would measure the setup's burst, not the schedules.
      ctx.say(`schedules: set up in ${setupSeconds.toFixed(0)} s (worker RSS ${setupRss.lastMb.toFixed(0)} MB); settling (at most ${settleMaxSeconds} s)`);
      const settle0 = performance.now();
      let settled = false;
      const sweepable: number[] = [];
      for (;;) {
        const checked = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM connections WHERE last_check_at IS NOT NULL`)).rows[0]!.n;
        const { immediate, latestFiring } = await setupProgress();
        sweepable.push(await unchecked(15));
        // An immediate run whose time happens to fall on its schedule's grid (1 in 60) looks like an interval firing.
        settled = checked >= connections && immediate >= connections * 0.97 && latestFiring >= connections * 0.99;
        const elapsed = (performance.now() - settle0) / 1000;
        if (settled || elapsed >= settleMaxSeconds) {
          ctx.say(
            `schedules: ${settled ? 'settled' : 'not settled'} after ${elapsed.toFixed(0)} s: ${checked} checked, ${immediate} immediate runs started, the latest firing started for ${latestFiring}`,
          );
          break;
        }
        await sleep(10_000);
      }
      const settleSeconds = (performance.now() - settle0) / 1000;
      await sleep(60_000 - (Date.now() % 60_000));
      metabase.requests.length = 0;
      const observe = sampleRss(worker.pid, 1000);
      const windowStart = new Date(Math.round(Date.now() / 60_000) * 60_000);
      const cpu0 = cpuSnapshot();
      ctx.say(`schedules: observing for ${minutes} min from ${windowStart.toISOString()}`);
      const windowMs = minutes * 60_000;
      for (let waited = 0; waited < windowMs; waited += 30_000) {
        await sleep(Math.min(30_000, windowMs - waited));
        metabase.requests.length = 0;
        const runs = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sync_runs WHERE started_at >= $1`, [windowStart])).rows[0]!.n;
        ctx.say(`schedules: ${((waited + 30_000) / 60_000).toFixed(1)} min, ${runs} runs so far, worker RSS ${observe.peek().toFixed(0)} MB`);
      }
      const windowEnd = new Date(windowStart.getTime() + windowMs);
      const windowCpuByPart = cpuBreakdown(cpu0, cpuSnapshot(), { 'switchyard worker': worker.pid, 'switchyard api': apiProcess.pid });
      const windowCpu = formatCpu(windowCpuByPart, (Date.now() - windowStart.getTime()) / 1000);
      // Firings of the window's last seconds get a grace period to start (a run later than that counts as not started).
      await sleep(15_000);
      const rssWindow = observe.stop();

      // A schedule-started workflow's id ends with the time it was scheduled for (Temporal appends
      // it, RFC 3339): no need to ask each schedule (describing 1000 busy schedules takes minutes).
      const { rows } = await db.query<{ id: string; started_at: Date; status: string }>(`SELECT id, started_at, status FROM sync_runs`);
      // Throughput whatever the firing: every run that started in the window (late firings of earlier minutes, the setup's immediate runs).
      const startedInWindow = rows.filter((r) => r.started_at >= windowStart && r.started_at < windowEnd).length;
      const lags: number[] = [];
      const perMinute = new Map<string, number>();
      const lagsPerMinute = new Map<string, number[]>();
      let errors = 0;
      let unparsed = 0;
      for (const r of rows) {
        const m = SCHEDULED_AT.exec(r.id);
        if (!m) {
          unparsed++;
          continue;
        }
        const scheduledAt = new Date(m[1]!);
        // The run each schedule makes when created carries a time before the settle period; the
        // interval firings carry their nominal time (with the schedule's phase offset, if spread).
        if (scheduledAt < windowStart || scheduledAt >= windowEnd) continue;
        if (r.status === 'ERROR') errors++;
        lags.push(r.started_at.getTime() - scheduledAt.getTime());
        const minute = m[1]!.slice(0, 16);
        perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
        lagsPerMinute.set(minute, [...(lagsPerMinute.get(minute) ?? []), r.started_at.getTime() - scheduledAt.getTime()]);
      }
      // A few schedules' own counters: firings skipped because the previous run was still going,
      // or missed (the schedule itself more than the catch-up window late).
      let skippedOverlap = 0;
      let missedCatchup = 0;
      let sampled = 0;
      const catchupWindows = new Set<string>();
      const offsets: number[] = [];
      for (const c of ids.filter((_, i) => i % Math.max(1, Math.floor(connections / 10)) === 0).slice(0, 10)) {
        // A busy server can take minutes to answer: a gRPC deadline ends the call (and its retries).
        const d = await temporal.connection
          .withDeadline(Date.now() + 10_000, () => temporal.schedule.getHandle(syncScheduleOf(p.taskQueuePrefix, c)).describe())
          .catch(() => null);
        if (!d) continue;
        sampled++;
        skippedOverlap += d.info.numActionsSkippedOverlap;
        missedCatchup += d.info.numActionsMissedCatchupWindow;
        catchupWindows.add(String(d.policies.catchupWindow));
        const interval = d.spec.intervals?.[0];
        offsets.push(interval?.offset === undefined ? 0 : Number(interval.offset));
      }
      const expected = minutes * connections;
      const missing = Math.max(0, expected - lags.length);
      const lag = summarize(lags);
      const maxRss = Math.max(setupRss.maxMb, rssWindow.maxMb);
      const memory = readMemoryLog(memoryLog);
      const idleMemory = memoryAt(memory, 0, t0Wall).last;
      const setupMemory = memoryAt(memory, t0Wall, windowStart.getTime());
      const windowMemory = memoryAt(memory, windowStart.getTime(), Infinity);
      const complete = missing <= expected * 0.01;
      const result: BenchResult = {
        name: 'schedules',
        rows: [
          { metric: 'lag p99 (run start − scheduled)', switchyard: lag.p99 / 1000, floor: 0, unit: 's', goal: '< 10 s', met: lag.p99 < 10_000 && complete },
          { metric: 'lag p50', switchyard: lag.p50 / 1000, floor: 0, unit: 's' },
          { metric: 'lag max', switchyard: lag.max / 1000, floor: 0, unit: 's' },
          { metric: 'worker RSS max', switchyard: maxRss, floor: '', unit: 'MB', goal: '< 500 MB', met: maxRss < 500 },
          {
            metric: 'runs started / firings due',
            switchyard: lags.length,
            floor: expected,
            unit: 'runs',
            ratio: lags.length / expected,
            goal: 'all',
            met: complete,
          },
        ],
        details: {
          connections,
          minutes,
          setupSeconds: round(setupSeconds, 1),
          settleSeconds: round(settleSeconds, 0),
          settled,
          sweeperEligibleMax: Math.max(0, ...sweepable),
          settings: { ...knobs, temporalConfig: ctx.flags['temporal-config'] ?? null, workerEnv, workerNodeFlags: ctx.flags['worker-node-flags'] ?? null },
          windowStart: windowStart.toISOString(),
          expected,
          runsStarted: lags.length,
          startedInWindowAnyFiring: startedInWindow,
          missing,
          runErrors: errors,
          unparsedRunIds: unparsed,
          perMinute: Object.fromEntries([...perMinute].sort()),
          sample: { schedules: sampled, skippedOverlap, missedCatchupWindow: missedCatchup, catchupWindowMs: [...catchupWindows], offsetsMs: offsets },
          lagMs: Object.fromEntries(Object.entries(lag).map(([k, v]) => [k, round(v, 0)])),
          workerMemory: { idle: idleMemory, setupMax: setupMemory.max, windowMax: windowMemory.max, end: windowMemory.last },
          workerRssMb: {
            idle: round(idleRss, 0),
            afterSetup: round(setupRss.lastMb, 0),
            maxSetup: round(setupRss.maxMb, 0),
            maxWindow: round(rssWindow.maxMb, 0),
            end: round(rssWindow.lastMb, 0),
          },
          cpu: windowCpu,
          cpuMsPerRunStarted: Object.fromEntries(
            Object.entries(windowCpuByPart).map(([k, v]) => [k, startedInWindow ? round((1000 * v) / startedInWindow, 0) : null]),
          ),
        },
        notes: [
          `${connections} connections × ${minutes} min = ${expected} runs due; ${lags.length} started (${missing} never started: skipped, missed or still queued at the end + 15 s); ${errors} ended in error`,
          `runs that started in the window, whatever their firing: ${startedInWindow} (${(startedInWindow / (windowMs / 1000)).toFixed(1)}/s; ${connections} one-minute schedules need ${(connections / 60).toFixed(1)}/s)`,
          `lag percentiles are over the runs that started; a run that never started is counted in "runs started / firings due", not in the lag`,
          `sample of ${sampled} schedules (catch-up window ${[...catchupWindows].join('/')} ms, offsets ${offsets.map((o) => o / 1000).join(', ')} s): ${skippedOverlap} firings skipped (previous run still going), ${missedCatchup} missed (schedule later than its catch-up window), over each schedule's life`,
          `runs started per scheduled minute (lag p99): ${[...perMinute]
            .sort()
            .map(([k, v]) => `${k.slice(11, 16)} ${v} (${(summarize(lagsPerMinute.get(k)!).p99 / 1000).toFixed(1)} s)`)
            .join(', ')}`,
          `setup (creating the connections and their schedules): ${setupSeconds.toFixed(0)} s; then ${settled ? 'settled' : 'NOT settled'} (every connection checked, every immediate run started, the latest minute's firings started) in ${settleSeconds.toFixed(0)} s; at most ${Math.max(0, ...sweepable)} connections unchecked for > 15 s (the connection sweeper redoes up to 100 of them every 30 s)`,
          `observation window: ${windowCpu}`,
          `CPU per run started in the window (${startedInWindow}): ${['temporal', 'switchyard worker', 'postgres']
            .map((k) => `${k} ${startedInWindow ? ((1000 * (windowCpuByPart[k] ?? 0)) / startedInWindow).toFixed(0) : '-'} ms`)
            .join(', ')}`,
          `worker memory, idle (before any connection): ${formatMemory(idleMemory)}`,
          `worker memory, setup and settle (largest RSS): ${formatMemory(setupMemory.max)}`,
          `worker memory, window (largest RSS): ${formatMemory(windowMemory.max)}; at its end: ${formatMemory(windowMemory.last)}`,
          `workflow cache, setup and settle: ${formatWorkflowCache(memory, t0Wall, windowStart.getTime())}`,
          `workflow cache, window: ${formatWorkflowCache(memory, windowStart.getTime(), Infinity)}`,
          `worker RSS per 1,000 schedules over the window: ${(((rssWindow.maxMb - idleRss) * 1000) / connections).toFixed(0)} MB above the idle ${idleRss.toFixed(0)} MB`,
        ],
      };
      return [result];
    } finally {
      await worker?.stop();
      await apiProcess.stop();
      await api.close();
      await db.end().catch(() => undefined);
      // Our own dev server stops at the end of the run with its data; a configured one keeps its
      // schedules, so they are deleted there.
      if (process.env.TEMPORAL_ADDRESS) {
        ctx.say('schedules: deleting the schedules');
        await deleteSchedules(temporal, p.taskQueuePrefix, ids.slice(0, created + 8));
      }
      await temporal.connection.close().catch(() => undefined);
      await metabase.close();
    }
  },
};

async function deleteSchedules(temporal: Client, prefix: string, connectionIds: string[]): Promise<void> {
  const all = connectionIds.flatMap((c) => [syncScheduleOf(prefix, c), checkScheduleOf(prefix, c)]);
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
