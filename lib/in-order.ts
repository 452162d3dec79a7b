/**
 * @module in-order — fire-and-forget writes that land in the order they were made. Two appends in
 * flight on different pool connections can commit out of order, so each write starts only after the
 * one before has settled. A write that fails is left out (a log line is not worth failing a run for);
 * `flushed()` resolves once every write made so far has settled, for a caller that must not answer
 * before they are stored.
 */
export function inOrder<T>(write: (item: T) => Promise<unknown>): { push(item: T): void; flushed(): Promise<void> } {
  let tail: Promise<void> = Promise.resolve();
  return {
    push(item) {
      tail = tail
        .then(() => write(item))
        .then(
          () => undefined,
          () => undefined,
        );
    },
    flushed: () => tail,
  };
}
