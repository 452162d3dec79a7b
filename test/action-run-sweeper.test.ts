/**
 * The action run sweeper (issue 14, item 3) against the real Postgres and Temporal: a run whose
 * API died between its row and its workflow's start is failed (GET /action/:id then answers the
 * reason instead of 404 forever); a run whose workflow is still running is left alone until that
 * workflow ends without recording, then failed; a young run is left to the API starting it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createActionRun, getActionRun } from '../features/actions/runs.js';
import { actionWorkflowId, startWorkflow } from '../workflows/contracts.js';
import { sweepStrandedActionRuns } from '../features/actions/sweeper.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

describe('action run sweeper', () => {
  let t: TestPlatform;
  let envId: number;

  /** The row POST /action/trigger writes before it starts the workflow. */
  async function insertRun(): Promise<string> {
    const id = randomUUID();
    await createActionRun(t.platform.deps.db, {
      id,
      environmentId: envId,
      connectionPk: null,
      integration: 'metabase',
      connectionId: 'acme',
      actionName: 'create-user',
      input: { email: 'x@example.com' },
      isAsync: true,
    });
    return id;
  }
  const answer = async (id: string) => {
    const res = await t.api(`/action/${id}`);
    return { status: res.status, body: (await res.json()) as { error?: { code?: string; message?: string } } };
  };

  before(async () => {
    t = await startTestPlatform();
    envId = (await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
  });
  after(async () => {
    await t?.stop();
  });

  test('a run whose workflow was never started (the API died in between) is failed with its reason', async () => {
    const id = await insertRun();
    assert.equal((await answer(id)).status, 404, 'a running run is not readable yet');
    assert.equal(await sweepStrandedActionRuns(t.platform.deps), 0, 'a young run is left to the API starting it');
    assert.equal((await getActionRun(t.platform.deps.db, id))!.status, 'running');

    assert.equal(await sweepStrandedActionRuns(t.platform.deps, { minAgeMs: 0 }), 1);
    const run = (await getActionRun(t.platform.deps.db, id))!;
    assert.equal(run.status, 'failed');
    assert.ok(run.finishedAt);
    const read = await answer(id);
    assert.equal(read.status, 500);
    assert.equal(read.body.error?.code, 'action_not_started');
    assert.match(read.body.error?.message ?? '', /never started/);
    assert.equal(await sweepStrandedActionRuns(t.platform.deps, { minAgeMs: 0 }), 0, 'failed once');
  });

  test('a run whose workflow is running is left alone; once that workflow ends without a result, the run is failed', async () => {
    const id = await insertRun();
    // Started on a task queue no worker polls: the workflow stays running, as behind a busy worker.
    const handle = await startWorkflow(t.platform.deps.temporal, 'actionWorkflow', {
      workflowId: actionWorkflowId('dev', id),
      taskQueue: `unpolled-${id}`,
      args: [{ runId: id, isAsync: true }],
    });
    assert.equal(await sweepStrandedActionRuns(t.platform.deps, { minAgeMs: 0 }), 0);
    assert.equal((await getActionRun(t.platform.deps.db, id))!.status, 'running');

    await handle.terminate('test: the workflow ends without recording');
    assert.equal(await sweepStrandedActionRuns(t.platform.deps, { minAgeMs: 0 }), 1);
    const read = await answer(id);
    assert.equal(read.status, 500);
    assert.equal(read.body.error?.code, 'action_workflow_ended');
  });
});
