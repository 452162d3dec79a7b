/**
 * Records workflow histories into test/histories/ for the replay test: one completed run of every
 * workflow type, taken from the shared Temporal dev server after the scenario test files ran on it.
 * Run it when a workflow changes on purpose (`npm run test:record-histories`), and commit the new
 * files next to the old ones. Old histories stay, so a change that would break running workflows
 * fails test/replay.test.ts.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
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
        connection_config: { hostname: metabase.url },
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

/** The set of event types of a history: the path a run took (signals, timers, retries, markers). */
const shapeOf = (history: protos.temporal.api.history.v1.IHistory) => [...new Set((history.events ?? []).map((e) => String(e.eventType)))].sort().join(',');

/**
 * Keeps, per workflow type, the completed runs that took different paths (a different set of event
 * types), up to three, the longest of each; a path a committed history of the type already took is
 * not recorded again, and a committed file is never overwritten (it is what older code recorded).
 */
async function harvest(temporal: Client): Promise<void> {
  const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
  const missing: string[] = [];
  const DIR = path.join('test', 'histories');
  const committed = (await readdir(DIR)).filter((f) => f.endsWith('.bin'));
  for (const type of await workflowTypes()) {
    const files = committed.filter((f) => f.startsWith(`${type}-`));
    const known = new Set(await Promise.all(files.map(async (f) => shapeOf(proto.api.history.v1.History.decode(await readFile(path.join(DIR, f)))))));
    const byPath = new Map<string, { id: string; history: protos.temporal.api.history.v1.IHistory }>();
    let seen = 0;
    // Completed runs; for a long-lived workflow (webhookEndpointWorkflow) that none of the scenarios ends, its running one (a partial history replays too).
    const runs = async function* () {
      let any = false;
      for await (const w of temporal.workflow.list({ query: `WorkflowType = "${type}" AND ExecutionStatus = "Completed"` })) {
        any = true;
        yield w;
      }
      if (!any) yield* temporal.workflow.list({ query: `WorkflowType = "${type}" AND ExecutionStatus = "Running"` });
    };
    for await (const w of runs()) {
      if (++seen > 50) break;
      const history = await temporal.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      const shape = shapeOf(history);
      const kept = byPath.get(shape);
      if (!kept || (kept.history.events?.length ?? 0) < (history.events?.length ?? 0)) byPath.set(shape, { id: w.workflowId, history });
    }
    if (byPath.size === 0) missing.push(type);
    const paths = [...byPath.entries()]
      .filter(([shape]) => !known.has(shape))
      .sort((a, b) => b[0].split(',').length - a[0].split(',').length)
      .slice(0, 3);
    let n = 0;
    for (const [, { id, history }] of paths) {
      let file: string;
      do file = path.join(DIR, `${type}-v${version}-${++n}.bin`);
      while (committed.includes(path.basename(file)));
      await writeFile(file, proto.api.history.v1.History.encode(history).finish());
      console.log(`recorded ${file} from ${id}`);
    }
  }
  if (missing.length > 0)
    throw new Error(`no completed run of ${missing.join(', ')}: record with npm run test:record-histories, whose scenario files run one of each first`);
}
