/**
 * @module features/scripts/write-lane — a sync run's writes, in order, one page behind the script:
 * Postgres commits page N while the script fetches, validates and hashes page N+1.
 *
 * Every write starts only after the one before it has committed, so a page position or checkpoint
 * saved after a page never reaches Postgres before that page's records: a run resumed after a crash
 * starts from a position whose earlier pages are all stored, as when each save was awaited. At most
 * one page waits behind the write in flight (the caller drains before queueing the next). A queued
 * write's failure is kept: every later call and `drain()` throw it, so a run never ends as a success
 * past a write that did not happen.
 */
export class WriteLane {
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  /** Queues `write` behind the others; returns at once. Its failure is thrown by the next call. */
  enqueue(write: () => Promise<unknown>): void {
    this.throwIfFailed();
    this.tail = this.tail.then(async () => {
      if (this.failure) return;
      try {
        await write();
      } catch (error) {
        this.failure = { error };
      }
    });
  }

  /** Runs `write` after everything queued before it, and answers with its result (or error). */
  run<T>(write: () => Promise<T>): Promise<T> {
    const result = this.tail.then(() => {
      this.throwIfFailed();
      return write();
    });
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves once every queued write has committed; throws the first queued write's failure. */
  async drain(): Promise<void> {
    await this.tail;
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
