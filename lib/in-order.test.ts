import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inOrder } from './in-order.js';

test('inOrder: each write starts after the one before settled, so they land in call order even when a later one is faster', async () => {
  const landed: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const writes = inOrder(async (n: number) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, n === 1 ? 20 : 1));
    landed.push(n);
    inFlight--;
  });
  for (const n of [1, 2, 3]) writes.push(n);
  await writes.flushed();
  assert.deepEqual(landed, [1, 2, 3]);
  assert.equal(maxInFlight, 1);
});

test('inOrder: a failed write is left out and the ones after it still land; flushed() does not reject', async () => {
  const landed: number[] = [];
  const writes = inOrder(async (n: number) => {
    if (n === 2) throw new Error('write failed');
    landed.push(n);
  });
  for (const n of [1, 2, 3]) writes.push(n);
  await writes.flushed();
  assert.deepEqual(landed, [1, 3]);
});

test('inOrder: flushed() waits for writes pushed before it was called', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let done = false;
  const writes = inOrder(async () => {
    await gate;
    done = true;
  });
  writes.push(0);
  const flushed = writes.flushed();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(done, false);
  release();
  await flushed;
  assert.equal(done, true);
});
