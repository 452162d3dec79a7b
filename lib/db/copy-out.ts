/**
 * @module db/copy-out — `COPY (…) TO STDOUT (FORMAT binary)` on a pool or client, its rows handed over
 * as the bytes PostgreSQL sent. node-postgres decodes every value of a SELECT into a JS string; a
 * reader that only passes values on as bytes (the records page) pays that decode and the encode back
 * for nothing. In binary COPY a text value is its UTF-8 bytes, unescaped, after its length.
 *
 * COPY takes no bind parameters, so `inlineParams` writes a `pageQuery`'s values into its text as
 * literals: integers, strings (escaped by node-postgres' escapeLiteral) and arrays of strings only.
 */
import pg from 'pg';
import type { Queryable } from './pool.js';

type Callback = (err: Error | null, result?: null) => void;

/** The COPY as a node-postgres Submittable: the client calls these handlers with the server's messages. */
class CopyOutQuery implements pg.Submittable {
  /** Set by the pool (its release) or left unset by a bare client; called once. */
  callback?: Callback;
  private failed: Error | null = null;
  private done = false;

  constructor(
    private readonly text: string,
    private readonly onData: (message: Buffer) => void,
    private readonly settle: (err: Error | null) => void,
  ) {}

  submit(connection: pg.Connection): void {
    (connection as unknown as { query(text: string): void }).query(this.text);
  }

  handleCopyData(msg: { chunk: Buffer }): void {
    if (this.failed) return;
    try {
      this.onData(msg.chunk);
    } catch (err) {
      this.failed = err instanceof Error ? err : new Error(String(err));
    }
  }

  handleCopyInResponse(connection: pg.Connection): void {
    (connection as unknown as { sendCopyFail(msg: string): void }).sendCopyFail('not a COPY FROM');
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}

  handleError(err: Error): void {
    this.finish(err);
  }

  handleReadyForQuery(): void {
    this.finish(this.failed);
  }

  private finish(err: Error | null): void {
    if (this.done) return;
    this.done = true;
    this.callback?.(err, null);
    this.settle(err);
  }
}

/**
 * Runs `text` (a `COPY … TO STDOUT`) and hands each CopyData message to `onData`, in order. The
 * buffer is the driver's: copy what you keep before returning. An error thrown by `onData` fails
 * the COPY once the server has finished it.
 */
export function copyOut(db: Queryable, text: string, onData: (message: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const q = new CopyOutQuery(text, onData, (err) => (err ? reject(err) : resolve()));
    // A pool answers with a promise of its own, which also fails when no connection could be had.
    const answer: unknown = db.query(q);
    if (answer instanceof Promise) answer.catch(reject);
  });
}

function literal(value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return `ARRAY[${value.map((v) => pg.escapeLiteral(v)).join(',')}]::text[]`;
  throw new TypeError(`no literal for a ${typeof value} in a COPY`);
}

/** The statement with each `$n` replaced by the literal of `values[n - 1]` (the text itself must hold no `$n` in a string). */
export function inlineParams(text: string, values: unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= values.length) throw new RangeError(`no value for $${n}`);
    return literal(values[i]);
  });
}
