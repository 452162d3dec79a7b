/**
 * Records workflow histories into test/histories/ for the replay test. Run it (through the test
 * runner, which starts Postgres and Temporal) when a workflow changes on purpose, and commit the
 * new files next to the old ones: `npm test -- test/record-histories.ts` with RECORD_HISTORIES=1.
 * Old histories stay, so a change that would break running workflows fails test/replay.test.ts.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import protos from '@temporalio/proto';

const proto = protos.temporal;
import { startMetabaseFake } from './fakes/index.js';
import { startTestPlatform } from './harness.js';

test('record workflow histories', { skip: process.env.RECORD_HISTORIES !== '1' }, async () => {
  const t = await startTestPlatform();
  const metabase = await startMetabaseFake({ apiKey: 'mb_histories=' });
  try {
    for (let i = 0; i < 120; i++) metabase.addUser({ email: `h${i}@example.com`, first_name: `H${i}` });
    await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } });
    await t.api('/integrations/metabase/endpoints', {
      method: 'PATCH',
      json: {
        endpoints: [
          { method: 'GET', path: '/users', enabled: true },
          { method: 'POST', path: '/users', enabled: true },
        ],
      },
    });
    await t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'metabase',
        connection_id: 'acme',
        connection_config: { domain: metabase.url },
        credentials: { type: 'API_KEY', apiKey: 'mb_histories=' },
      },
    });
    metabase.failNext({ status: 429, headers: { 'retry-after': '1' }, match: (r) => r.method === 'POST' });
    const action = await t.api('/users', {
      method: 'POST',
      headers: { 'connection-id': 'acme', 'provider-config-key': 'metabase' },
      json: { firstName: 'A', lastName: 'B', email: 'ab@example.com' },
    });
    if (action.status !== 200) throw new Error(await action.text());
    const temporal = t.platform.deps.temporal;
    const wanted = ['actionWorkflow', 'syncWorkflow', 'connectionCheckWorkflow'];
    for (let i = 0; i < 100; i++) {
      const found = new Set<string>();
      for await (const w of temporal.workflow.list({ query: `ExecutionStatus = "Completed"` })) found.add(w.type);
      if (wanted.every((w) => found.has(w))) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    for await (const w of temporal.workflow.list({ query: `ExecutionStatus = "Completed"` })) {
      if (!wanted.includes(w.type)) continue;
      const history = await temporal.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      const file = path.join('test', 'histories', `${w.type}-v0.67.0.bin`);
      await writeFile(file, proto.api.history.v1.History.encode(history).finish());
      console.log(`recorded ${file}`);
    }
  } finally {
    await t.stop();
    await metabase.close();
  }
});
