/**
 * @module chunk-pool — fixed-size buffers handed out and taken back, so that a process writing many
 * large answers reuses their memory instead of allocating it anew each time. Each large allocation
 * counts as external memory to V8, and enough of it starts a full mark of the heap: in a process that
 * also holds a sync's heap, that was most of `GET /records`' GC (bench/RESULTS.md, issue 32 records read).
 *
 * A buffer must come back only once nothing reads it any more (for a socket write, in its callback):
 * the next `take` may hand it to another writer.
 */
export class ChunkPool {
  private readonly free: ArrayBuffer[] = [];

  constructor(
    /** Bytes of every buffer `take` hands out. */
    readonly size: number,
    /** Buffers kept for reuse at most; more given back are left to the GC. */
    private readonly keep: number,
  ) {}

  /** A buffer of `size` bytes, contents undefined. */
  take(): Buffer {
    const free = this.free.pop();
    return free ? Buffer.from(free) : Buffer.allocUnsafeSlow(this.size);
  }

  /** Gives back a buffer `take` handed out (or a view of one); other buffers are ignored. */
  give(chunk: Buffer): void {
    const memory = chunk.buffer;
    if (memory.byteLength !== this.size || !(memory instanceof ArrayBuffer) || this.free.length >= this.keep) return;
    if (this.free.includes(memory)) throw new Error('a chunk given back twice');
    this.free.push(memory);
  }

  /** Buffers held for reuse (tests). */
  get held(): number {
    return this.free.length;
  }
}
