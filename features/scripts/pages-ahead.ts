/**
 * @module features/scripts/pages-ahead — the pages a sync run queues ahead of its stored-hashes read.
 * A page the last run saved (its digest noted) is checked against the model's stored hashes; while
 * that read is still under way (a run's start: ~0.3–0.4 s for 100k records), batchSave queues the
 * check on the run's write lane with a copy of the page instead of waiting, so the script goes on
 * fetching. The copies are held until their check runs: at most `maxBytes` of them at once; beyond
 * that, batchSave waits as it does once the read is done.
 */
export class PagesAhead {
  private held = 0;

  constructor(private readonly maxBytes: number) {}

  /** Takes `bytes` for a queued page when they fit; the caller gives them back (release) once its check has run. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.held -= bytes;
  }
}

/** 32 pages of 1,000 records of ~1 KB. */
export const PAGES_AHEAD_MAX_BYTES = 32 * 1024 * 1024;
