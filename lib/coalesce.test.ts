import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coalescing } from './coalesce.js';

/** A batch runner whose batches finish when the test says so. */
function gated() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const run = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => gates.push(resolve));
    if (items.includes(-1)) throw new Error('batch failed');
    return items.map((i) => i * 10);
  };
  return { batches, open: () => gates.shift()!(), run };
}

test('coalescing: a lone call goes out at once; calls made while it runs go out together in the next batch', async () => {
  const g = gated();
  const call = coalescing(g.run);
  const first = call(1);
  assert.deepEqual(g.batches, [[1]]);
  const rest = [call(2), call(3), call(4)];
  await Promise.resolve();
  assert.deepEqual(g.batches, [[1]], 'the others wait for the batch in flight');
  g.open();
  assert.equal(await first, 10);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(g.batches, [[1], [2, 3, 4]]);
  g.open();
  assert.deepEqual(await Promise.all(rest), [20, 30, 40]);
});

test('coalescing: batches hold at most maxBatch items; a failed batch rejects its own callers only', async () => {
  const g = gated();
  const call = coalescing(g.run, 2);
  const a = call(1);
  const others = [call(-1), call(3), call(4)];
  g.open();
  await a;
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(g.batches, [[1], [-1, 3]]);
  g.open();
  await assert.rejects(others[0]!, /batch failed/);
  await assert.rejects(others[1]!, /batch failed/);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(g.batches, [[1], [-1, 3], [4]]);
  g.open();
  assert.equal(await others[2], 40);
});
