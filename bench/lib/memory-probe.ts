/**
 * @module bench/lib/memory-probe — where a benchmarked process's memory is: every few seconds one
 * JSON line with its RSS, the main thread's V8 heap, each worker thread's heap (the Temporal SDK
 * runs workflows in worker threads) and the rest (native: Temporal's core, isolated-vm, malloc).
 * Started by platform-main when BENCH_MEMORY_LOG names a file; read back with readMemoryLog. With
 * Temporal's metrics buffered, each line also has the workflow cache's size and running totals of
 * its hits, misses and forced evictions, and of the replay time of workflow tasks rebuilt from history.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import type { MetricsBuffer } from '@temporalio/worker';

export interface MemorySample {
  /** ms since the epoch */
  t: number;
  rssMb: number;
  mainHeapUsedMb: number;
  mainHeapTotalMb: number;
  threads: number;
  threadsHeapUsedMb: number;
  threadsHeapTotalMb: number;
  /** V8's malloc'd memory and external (Buffer, ArrayBuffer) memory of the main thread. */
  externalMb: number;
  /** RSS minus every V8 heap: native code and data (Temporal's core, isolated-vm, pg, malloc arenas). */
  nativeMb: number;
  /** Runs in the Temporal workers' caches (absent until the workers start). */
  cachedWorkflows?: number;
  /** Totals since the start of Temporal core's cache and workflow-task metrics (`_sum` / `_count` of a histogram, in ms). */
  temporal?: Record<string, number>;
}

/** The core metrics that tell what the workflow cache costs (names without the `temporal_` prefix). */
const CACHE_METRICS = /sticky_cache|workflow_task_replay_latency|workflow_task_execution_latency|workflow_activation_execution_latency/;

function metricTotals(buffer: MetricsBuffer, totals: Record<string, number>): void {
  for (const u of buffer.retrieveUpdates()) {
    const name = u.metric.name.replace(/^temporal_/, '');
    if (!CACHE_METRICS.test(name)) continue;
    if (u.metric.kind === 'counter') totals[name] = (totals[name] ?? 0) + u.value;
    else if (u.metric.kind === 'histogram') {
      totals[`${name}_sum`] = (totals[`${name}_sum`] ?? 0) + u.value;
      totals[`${name}_count`] = (totals[`${name}_count`] ?? 0) + 1;
    } else totals[name] = u.value;
  }
}

export interface ProbeSources {
  /** Temporal's core metrics, installed on the process's runtime (worker/index.ts installQuietRuntime). */
  metrics?: MetricsBuffer;
  /** The workers' cache size once they run. */
  cachedWorkflows?: () => number | undefined;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export function startMemoryProbe(file: string, sources: ProbeSources = {}, everyMs = 5000): () => void {
  const totals: Record<string, number> = {};
  const threads = new Set<Worker>();
  process.on('worker', (w: Worker) => {
    threads.add(w);
    w.once('exit', () => threads.delete(w));
  });
  const take = async () => {
    const stats = await Promise.all([...threads].map((w) => w.getHeapStatistics().catch(() => null)));
    const live = stats.filter((s) => s !== null);
    const main = getHeapStatistics();
    const usage = process.memoryUsage();
    const threadsTotal = live.reduce((n, s) => n + s.total_heap_size, 0);
    const sample: MemorySample = {
      t: Date.now(),
      rssMb: mb(usage.rss),
      mainHeapUsedMb: mb(main.used_heap_size),
      mainHeapTotalMb: mb(main.total_heap_size),
      threads: live.length,
      threadsHeapUsedMb: mb(live.reduce((n, s) => n + s.used_heap_size, 0)),
      threadsHeapTotalMb: mb(threadsTotal),
      externalMb: mb(usage.external + main.malloced_memory),
      nativeMb: mb(usage.rss - main.total_heap_size - threadsTotal),
      cachedWorkflows: sources.cachedWorkflows?.(),
    };
    if (sources.metrics) {
      metricTotals(sources.metrics, totals);
      sample.temporal = { ...totals };
    }
    appendFileSync(file, JSON.stringify(sample) + '\n');
  };
  const timer = setInterval(() => void take().catch(() => undefined), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

export function readMemoryLog(file: string): MemorySample[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as MemorySample);
  } catch {
    return [];
  }
}

/** The sample with the largest RSS in [from, to), and the last one. */
export function memoryAt(samples: MemorySample[], from: number, to: number): { max: MemorySample | null; last: MemorySample | null } {
  const inside = samples.filter((s) => s.t >= from && s.t < to);
  return {
    max: inside.reduce<MemorySample | null>((m, s) => (!m || s.rssMb > m.rssMb ? s : m), null),
    last: inside[inside.length - 1] ?? null,
  };
}

export function formatMemory(s: MemorySample | null): string {
  if (!s) return 'no sample';
  const cache = s.cachedWorkflows === undefined ? '' : `; ${s.cachedWorkflows} workflow runs cached`;
  return `RSS ${s.rssMb} MB = main heap ${s.mainHeapTotalMb} (used ${s.mainHeapUsedMb}) + ${s.threads} workflow thread heaps ${s.threadsHeapTotalMb} (used ${s.threadsHeapUsedMb}) + native ${s.nativeMb} (of which V8 external/malloc ${s.externalMb})${cache}`;
}

/** What the workflow cache did between two samples: its largest size, and its metrics' increase. */
export function formatWorkflowCache(samples: MemorySample[], from: number, to: number): string {
  const inside = samples.filter((s) => s.t >= from && s.t < to);
  const first = samples.filter((s) => s.t < from).at(-1) ?? inside[0];
  const last = inside.at(-1);
  if (!first || !last) return 'no sample';
  const sizes = inside.map((s) => s.cachedWorkflows).filter((n) => n !== undefined);
  const delta = (name: string) => (last.temporal?.[name] ?? 0) - (first.temporal?.[name] ?? 0);
  const perTask = (name: string) => (delta(`${name}_count`) ? (delta(`${name}_sum`) / delta(`${name}_count`)).toFixed(1) : '-');
  return [
    `largest ${sizes.length ? Math.max(...sizes) : '?'} runs cached`,
    `${delta('sticky_cache_hit')} hits, ${delta('sticky_cache_miss')} misses, ${delta('sticky_cache_total_forced_eviction')} forced evictions`,
    `${delta('workflow_task_replay_latency_count')} workflow tasks replayed, ${(delta('workflow_task_replay_latency_sum') / 1000).toFixed(1)} s (${perTask('workflow_task_replay_latency')} ms each)`,
    `${delta('workflow_task_execution_latency_count')} workflow tasks run, ${(delta('workflow_task_execution_latency_sum') / 1000).toFixed(1)} s (${perTask('workflow_task_execution_latency')} ms each)`,
  ].join('; ');
}
