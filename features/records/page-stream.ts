/**
 * @module features/records/page-stream — a `GET /records` page's bytes while they are written: chunks
 * handed on as they fill, to a sink attached before the first chunk or after the last. Streaming
 * lets PostgreSQL producing the page, the API copying it and the client reading it overlap, where a
 * whole page written at its end made them wait for one another (bench/RESULTS.md, issue 32 records read).
 *
 * Chunks come from a pool and go back to it once the sink says their bytes are written out; a page
 * nobody sends (`discard`) gives its chunks back at once.
 */
import { ChunkPool } from '../../lib/chunk-pool.js';

/** The chunks of every page of this process: 128 KB each, up to 8 MB kept for reuse. */
export const pageChunks = new ChunkPool(128 * 1024, 64);

export interface PageSink {
  /** Bytes of the page, in order; `written` once they are out (the chunk then goes back to the pool). */
  chunk(bytes: Buffer, written: () => void): void;
  end(): void;
  /** The page failed after some of its bytes went to `chunk`: the receiver must not take it for whole. */
  fail(err: Error): void;
}

type State = 'writing' | 'ended' | 'failed' | 'discarded';

export class PageStream {
  private state: State = 'writing';
  private held: Buffer[] = [];
  private sink: PageSink | null = null;
  private error: Error | null = null;
  private wake: (() => void) | null = null;
  /** Bytes written so far (the whole page's once `ended`). */
  length = 0;
  count = 0;
  nextCursor: string | null = null;
  /** A page not attached to a sink is discarded once it holds more bytes than this. */
  holdAtMost = Infinity;
  /** Settles once no more bytes will come (ended, failed or discarded); never rejects. */
  readonly finished: Promise<void>;
  private settle!: () => void;

  constructor() {
    this.finished = new Promise((resolve) => (this.settle = resolve));
  }

  get ended(): boolean {
    return this.state === 'ended';
  }

  get failed(): boolean {
    return this.state === 'failed';
  }

  get discarded(): boolean {
    return this.state === 'discarded';
  }

  /** Resolves once the page has bytes to send or no more will come; rejects when it failed before its first byte. */
  ready(): Promise<void> {
    if (this.state === 'failed' && this.length === 0) return Promise.reject(this.error!);
    if (this.length > 0 || this.state !== 'writing') return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.wake = () => (this.state === 'failed' && this.length === 0 ? reject(this.error!) : resolve());
    });
  }

  /** The writer's next bytes; the stream owns `bytes` from now on. */
  push(bytes: Buffer): void {
    if (this.state === 'discarded') return pageChunks.give(bytes);
    this.length += bytes.length;
    if (this.sink) this.sink.chunk(bytes, () => pageChunks.give(bytes));
    else if (this.length > this.holdAtMost) this.discard();
    else this.held.push(bytes);
    this.poke();
  }

  end(count: number, nextCursor: string | null): void {
    if (this.state !== 'writing') return;
    this.state = 'ended';
    this.count = count;
    this.nextCursor = nextCursor;
    this.sink?.end();
    this.poke();
    this.settle();
  }

  fail(err: Error): void {
    if (this.state !== 'writing') return;
    this.state = 'failed';
    this.error = err;
    this.sink?.fail(err);
    this.poke();
    this.settle();
  }

  /** Hands the page to `sink`: the bytes written so far at once, the rest as they come, then its end (or failure). */
  pipe(sink: PageSink): void {
    if (this.sink) throw new Error('a page is sent once');
    if (this.state === 'discarded') throw new Error('a discarded page is not sent');
    this.sink = sink;
    const held = this.held;
    this.held = [];
    for (const bytes of held) sink.chunk(bytes, () => pageChunks.give(bytes));
    if (this.state === 'ended') sink.end();
    else if (this.state === 'failed') sink.fail(this.error!);
  }

  /** The whole page in one buffer, once it has ended (tests and the bare `app.fetch` path); rejects when it failed. */
  async collect(): Promise<Buffer> {
    const parts: Buffer[] = [];
    this.pipe({ chunk: (bytes) => parts.push(bytes), end() {}, fail() {} });
    await this.finished;
    if (this.error) throw this.error;
    const whole = Buffer.concat(parts);
    for (const bytes of parts) pageChunks.give(bytes);
    return whole;
  }

  /** For a page nobody will send: its chunks go back to the pool, and those still to come as they come. */
  discard(): void {
    if (this.sink) throw new Error('a page being sent is not discarded');
    for (const bytes of this.held) pageChunks.give(bytes);
    this.held = [];
    const writing = this.state === 'writing';
    this.state = 'discarded';
    if (!writing) return;
    this.poke();
    this.settle();
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
