/**
 * The worker's young generation and its old space's growth are bounded (lib/heap.ts, issue 32): Node 24 lets each isolate's
 * new space grow to 128 MB, which the worker's main thread and workflow threads each reached under
 * 1,000 one-minute schedules. Each test allocates garbage in a fresh isolate and reads how large its
 * new space became.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { boundWorkflowThreadHeaps, oldSpaceGrowingPercent, SEMI_SPACE_MB, setOldSpaceGrowth } from '../lib/heap.js';

const BOUND_MB = 32;
// Allocates ~200 MB of short-lived objects (a few survive), then prints the new space's size in MB.
const CHURN = `
const v8 = require('node:v8');
const keep = [];
for (let r = 0; r < 200; r++) { const a = []; for (let i = 0; i < 20000; i++) a.push({ i, s: 'x' + i }); if (r % 20 === 0) keep.push(a); }
const size = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;
`;

describe('the worker bounds its young generation and the growth of its old space', () => {
  test('`npm run worker` and `npm start` start node with a new space of at most 32 MB', () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['worker', 'start']) {
      const words = scripts[name]!.split(' ');
      assert.equal(words[0], 'node');
      const flags = words.slice(1, words.indexOf('--import'));
      const size = Number(execFileSync(process.execPath, [...flags, '-e', `${CHURN}; console.log(size)`], { encoding: 'utf8' }).trim());
      assert.ok(size <= BOUND_MB, `npm run ${name}: new space grew to ${size} MB`);
    }
  });

  test("once a worker-only process has bounded its old space's growth, promoted garbage grows a thread's old space less far (under 85%)", async () => {
    // ~20 MB live, then 3,000 batches that each outlive a few scavenges (promoted) before they are
    // dropped; the thread reports its old space's largest size. Run once before the bound and once
    // after, so both see the same machine.
    const promoting = `
const v8 = require('node:v8');
const live = []; for (let i = 0; i < 300000; i++) live.push({ i, s: 'x' + i });
const ring = []; let peak = 0;
for (let r = 0; r < 3000; r++) {
  const a = []; for (let i = 0; i < 3000; i++) a.push({ i, s: 'y' + i });
  ring.push(a); if (ring.length > 50) ring.shift();
  if (r % 10 === 0) peak = Math.max(peak, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size / 2 ** 20);
}
require('node:worker_threads').parentPort.postMessage(peak);`;
    const oldSpacePeak = async () => {
      const thread = new Worker(promoting, { eval: true });
      const peak = await new Promise<number>((resolve, reject) => {
        thread.once('message', resolve);
        thread.once('error', reject);
      });
      await thread.terminate();
      return peak;
    };
    // The young generation as bounded, so the growing factor is all that differs.
    setFlagsFromString(`--max-semi-space-size=${SEMI_SPACE_MB}`);
    const before = await oldSpacePeak();
    setOldSpaceGrowth({ api: false, worker: true });
    const after = await oldSpacePeak();
    assert.ok(after < before * 0.85, `the old space grew to ${after.toFixed(0)} MB after the bound, ${before.toFixed(0)} MB before`);
  });

  // The API's fixed factor keeps V8 from lowering it to 1.1 (full collections every 150–250 ms in GET /records); the worker-only process keeps its bound.
  test('a process that serves the API grows its old space by a fixed 2x, a worker-only process by its bound, a process that runs neither is left alone', () => {
    assert.equal(oldSpaceGrowingPercent({ api: true, worker: false }), 100);
    assert.equal(oldSpaceGrowingPercent({ api: true, worker: true }), 100);
    assert.equal(oldSpaceGrowingPercent({ api: false, worker: true }), 50);
    assert.equal(oldSpaceGrowingPercent({ api: false, worker: false }), null);
  });

  test('a workflow thread started after startWorkers has bounded the heaps gets a new space of at most 32 MB', async () => {
    boundWorkflowThreadHeaps();
    const thread = new Worker(`${CHURN}; require('node:worker_threads').parentPort.postMessage(size)`, { eval: true });
    const size = await new Promise<number>((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
    });
    await thread.terminate();
    assert.ok(size <= BOUND_MB, `the thread's new space grew to ${size} MB`);
  });
});
