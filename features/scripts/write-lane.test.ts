import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WriteLane } from './write-lane.js';

const tick = () => new Promise((r) => setImmediate(r));

/** A write that finishes when told to, recording when it started and ended. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return {
    write: async () => {
      log.push(`${name} start`);
      await done;
      log.push(`${name} end`);
    },
    open,
  };
}

test('queued writes run one at a time, in order; enqueue returns before the write happens', async () => {
  const lane = new WriteLane();
  const log: string[] = [];
  const page = gate(log, 'page 1');
  lane.enqueue(page.write);
  lane.enqueue(async () => void log.push('position 2'));
  const read = lane.run(async () => (log.push('checkpoint read'), 'cp'));
  await tick();
  // The position and the read wait for the page in flight.
  assert.deepEqual(log, ['page 1 start']);
  page.open();
  assert.equal(await read, 'cp');
  assert.deepEqual(log, ['page 1 start', 'page 1 end', 'position 2', 'checkpoint read']);
  await lane.drain();
});

test("a queued write's failure skips the writes behind it and is thrown by every later call and by drain", async () => {
  const lane = new WriteLane();
  const log: string[] = [];
  lane.enqueue(async () => {
    throw new Error('connection terminated');
  });
  lane.enqueue(async () => void log.push('position after the failed page'));
  await assert.rejects(lane.drain(), /connection terminated/);
  // The position that would have claimed the failed page as stored was never written.
  assert.deepEqual(log, []);
  assert.throws(() => lane.enqueue(async () => undefined), /connection terminated/);
  await assert.rejects(
    lane.run(async () => 'x'),
    /connection terminated/,
  );
});

test('run answers with its own result or error; its failure does not stop the lane (the caller has seen it)', async () => {
  const lane = new WriteLane();
  await assert.rejects(
    lane.run(async () => {
      throw new Error('unique violation');
    }),
    /unique violation/,
  );
  assert.equal(await lane.run(async () => 42), 42);
  await lane.drain();
});
