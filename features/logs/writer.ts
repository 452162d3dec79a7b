/**
 * @module features/logs/writer — the request log's writes, off the path of the calls they record:
 * entries are kept in memory and written together (one INSERT per batch) when `batchSize` of them
 * are waiting or `flushMs` after the first one arrived, whichever comes first; `flush()` writes
 * what is waiting now (a reader of this process's log calls it first), `close()` writes everything
 * at a clean stop. On a crash, what was waiting is lost: at most the last `flushMs` of calls, and
 * never more than `batchSize` entries plus the batch being written (more only while writes lag behind
 * the calls: up to `maxQueued`, beyond which new entries are dropped and counted). docs/operations.md
 * (Observability) states these bounds.
 */
import type { Queryable } from '../../lib/db/pool.js';
import type { RequestLogEntry, RequestLogSink } from '../../lib/http/provider-client.js';
import { insertRequestLog, insertRequestLogs } from './store.js';

export interface RequestLogWriterOptions {
  /** The longest an entry waits before its batch is written. */
  flushMs?: number;
  /** A batch is written as soon as this many entries wait; also the most rows per INSERT. */
  batchSize?: number;
  /** The most entries kept while writes fail or lag; beyond it entries are dropped (and reported). */
  maxQueued?: number;
  report?: (message: string) => void;
}

export interface RequestLogWriter {
  /** For the provider HTTP client: queues the entry and returns at once. */
  sink: RequestLogSink;
  /** Resolves once every entry queued before the call is written (or its write failed). */
  flush(): Promise<void>;
  /** Writes what is queued; entries that arrive later are written one by one, at once. */
  close(): Promise<void>;
}

const FLUSH_MS = 100;
const BATCH = 500;
/** About 2 s of calls at the proxy's rate on a 2-core machine, a few MB of entries. */
const MAX_QUEUED = 20_000;

export function requestLogWriter(db: Queryable, opts: RequestLogWriterOptions = {}): RequestLogWriter {
  const flushMs = opts.flushMs ?? FLUSH_MS;
  const batchSize = opts.batchSize ?? BATCH;
  const maxQueued = opts.maxQueued ?? MAX_QUEUED;
  const report = opts.report ?? ((message: string) => console.error(`[switchyard] ${message}`));
  const failed = (err: unknown) => report(`could not write the request log: ${err instanceof Error ? err.message : String(err)}`);

  let queue: RequestLogEntry[] = [];
  let timer: NodeJS.Timeout | null = null;
  let draining: Promise<void> | null = null;
  let closed = false;
  let dropped = 0;
  /** Entries queued so far, those written (or given up on), and how far a timer or flush wants them written. */
  let queued = 0;
  let settled = 0;
  let writeUpTo = 0;
  const waiters: { upTo: number; resolve: () => void }[] = [];

  async function write(batch: RequestLogEntry[]): Promise<void> {
    try {
      await insertRequestLogs(db, batch);
    } catch (err) {
      // One bad entry loses only itself.
      if (batch.length === 1) failed(err);
      else for (const entry of batch) await insertRequestLog(db, entry).catch(failed);
    }
  }

  /** Full batches, and a partial one when its timer fired, a flush waits for it, or the writer is closed. */
  const due = () => queue.length >= batchSize || (queue.length > 0 && (settled < writeUpTo || closed));

  async function drain(): Promise<void> {
    while (due()) {
      const batch = queue.length <= batchSize ? queue : queue.slice(0, batchSize);
      queue = queue.length <= batchSize ? [] : queue.slice(batchSize);
      await write(batch);
      settled += batch.length;
      for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i]!.upTo <= settled) waiters.splice(i, 1)[0]!.resolve();
    }
  }

  function writeNow(): void {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (draining) return;
    draining = drain().finally(() => {
      draining = null;
      if (dropped > 0) {
        report(`request log: ${dropped} entries dropped while ${maxQueued} were waiting to be written`);
        dropped = 0;
      }
      if (due()) writeNow();
      else if (queue.length > 0) schedule();
    });
  }

  function schedule(): void {
    if (timer || draining) return;
    timer = setTimeout(() => {
      timer = null;
      writeUpTo = queued;
      writeNow();
    }, flushMs);
    timer.unref();
  }

  function flush(): Promise<void> {
    if (settled >= queued) return Promise.resolve();
    writeUpTo = queued;
    const done = new Promise<void>((resolve) => waiters.push({ upTo: queued, resolve }));
    writeNow();
    return done;
  }

  return {
    sink(entry) {
      if (queue.length >= maxQueued) {
        dropped++;
        return;
      }
      queue.push(entry);
      queued++;
      if (due()) writeNow();
      else schedule();
    },
    flush,
    close() {
      closed = true;
      return flush();
    },
  };
}
