/**
 * Records workflow histories into test/histories/ for the replay test: one completed run of every
 * workflow type, taken from the shared Temporal dev server after the scenario test files ran on it.
 * Run it when a workflow changes on purpose (`npm run test:record-histories`), and commit the new
 * files next to the old ones. Old histories stay, so a change that would break running workflows
 * fails test/replay.test.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import protos from '@temporalio/proto';
import type { Client } from '@temporalio/client';

const proto = protos.temporal;
import { startMetabaseFake } from './fakes/index.js';
import { startTestPlatform } from './harness.js';
import { workflowTypes } from './workflow-types.js';

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
    await harvest(t.platform.deps.temporal);
  } finally {
    await t.stop();
    await metabase.close();
  }
});

async function harvest(temporal: Client): Promise<void> {
  const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
  const wanted = await workflowTypes();
  const missing = new Set(wanted);
  for (let i = 0; i < 100 && missing.size > 0; i++) {
    for (const type of [...missing]) {
      for await (const w of temporal.workflow.list({ query: `WorkflowType = "${type}" AND ExecutionStatus = "Completed"` })) {
        const history = await temporal.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
        const file = path.join('test', 'histories', `${type}-v${version}.bin`);
        await writeFile(file, proto.api.history.v1.History.encode(history).finish());
        console.log(`recorded ${file} from ${w.workflowId}`);
        missing.delete(type);
        break;
      }
    }
    if (missing.size > 0) await new Promise((r) => setTimeout(r, 300));
  }
  if (missing.size > 0)
    throw new Error(`no completed run of ${[...missing].join(', ')}: record with npm run test:record-histories, whose scenario files run one of each first`);
}
