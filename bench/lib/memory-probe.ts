/**
 * @module bench/lib/memory-probe — where a benchmarked process's memory is: every few seconds one
 * JSON line with its RSS, the main thread's V8 heap, each worker thread's heap (the Temporal SDK
 * runs workflows in worker threads) and the rest (native: Temporal's core, isolated-vm, malloc).
 * Started by platform-main when BENCH_MEMORY_LOG names a file; read back with readMemoryLog.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import type { Worker } from 'node:worker_threads';

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
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export function startMemoryProbe(file: string, everyMs = 5000): () => void {
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
    };
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
  return `RSS ${s.rssMb} MB = main heap ${s.mainHeapTotalMb} (used ${s.mainHeapUsedMb}) + ${s.threads} workflow thread heaps ${s.threadsHeapTotalMb} (used ${s.threadsHeapUsedMb}) + native ${s.nativeMb} (of which V8 external/malloc ${s.externalMb})`;
}
