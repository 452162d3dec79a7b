/**
 * A synchronous action answers once its result is committed (features/actions/notices.ts), not once
 * its workflow has ended. With no worker polling yet, the workflow cannot end; the answer still comes
 * when the run's result is written, as the action's activity writes it. A worker then runs the
 * workflow: its activity finds the run finished, calls nothing, and the workflow ends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { finishActionRun } from '../features/actions/runs.js';
import { actionWorkflowId } from '../workflows/contracts.js';
import { startMetabaseFake } from './fakes/index.js';
import { ACME, connectMetabase, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

const API_KEY = 'mb_answer=';

describe('a synchronous action answers from its committed result', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let worker: WorkerProcess | undefined;

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    await connectMetabase(t, metabase.url, API_KEY, { endpoints: ['POST /users'] });
  });
  after(async () => {
    await worker?.stop();
    await t?.stop();
    await metabase?.close();
  });

  test('the answer comes when the result is committed, while the workflow still waits for a worker', async () => {
    const answer = t.api('/action/trigger', {
      method: 'POST',
      headers: ACME,
      json: { action_name: 'create-user', input: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' } },
    });
    const db = t.platform.deps.db;
    const runId = await waitFor(
      'the run recorded',
      async () => (await db.query<{ id: string }>(`SELECT id FROM action_runs WHERE status = 'running'`)).rows[0]?.id,
    );
    const handle = t.platform.deps.temporal.workflow.getHandle(actionWorkflowId('dev', runId));
    await waitFor('the workflow started', () => handle.describe().then(() => true), undefined, { ignoreErrors: true });

    // What the action's activity does once the script has returned.
    assert.equal(await finishActionRun(db, runId, { output: { id: 7, email: 'ada@example.com' } }), true);
    const res = await answer;
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { id: 7, email: 'ada@example.com' });
    assert.equal((await handle.describe()).status.name, 'RUNNING', 'answered before the workflow ended');

    worker = await startWorkerProcess(t);
    assert.deepEqual(await handle.result(), { ok: true });
    assert.equal(metabase.requests.filter((r) => r.method === 'POST').length, 0, 'the recorded run is not run again');
  });
});
