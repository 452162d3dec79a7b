/**
 * @module bench/lib/load — closed-loop load: `concurrency` callers each issue one call after another,
 * for a number of calls or a duration. Records each call's latency; failures are counted, not thrown.
 */
export interface LoadResult {
  calls: number;
  errors: number;
  firstError?: string;
  seconds: number;
  perSecond: number;
  latenciesMs: number[];
}

export async function closedLoop(call: () => Promise<void>, opts: { concurrency: number; calls?: number; durationMs?: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let issued = 0;
  const started = performance.now();
  const deadline = opts.durationMs === undefined ? Infinity : started + opts.durationMs;
  const more = () => (opts.calls === undefined || issued < opts.calls) && performance.now() < deadline;
  const lane = async () => {
    while (more()) {
      issued++;
      const t0 = performance.now();
      try {
        await call();
        latencies.push(performance.now() - t0);
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  return { calls: latencies.length, errors, firstError, seconds, perSecond: latencies.length / seconds, latenciesMs: latencies };
}
