/**
 * Replays every recorded workflow history (binary protobuf) in test/histories/ against the current workflow code:
 * a change that breaks determinism for workflows already running fails here.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import protos from '@temporalio/proto';

const proto = protos.temporal;
import { Worker } from '@temporalio/worker';

test('recorded histories replay on the current workflow code', async () => {
  const bundle = process.env.SWITCHYARD_TEST_WORKFLOW_BUNDLE;
  assert.ok(bundle, 'run through npm test (it bundles the workflows)');
  const files = (await readdir(path.join('test', 'histories'))).filter((f) => f.endsWith('.bin'));
  assert.ok(files.length >= 3, 'histories are committed');
  for (const file of files) {
    const history = proto.api.history.v1.History.decode(await readFile(path.join('test', 'histories', file)));
    await Worker.runReplayHistory({ workflowBundle: { codePath: bundle } }, history, file);
  }
});
