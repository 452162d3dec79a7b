/**
 * What Nango's public function library needs at run time beyond types (issue 29, item 3), end to
 * end on the platform (real Temporal and Postgres, the Metabase fake): functions written as Nango
 * 0.71 allows, imported from `nango`: an action without `endpoint` and a sync without `endpoints`
 * deploy, are listed by name on the Endpoints tab, are activated by `deploy --activate` or the tab,
 * and are then called as Nango calls them (POST /action/trigger and tools by name; records by
 * model); a sync's `nango.log` lines are readable through the API and on the run's dashboard page.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { bundle, manifestOf, typecheck } from '../cli/build.js';
import { findScripts } from '../cli/project.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, dashboardSignIn, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ZOD = path.join(ROOT, 'node_modules', 'zod');
const API_KEY = 'mb_nango_runtime=';
const PCK = 'people-by-name';
const CONN = 'acme';

const SCRIPTS: Record<string, string> = {
  'actions/whoami.ts': `import { z } from 'zod';
import { createAction } from 'nango';

export default createAction({
  description: 'One user by id; no endpoint: called by name',
  input: z.object({ id: z.number() }),
  output: z.object({ email: z.string() }),
  exec: async (nango, input) => {
    const res = await nango.get<{ email: string }>({ endpoint: \`/api/user/\${input.id}\` });
    return { email: res.data.email };
  },
});
`,
  'syncs/people.ts': `import { z } from 'zod';
import { createSync } from 'nango';

export default createSync({
  description: 'Every user; no endpoints: its records are read by model',
  frequency: 'every day',
  autoStart: true,
  models: { Person: z.object({ id: z.string(), email: z.string() }) },
  exec: async (nango) => {
    const res = await nango.get<{ data: { id: number; email: string }[] }>({ endpoint: '/api/user', params: 'status=all' });
    await nango.batchSave(res.data.data.map((u) => ({ id: String(u.id), email: u.email })), 'Person');
    await nango.log(\`saved \${res.data.data.length} people\`);
    await nango.log('a warning line', { level: 'warn' });
  },
});
`,
};

const LATER: Record<string, string> = {
  'actions/ping.ts': `import { z } from 'zod';
import { createAction } from 'nango';

export default createAction({
  description: 'Answers pong; deployed later with --activate',
  input: z.object({}),
  output: z.object({ pong: z.boolean() }),
  exec: async () => ({ pong: true }),
});
`,
};

describe('Nango functions without endpoints, and their log lines, on the platform', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;
  let work: string;

  /** Type-checks, bundles and deploys the project's files, as `switchyard compile` + `deploy` do. */
  const deploy = async (files: Record<string, string>, activate: boolean) => {
    for (const [file, code] of Object.entries(files)) {
      await mkdir(path.join(work, PCK, path.dirname(file)), { recursive: true });
      await writeFile(path.join(work, PCK, file), code);
    }
    const found = await findScripts(work);
    await typecheck(
      work,
      found.map((s) => s.file),
      ZOD,
    );
    const scripts = [];
    for (const s of found) {
      const code = await bundle(work, s);
      scripts.push({ integration: s.integration, name: s.name, bundle: code, manifest: await manifestOf(work, s, code) });
    }
    const res = await t.api('/scripts/deploy', { method: 'POST', json: { scripts, activate, cli_version: '0.67.0' } });
    assert.equal(res.status, 200, await res.clone().text());
  };
  const endpoints = async () => ((await (await t.api(`/integrations/${PCK}/endpoints`)).json()) as Json).data as Json[];
  const trigger = (name: string, input: unknown) =>
    t.api('/action/trigger', { method: 'POST', headers: { 'connection-id': CONN, 'provider-config-key': PCK }, json: { action_name: name, input } });

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    for (let i = 0; i < 3; i++) metabase.addUser({ email: `person${i}@example.com`, first_name: `P${i}`, last_name: 'X' });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: PCK } })).status, 200);
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'nango-runtime-'));
    await mkdir(path.join(work, 'node_modules'), { recursive: true });
    await symlink(ZOD, path.join(work, 'node_modules', 'zod'), 'dir');
    await deploy(SCRIPTS, false);
    await addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: PCK, connectionId: CONN });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('functions without endpoints are listed by name, deactivated until activated, then called by name', async () => {
    assert.deepEqual(
      (await endpoints())
        .filter((e) => e.script === 'whoami' || e.script === 'people')
        .map((e) => `${e.method} ${e.path} ${e.script} ${e.type} ${e.enabled}`)
        .sort(),
      ['FUNCTION people people sync false', 'FUNCTION whoami whoami action false'],
    );
    const refused = await trigger('whoami', { id: metabase.state.users[0]!.id });
    assert.equal(refused.status, 404);
    assert.equal(((await refused.json()) as Json).error.code, 'endpoint_not_enabled');

    const { cookie } = await dashboardSignIn(t, t.devKey, 'dev');
    const tab = await (await fetch(`${t.url}/dashboard/dev/integrations/${PCK}/endpoints`, { headers: { cookie } })).text();
    assert.match(tab, /Activate whoami/);
    assert.match(tab, /no endpoint: called by name/);

    const patched = await t.api(`/integrations/${PCK}/endpoints`, { method: 'PATCH', json: { endpoints: [{ method: 'FUNCTION', path: 'whoami', enabled: true }] } });
    assert.equal(patched.status, 200, await patched.clone().text());
    const user = metabase.state.users.find((u) => u.type === 'personal')!;
    const ok = await trigger('whoami', { id: user.id });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.deepEqual(await ok.json(), { email: user.email });
    const viaTool = await t.api(`/connections/${CONN}/tools/whoami/calls?provider_config_key=${PCK}`, { method: 'POST', json: { input: { id: user.id } } });
    assert.equal(viaTool.status, 200, await viaTool.clone().text());
    assert.deepEqual(await viaTool.json(), { email: user.email });

    const unknown = await t.api(`/integrations/${PCK}/endpoints`, { method: 'PATCH', json: { endpoints: [{ method: 'FUNCTION', path: 'nope', enabled: true }] } });
    assert.equal(unknown.status, 400);
    assert.deepEqual(((await unknown.json()) as Json).error.errors[0].path, ['endpoints', 0]);
  });

  test('deploy --activate activates a new function without endpoint; a sync without endpoints runs and its records are read by model', async () => {
    await deploy(LATER, true);
    assert.equal((await endpoints()).find((e) => e.script === 'ping')?.enabled, true);
    assert.equal((await endpoints()).find((e) => e.script === 'people')?.enabled, false, 'activate turns on only what is new');
    const pong = await trigger('ping', {});
    assert.deepEqual(await pong.json(), { pong: true });

    const patched = await t.api(`/integrations/${PCK}/endpoints`, { method: 'PATCH', json: { endpoints: [{ method: 'FUNCTION', path: 'people', enabled: true }] } });
    assert.equal(patched.status, 200);
    await nango.triggerSync(PCK, ['people'], CONN);
    const records = await waitFor('the sync to save its records', async () => {
      const page = await nango.listRecords<{ id: string; email: string }>({ providerConfigKey: PCK, connectionId: CONN, model: 'Person' });
      return page.records.length >= 3 ? page.records : null;
    });
    const personal = metabase.state.users.filter((u) => u.type === 'personal');
    assert.deepEqual(records.map((r) => r.email).sort(), personal.map((u) => u.email).sort());
  });
});
