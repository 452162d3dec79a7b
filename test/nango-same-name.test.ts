/**
 * A sync and an action of the same name in one integration (test/fixtures/nango-same-name: both
 * `settings`, as Nango's google-calendar has them), compiled and deployed with the real CLI. Nango
 * keys a function by its type and name: both deploy, the action runs by POST /action/trigger, the
 * sync fills its records, GET /scripts/config lists both, and removing one on a redeploy keeps the
 * other.
 */
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { startGenericApiFake, startMetabaseFake, type GenericApiFake, type MetabaseFake } from './fakes/index.js';
import { addItemsApiIntegration, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { prepareNangoProject, ROOT, runCli } from './nango-cli.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'nango-same-name');
const API_KEY = 'mb_same_name=';
const CONN = 'acme';
const KEY = 'items-api';

describe('a sync and an action of the same name deploy together and each works as in Nango', () => {
  let t: TestPlatform;
  let metabase: MetabaseFake;
  let generic: GenericApiFake;
  let nango: Nango;
  let work: string;
  let proj: string;
  const cli = (...args: string[]) => runCli([...args, '--dir', proj]);

  /** The deployed functions of the integration in GET /scripts/config, as `type name`. */
  async function configured(): Promise<string[]> {
    const res = await t.api('/scripts/config');
    assert.equal(res.status, 200);
    const entry = ((await res.json()) as Json[]).find((i) => i.providerConfigKey === KEY)!;
    return [...entry.syncs, ...entry.actions]
      .filter((s: Json) => s.source === 'deployed')
      .map((s: Json) => `${s.type} ${s.name}`)
      .sort();
  }
  const settings = async () =>
    ((await nango.listRecords({ providerConfigKey: KEY, connectionId: CONN, model: 'Setting' })) as Json).records.filter(
      (r: Json) => !r._nango_metadata.deleted_at,
    ) as Json[];

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY, users: [] });
    generic = await startGenericApiFake({ apiKey: API_KEY, items: [{ name: 'timezone Europe/Paris' }, { name: 'week starts on Monday' }] });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await addItemsApiIntegration(t, { key: KEY, connectionId: CONN, apiKey: API_KEY, metabaseUrl: metabase.url, itemsUrl: generic.url });
    ({ work, proj } = await prepareNangoProject(FIXTURE, t));
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    await generic?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('both deploy in one command and GET /scripts/config lists both', async () => {
    const r = await cli('deploy', 'dev', '--activate');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Deployed version 1 to dev: 2 new/);
    assert.deepEqual(await configured(), ['action settings', 'sync settings']);
  });

  test('the action runs by POST /action/trigger and the sync fills its records', async () => {
    const out = (await nango.triggerAction(KEY, CONN, 'settings', { id: '2' })) as Json;
    assert.deepEqual(out, { id: '2', value: 'week starts on Monday' });
    const rows = await waitFor('the settings sync to save both settings', async () => {
      const rs = await settings();
      return rs.length === 2 ? rs : null;
    });
    assert.deepEqual(rows.map((s) => s.value).sort(), ['timezone Europe/Paris', 'week starts on Monday']);
  });

  test("Nango's functions API tells the two apart by type", async () => {
    const both = await t.api(`/integrations/${KEY}/functions/settings`);
    assert.equal(both.status, 409);
    assert.equal(((await both.json()) as Json).error.code, 'ambiguous_function');
    for (const type of ['sync', 'action']) {
      const one = await t.api(`/integrations/${KEY}/functions/settings?type=${type}`);
      assert.equal(one.status, 200, await one.clone().text());
      assert.equal(((await one.json()) as Json).data.type, type);
      const code = await t.api(`/integrations/${KEY}/functions/settings/code?type=${type}`);
      assert.match(((await code.json()) as Json).code, type === 'sync' ? /createSync/ : /createAction/);
    }
  });

  test("an agent session's toolset may name the action though a sync shares its name", async () => {
    const res = await t.api('/sessions', {
      method: 'POST',
      json: { tenant: { connections: { pinned: [{ integration_id: KEY, connection_id: CONN }] } }, toolset: { [KEY]: { allow: { tools: ['settings'] } } } },
    });
    assert.equal(res.status, 201, await res.clone().text());
  });

  test('dryrun asks which one is meant, and runs the one --type names', async () => {
    const ambiguous = await cli('dryrun', 'settings', CONN);
    assert.equal(ambiguous.code, 1);
    assert.match(ambiguous.stdout + ambiguous.stderr, /items-api has a sync and an action named settings[\s\S]*--type sync/);
    const action = await cli('dryrun', 'settings', CONN, '--type', 'action', '--input', '{"id":"1"}');
    assert.equal(action.code, 0, action.stdout + action.stderr);
    assert.match(action.stdout, /timezone Europe\/Paris/);
  });

  test('removing the action on a redeploy keeps the sync, which still runs', async () => {
    const index = path.join(proj, 'index.ts');
    await writeFile(index, (await readFile(index, 'utf8')).replace(/^import '\.\/items-api\/actions\/settings\.js';$/m, ''));
    const r = await cli('deploy', 'dev', '--auto-confirm');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /1 removed/);
    assert.deepEqual(await configured(), ['sync settings']);

    const gone = await t.api('/action/trigger', {
      method: 'POST',
      headers: { 'connection-id': CONN, 'provider-config-key': KEY },
      json: { action_name: 'settings', input: { id: '2' } },
    });
    assert.equal(gone.status, 404);

    generic.addItem({ name: 'language French' });
    await nango.triggerSync(KEY, ['settings'], CONN);
    const rows = await waitFor('the kept sync to save the new setting', async () => {
      const rs = await settings();
      return rs.length === 3 ? rs : null;
    });
    assert.ok(rows.some((s) => s.value === 'language French'));
  });
});
