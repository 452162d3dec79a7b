/**
 * @module test/wait — polling until something shows up, for every test (re-exported by
 * test/harness.ts; imported directly by tests that spawn their own processes instead of a platform).
 */

export interface WaitOptions {
  /** Pause between two probes (default 200 ms). */
  everyMs?: number;
  /** A probe that throws counts as not yet (default: the error fails the wait). */
  ignoreErrors?: boolean;
  /** More to say in the timeout error, e.g. the output of a process. */
  detail?: () => string;
}

/** Polls probe until it returns a truthy value, and returns that; throws `timed out waiting for <what>` after timeoutMs. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 60_000,
  opts: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = opts.ignoreErrors
      ? await Promise.resolve()
          .then(probe)
          .catch(() => undefined)
      : await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${opts.detail ? `\n${opts.detail()}` : ''}`);
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 200));
  }
}
