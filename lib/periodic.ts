/**
 * @module periodic — runs a background pass on an interval, never two at once, without keeping the
 * process alive. The sweepers (deliveries, connections, action runs) share it.
 */
/** Calls `pass` every `intervalMs` (skipped while the previous pass runs); a failure is logged as `what`. Returns the stop function. */
export function runPeriodically(
  pass: () => Promise<unknown>,
  intervalMs: number,
  log: { warn(obj: object, msg: string): void } | undefined,
  what: string,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pass()
      .catch((err: unknown) => log?.warn({ err }, `${what} failed`))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
