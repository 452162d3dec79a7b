/**
 * @module coalesce — group commit for concurrent callers: a call made while a batch is in flight
 * waits for it, then goes out in one batch with every other call made meanwhile. No timer: a lone
 * call goes out at once, and under load the batches grow by themselves. Each caller gets its own
 * item's result only once the batch holding it has finished (committed, for a database write).
 */

/** `run` gets the items of one batch and returns one result per item, in order. */
export function coalescing<I, O>(run: (items: I[]) => Promise<O[]>, maxBatch = 100): (item: I) => Promise<O> {
  let queue: { item: I; resolve: (o: O) => void; reject: (err: unknown) => void }[] = [];
  let running = false;
  const drain = async () => {
    running = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        const out = await run(batch.map((b) => b.item));
        if (out.length !== batch.length) throw new Error(`a batch of ${batch.length} returned ${out.length} results`);
        batch.forEach((b, i) => b.resolve(out[i]!));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    running = false;
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running) void drain();
    });
}

/** coalescing() with one queue per key (a database pool: its statements batch with each other, not with another pool's). */
export function coalescingPer<K extends object, I, O>(run: (key: K, items: I[]) => Promise<O[]>, maxBatch = 100): (key: K, item: I) => Promise<O> {
  const queues = new WeakMap<K, (item: I) => Promise<O>>();
  return (key, item) => {
    let queue = queues.get(key);
    if (!queue) queues.set(key, (queue = coalescing((items: I[]) => run(key, items), maxBatch)));
    return queue(item);
  };
}
