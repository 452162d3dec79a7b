/**
 * The connection sweeper (features/lifecycle) against the real Postgres and Temporal: a connection
 * whose API died between its row and its schedules is completed; one whose check workflow was
 * started but has not run yet (Temporal behind, as with 1,000 new connections) is left alone,
 * instead of a query and an update of each of its busy schedules every pass (issue 32).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { sweepUnfinishedConnections } from '../features/lifecycle/lifecycle.js';
import { getIntegration } from '../features/integrations/store.js';
import { upsertConnection } from '../features/connections/store.js';
import { checkWorkflowId } from '../workflows/contracts.js';
import { startMetabaseFake, type MetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, createMetabaseIntegration, startTestPlatform, type TestPlatform } from './harness.js';

const API_KEY = 'mb_sweeper=';

describe('connection sweeper', () => {
  let t: TestPlatform;
  let metabase: MetabaseFake;
  let envId: number;
  const sweeperDeps = () => ({ db: t.platform.deps.db, box: t.platform.deps.box, lifecycle: t.platform.deps.lifecycle });
  /** As if its check had not run yet: never checked, created a minute ago. */
  const markUnchecked = (connectionId: string) =>
    t.platform.deps.db.query(`UPDATE connections SET last_check_at = NULL, created_at = now() - interval '1 minute' WHERE connection_id = $1`, [connectionId]);
  const checkWorkflow = (connectionId: string) =>
    t.platform.deps.temporal.workflow.getHandle(checkWorkflowId(t.platform.deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', connectionId));

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    envId = (await t.platform.deps.db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    await createMetabaseIntegration(t);
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('a connection whose check workflow was started is not redone, only not checked yet', async () => {
    await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId: 'started' });
    await checkWorkflow('started').result();
    await markUnchecked('started');
    assert.equal(await sweepUnfinishedConnections(sweeperDeps()), 0);
  });

  test('a connection whose API died before its schedules and check is completed', async () => {
    const integration = (await getIntegration(t.platform.deps.db, t.platform.deps.box, envId, 'metabase'))!;
    await upsertConnection(t.platform.deps.db, t.platform.deps.box, {
      environmentId: envId,
      integrationId: integration.id,
      connectionId: 'orphan',
      authMode: 'API_KEY',
      credentials: { type: 'API_KEY', apiKey: API_KEY },
      connectionConfig: { hostname: metabase.url },
      verifiedConfigKeys: ['hostname'],
      tags: {},
      endUser: null,
    });
    await markUnchecked('orphan');
    await assert.rejects(checkWorkflow('orphan').describe(), WorkflowNotFoundError);
    assert.equal(await sweepUnfinishedConnections(sweeperDeps()), 1);
    await checkWorkflow('orphan').result();
  });
});
