/**
 * Nango's function SDK on Switchyard (issue 17, items 2 and 3), end to end: scripts written the
 * Nango way (`exec(nango)`) are type-checked, bundled and deployed, then run by the platform
 * (real Temporal and Postgres) against the Metabase fake, and read back through @nangohq/node.
 * A two-model incremental sync keeps and deletes records per model (deletion tracked for one
 * model only), carries its checkpoint across runs and clears it, sees `lastSyncDate` from its
 * second run, and its log lines land in the run's logs; actions read, set and update metadata,
 * batchUpdate and batchDelete records, and an ActionError (thrown, from `nango.ActionError`, or
 * from zodValidateInput) reaches the caller as a 500 with its payload; environment variables set with
 * `POST /environment-variables` reach scripts and @nangohq/node. A call of a Nango member
 * Switchyard does not provide fails the type-check with a message naming it.
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
import { CliError } from '../cli/ui.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ZOD = path.join(ROOT, 'node_modules', 'zod');
const API_KEY = 'mb_function_sdk=';
const PCK = 'people-directory';
const CONN = 'acme';

const SCRIPTS: Record<string, string> = {
  // Two models; deletions tracked for ActiveUser only. The checkpoint counts runs and is cleared on the third.
  'syncs/people.ts': `import { z } from 'zod';
import { createSync } from 'switchyard/sdk';

const Person = z.object({ id: z.string(), email: z.string(), name: z.string() });

export default createSync({
  description: 'Active and deactivated users, as two models',
  frequency: 'every day',
  autoStart: true,
  syncType: 'incremental',
  endpoints: [{ method: 'GET', path: '/people' }],
  models: { ActiveUser: Person, InactiveUser: Person },
  checkpoint: z.object({ runs: z.number() }),
  exec: async (nango) => {
    const checkpoint = await nango.getCheckpoint();
    const runs = (checkpoint?.runs ?? 0) + 1;
    nango.log(\`run \${runs}\`, { level: 'warn' });
    nango.logger.info('lastSyncDate', nango.lastSyncDate instanceof Date ? 'set' : 'unset');
    await nango.trackDeletesStart('ActiveUser');
    const res = await nango.get<{ data: { id: number; email: string; first_name: string; is_active: boolean }[] }>({ endpoint: '/api/user', params: 'status=all', retries: 2 });
    const people = (active: boolean) => res.data.data.filter((u) => u.is_active === active).map((u) => ({ id: String(u.id), email: u.email, name: u.first_name }));
    await nango.batchSave(people(true), 'ActiveUser');
    await nango.batchSave(people(false), 'InactiveUser');
    await nango.trackDeletesEnd('ActiveUser');
    if (runs >= 3) await nango.clearCheckpoint();
    else await nango.saveCheckpoint({ runs });
  },
});
`,
  'actions/lookup-user.ts': `import { z } from 'zod';
import { ActionError, createAction } from 'switchyard/sdk';

export default createAction({
  description: 'One user by id',
  endpoint: { method: 'GET', path: '/lookup-user' },
  input: z.object({ id: z.number() }),
  output: z.object({ email: z.string() }),
  exec: async (nango, input) => {
    if (input.id === 0) throw new nango.ActionError({ message: 'there is no user 0', code: 'zero' });
    if (input.id === 999) throw new ActionError({ message: 'user 999 is reserved', code: 'reserved' });
    const { data } = await nango.zodValidateInput({ zodSchema: z.object({ id: z.number().int().positive() }), input });
    const res = await nango.get<{ email: string }>({ endpoint: \`/api/user/\${data.id}\` });
    return { email: res.data.email };
  },
});
`,
  'actions/settings.ts': `import { z } from 'zod';
import { createAction } from 'switchyard/sdk';

export default createAction({
  description: 'Sets and updates the connection metadata, and reads what a script may know',
  endpoint: { method: 'POST', path: '/settings' },
  input: z.object({}),
  metadata: z.object({ team: z.string().optional(), region: z.string().optional(), tier: z.number().optional() }),
  output: z.object({
    metadata: z.record(z.string(), z.unknown()),
    webhookUrl: z.string().nullable(),
    variables: z.array(z.object({ name: z.string(), value: z.string() })),
    credentialType: z.string(),
    connection: z.string(),
  }),
  exec: async (nango) => {
    await nango.setMetadata({ team: 'blue', region: 'eu' });
    await nango.updateMetadata({ region: 'us', tier: 2 });
    const metadata = await nango.getMetadata<Record<string, unknown>>();
    const token = await nango.getToken();
    const connection = await nango.getConnection();
    for (let i = 1; i <= 40; i++) nango.log('step ' + i);
    nango.log('settings', 'applied');
    nango.logger.error('nothing failed', { code: 7 });
    return {
      metadata,
      webhookUrl: (await nango.getWebhookURL()) ?? null,
      variables: (await nango.getEnvironmentVariables()) ?? [],
      credentialType: typeof token === 'string' ? 'token' : 'type' in token ? String(token.type) : 'OAUTH1',
      connection: connection.connection_id,
    };
  },
});
`,
  'actions/edit-records.ts': `import { z } from 'zod';
import { createAction } from 'switchyard/sdk';

export default createAction({
  description: 'Updates one cached active user and deletes one cached inactive user',
  endpoint: { method: 'POST', path: '/edit-records' },
  input: z.object({ rename: z.object({ id: z.string(), email: z.string() }), forget: z.string() }),
  output: z.boolean(),
  exec: async (nango, input) => {
    await nango.batchUpdate([input.rename], 'ActiveUser');
    await nango.batchDelete([{ id: input.forget }], 'InactiveUser');
    return true;
  },
});
`,
};

const REFUSED = `import { z } from 'zod';
import { createAction } from 'switchyard/sdk';

export default createAction({
  description: 'Uses members Switchyard does not have',
  endpoint: { method: 'GET', path: '/refused' },
  input: z.object({}),
  output: z.unknown(),
  exec: async (nango) => {
    await nango.triggerSync('people-directory', ['people']);
    return nango.triggerAction('other', {});
  },
});
`;

describe('Nango function SDK: semantics through the platform', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;
  let work: string;

  const q = async (sql: string, args: unknown[] = []) => (await t.platform.deps.db.query(sql, args)).rows as Json[];
  const runs = () =>
    q(
      `SELECT r.id, r.status, r.mode, r.results, r.logs FROM sync_runs r JOIN connections c ON c.id = r.connection_pk
        WHERE c.connection_id = $1 AND r.sync_name = 'people' ORDER BY r.started_at`,
      [CONN],
    );
  const oneRun = async (start: () => Promise<unknown>) => {
    const n = (await runs()).length;
    await start();
    return waitFor('the run to finish', async () => {
      const run = (await runs())[n];
      return run && run.status !== 'RUNNING' ? run : null;
    });
  };
  const checkpoint = async () =>
    (
      await q(`SELECT s.checkpoint FROM sync_states s JOIN connections c ON c.id = s.connection_pk WHERE c.connection_id = $1 AND s.sync_name = 'people'`, [
        CONN,
      ])
    )[0]?.checkpoint;
  const records = async (model: string) => {
    const page = await nango.listRecords<{ id: string; email: string }>({ providerConfigKey: PCK, connectionId: CONN, model });
    return page.records
      .filter((r) => r._nango_metadata.deleted_at === null)
      .map((r) => ({ id: r.id, email: r.email }))
      .sort((a, b) => a.id.localeCompare(b.id));
  };
  const upstream = (active: boolean) =>
    metabase.state.users
      .filter((u) => u.type === 'personal' && u.is_active === active)
      .map((u) => String(u.id))
      .sort();
  const removeUpstream = (active: boolean) => {
    const i = metabase.state.users.findIndex((u) => u.type === 'personal' && u.is_active === active);
    return String(metabase.state.users.splice(i, 1)[0]!.id);
  };
  const actionError = async (name: string, input: unknown) => {
    try {
      await nango.triggerAction(PCK, CONN, name, input);
    } catch (err) {
      const res = (err as { response?: { status: number; data: Json } }).response;
      assert.ok(res, String(err));
      return { status: res.status, error: res.data.error as Json };
    }
    assert.fail(`${name} succeeded`);
  };

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    for (let i = 0; i < 6; i++) metabase.addUser({ email: `person${i}@example.com`, first_name: `P${i}`, last_name: 'X', is_active: i < 4 });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: PCK } })).status, 200);

    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'function-sdk-'));
    await mkdir(path.join(work, 'node_modules'), { recursive: true });
    await symlink(ZOD, path.join(work, 'node_modules', 'zod'), 'dir');
    for (const [file, code] of Object.entries(SCRIPTS)) {
      await mkdir(path.join(work, PCK, path.dirname(file)), { recursive: true });
      await writeFile(path.join(work, PCK, file), code);
    }
    const found = await findScripts(work);
    // Strict type-check of every script, as `switchyard compile` does.
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
    const deployed = await t.api('/scripts/deploy', { method: 'POST', json: { scripts, activate: true, cli_version: '0.67.0' } });
    assert.equal(deployed.status, 200, await deployed.clone().text());
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('a two-model sync keeps and deletes per model, carries its checkpoint across runs, and logs into its runs', async () => {
    const first = await oneRun(() => addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: PCK, connectionId: CONN }));
    assert.equal(first.status, 'SUCCESS');
    assert.equal(first.mode, 'full');
    assert.deepEqual(first.results, { ActiveUser: { added: 4, updated: 0, deleted: 0 }, InactiveUser: { added: 2, updated: 0, deleted: 0 } });
    assert.deepEqual(await checkpoint(), { runs: 1 });
    // The script's own lines: the platform adds one when a run skips pages its last run saved unchanged.
    const lines = (run: Json) =>
      (run.logs as Json[])
        .filter((l) => !String(l.message).includes('unchanged since the last run'))
        .map((l) => `${l.level} ${l.message}`)
        .sort();
    assert.deepEqual(lines(first), ['info lastSyncDate unset', 'warn run 1']);

    // One active and one inactive user leave upstream: only the tracked model loses its record.
    const goneActive = removeUpstream(true);
    const goneInactive = removeUpstream(false);
    const second = await oneRun(() => nango.triggerSync(PCK, ['people'], CONN));
    assert.equal(second.status, 'SUCCESS');
    assert.equal(second.mode, 'incremental');
    assert.deepEqual(second.results, { ActiveUser: { added: 0, updated: 0, deleted: 1 }, InactiveUser: { added: 0, updated: 0, deleted: 0 } });
    assert.deepEqual(lines(second), ['info lastSyncDate set', 'warn run 2']);
    assert.deepEqual(await checkpoint(), { runs: 2 });
    assert.deepEqual(
      (await records('ActiveUser')).map((r) => r.id),
      upstream(true),
    );
    assert.ok(!upstream(true).includes(goneActive));
    const inactive = (await records('InactiveUser')).map((r) => r.id);
    assert.deepEqual(inactive, [...upstream(false), goneInactive].sort());

    // The third run clears the checkpoint: the next one is a full run again.
    const third = await oneRun(() => nango.triggerSync(PCK, ['people'], CONN));
    assert.equal(third.status, 'SUCCESS');
    assert.equal(await checkpoint(), null);
    const fourth = await oneRun(() => nango.triggerSync(PCK, ['people'], CONN));
    assert.equal(fourth.mode, 'full');
    assert.deepEqual(lines(fourth), ['info lastSyncDate set', 'warn run 1']);
    // Still per model: the untracked InactiveUser keeps its record even in a full run.
    assert.deepEqual(
      (await records('InactiveUser')).map((r) => r.id),
      inactive,
    );
  });

  test('an ActionError reaches the caller as a 500 action_script_runtime_error with its payload, as from Nango', async () => {
    const ok = (await nango.triggerAction(PCK, CONN, 'lookup-user', { id: Number(upstream(true)[0]) })) as Json;
    assert.match(ok.email, /@example\.com$/);

    const fromContext = await actionError('lookup-user', { id: 0 });
    assert.equal(fromContext.status, 500);
    assert.equal(fromContext.error.code, 'action_script_runtime_error');
    assert.deepEqual(fromContext.error.payload, { message: 'there is no user 0', code: 'zero' });

    const imported = await actionError('lookup-user', { id: 999 });
    assert.equal(imported.status, 500);
    assert.deepEqual(imported.error.payload, { message: 'user 999 is reserved', code: 'reserved' });

    const invalid = await actionError('lookup-user', { id: -3 });
    assert.equal(invalid.status, 500);
    assert.equal(invalid.error.payload.issues[0].path, 'id');
  });

  test('metadata set, updated and read; environment variables and what else a script may know; its log lines in the run', async () => {
    const variables = [
      { name: 'REGION', value: 'eu-west' },
      { name: 'FLAG_NEW_API', value: 'on' },
    ];
    const set = await t.api('/environment-variables', { method: 'POST', json: { variables } });
    assert.equal(set.status, 200, await set.clone().text());
    assert.deepEqual(await nango.getEnvironmentVariables(), variables);
    const duplicate = await t.api('/environment-variables', { method: 'POST', json: { variables: [...variables, { name: 'REGION', value: 'x' }] } });
    assert.equal(duplicate.status, 400);
    assert.deepEqual(((await duplicate.json()) as Json).error.errors[0].path, ['variables', 2, 'name']);
    const badName = await t.api('/environment-variables', { method: 'POST', json: { variables: [{ name: '1X', value: 'x' }] } });
    assert.equal(badName.status, 400);

    const out = (await nango.triggerAction(PCK, CONN, 'settings', {})) as Json;
    assert.deepEqual(out.metadata, { team: 'blue', region: 'us', tier: 2 });
    const env = (await q(`SELECT uuid FROM environments WHERE name = 'dev'`))[0]!;
    assert.equal(out.webhookUrl, `${t.platform.deps.config.publicUrl}/webhook/${env.uuid}/${PCK}`);
    assert.deepEqual(out.variables, variables);
    assert.equal(out.credentialType, 'API_KEY');
    assert.equal(out.connection, CONN);
    const connection = (await nango.getConnection(PCK, CONN)) as Json;
    assert.deepEqual(connection.metadata, { team: 'blue', region: 'us', tier: 2 });
    const run = (await q(`SELECT logs FROM action_runs WHERE action_name = 'settings' ORDER BY created_at DESC LIMIT 1`))[0]!;
    // The run's answer came after every line was stored, in the order the script logged them (they were
    // written unawaited, and a line could still be on its way, or land before an earlier one, after the answer).
    assert.deepEqual(
      (run.logs as Json[]).map((l) => `${l.level} ${l.message} ${JSON.stringify(l.fields ?? null)}`),
      [...Array.from({ length: 40 }, (_, i) => `info step ${i + 1} null`), 'info settings applied null', 'error nothing failed {"code":7}'],
    );
  });

  test('batchUpdate merges into a cached record and batchDelete removes one', async () => {
    const [active] = await records('ActiveUser');
    const [inactive] = await records('InactiveUser');
    assert.ok(active && inactive);
    const stored = async (id: string) => {
      const page = await nango.listRecords<{ id: string; email: string; name: string }>({ providerConfigKey: PCK, connectionId: CONN, model: 'ActiveUser' });
      const found = page.records.find((r) => r.id === id);
      return found && { id: found.id, email: found.email, name: found.name };
    };
    const before = await stored(active.id);
    assert.match(before?.name ?? '', /^P\d$/);
    // The update names the e-mail only: a merge keeps the name the sync saved, an overwrite would drop it.
    assert.equal(await nango.triggerAction(PCK, CONN, 'edit-records', { rename: { id: active.id, email: 'renamed@example.com' }, forget: inactive.id }), true);
    assert.deepEqual(await stored(active.id), { id: active.id, email: 'renamed@example.com', name: before!.name });
    assert.ok(!(await records('InactiveUser')).some((r) => r.id === inactive.id));
  });

  test('a Nango member Switchyard does not provide fails the type-check, naming the call', async () => {
    const file = path.join(work, PCK, 'actions', 'refused.ts');
    await writeFile(file, REFUSED);
    try {
      await assert.rejects(typecheck(work, [file], ZOD), (err: unknown) => {
        assert.ok(err instanceof CliError);
        const text = err.details.join('\n');
        assert.match(text, /triggerSync is not supported by Switchyard/);
        assert.match(text, /triggerAction is not supported by Switchyard/);
        return true;
      });
    } finally {
      await rm(file);
    }
  });
});
