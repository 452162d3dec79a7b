/**
 * @module features/scripts/write-marks — the durable half of the write policy (lib/http/retry-policy)
 * for script runs. A write without an Idempotency-Key is marked in Postgres before it leaves; the mark
 * is taken back only when the request provably never reached the provider (a 429, a refused
 * connection). Any later attempt of the same run (Temporal's retry after a failure, or after the
 * worker died mid-request) finds the mark and must not run the script again, since the script would
 * send that write a second time. One mark per run: the first write that may have landed.
 */
import type { Queryable } from '../../lib/db/pool.js';

export interface UnkeyedWrite {
  method: string;
  endpoint: string;
}

/** Marks older than this are pruned: no attempt of a run is retried that late. */
export const WRITE_MARK_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** The marks of one run (`runKey`), for one attempt. Calls may overlap: they are applied in order. */
export class WriteMarks {
  /** The first write of this attempt that may have reached the provider. */
  landed: UnkeyedWrite | undefined;
  private inFlight = 0;
  private marked = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Queryable,
    readonly runKey: string,
  ) {}

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Before an unkeyed write leaves: resolves once the mark is stored (a database failure stops the write). */
  before(write: UnkeyedWrite): Promise<void> {
    return this.serial(async () => {
      this.inFlight++;
      if (this.marked) return;
      try {
        await this.db.query('INSERT INTO script_write_marks (run_key, method, endpoint) VALUES ($1, $2, $3) ON CONFLICT (run_key) DO NOTHING', [
          this.runKey,
          write.method,
          write.endpoint.slice(0, 2048),
        ]);
      } catch (err) {
        this.inFlight--;
        throw err;
      }
      this.marked = true;
    });
  }

  /** After the write: `mayHaveLanded` false only when it provably never reached the provider. */
  after(write: UnkeyedWrite, mayHaveLanded: boolean): Promise<void> {
    return this.serial(async () => {
      this.inFlight--;
      if (mayHaveLanded) {
        this.landed ??= write;
        return;
      }
      if (this.landed || this.inFlight > 0 || !this.marked) return;
      await this.db.query('DELETE FROM script_write_marks WHERE run_key = $1', [this.runKey]);
      this.marked = false;
    });
  }
}

/**
 * Opens the marks of a run for a new attempt. `previous` is the write an earlier attempt marked (it
 * may have landed): the caller must not run the script again.
 */
export async function openWriteMarks(db: Queryable, runKey: string): Promise<{ marks: WriteMarks; previous: UnkeyedWrite | null }> {
  const { rows } = await db.query<UnkeyedWrite>('SELECT method, endpoint FROM script_write_marks WHERE run_key = $1', [runKey]);
  return { marks: newWriteMarks(db, runKey), previous: rows[0] ?? null };
}

/** The marks of a run's first attempt: no earlier attempt can have marked a write. */
export function newWriteMarks(db: Queryable, runKey: string): WriteMarks {
  return new WriteMarks(db, runKey);
}

export async function pruneWriteMarks(db: Queryable, olderThan: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM script_write_marks WHERE marked_at < $1', [olderThan]);
  return rowCount ?? 0;
}
