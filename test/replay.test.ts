/**
 * Replays every committed workflow history (binary protobuf) in test/histories/ against the current
 * workflow code: a change that breaks determinism for workflows already running fails here. The
 * histories were recorded by earlier code (test/record-histories.ts), never by this run, and every
 * workflow type must have at least one.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import protos from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowTypes } from './workflow-types.js';

const proto = protos.temporal;
const DIR = path.join('test', 'histories');

async function committedHistories(): Promise<{ file: string; type: string; history: protos.temporal.api.history.v1.History }[]> {
  const files = (await readdir(DIR)).filter((f) => f.endsWith('.bin')).sort();
  return Promise.all(
    files.map(async (file) => {
      const history = proto.api.history.v1.History.decode(await readFile(path.join(DIR, file)));
      const type = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
      return { file, type, history };
    }),
  );
}

test('every workflow type has a committed history', async () => {
  const covered = new Set((await committedHistories()).map((h) => h.type));
  const types = await workflowTypes();
  assert.ok(types.length >= 8, `workflow types read from workflows/index.ts: ${types.join(', ')}`);
  assert.deepEqual(
    types.filter((t) => !covered.has(t)),
    [],
    'workflow types without a history in test/histories/ (record one: npm run test:record-histories)',
  );
});

test('committed histories replay on the current workflow code', async () => {
  const bundle = process.env.SWITCHYARD_TEST_WORKFLOW_BUNDLE;
  assert.ok(bundle, 'run through npm test (it bundles the workflows)');
  for (const { file, history } of await committedHistories()) {
    await Worker.runReplayHistory({ workflowBundle: { codePath: bundle } }, history, file);
  }
});
