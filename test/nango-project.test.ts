/**
 * A Nango zero-yaml project, unchanged (test/fixtures/nango-project: a root index.ts importing each
 * function, `import ... from 'nango'`, models in models.ts, a package.json listing nango and zod,
 * Nango's .env names), compiled and deployed with the real `switchyard` CLI to a running platform,
 * then run against the Metabase and generic API fakes through @nangohq/node: a multi-model full
 * sync keeps and deletes records per model across runs, an incremental sync resumes from its
 * checkpoint, and an ActionError reaches the caller as a 500 carrying its payload.
 */
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { startGenericApiFake, startMetabaseFake, type GenericApiFake, type MetabaseFake } from './fakes/index.js';
import {
  addItemsApiIntegration,
  addMetabaseConnection,
  apiRequestRecorder,
  assertReadsOnly,
  startTestPlatform,
  waitFor,
  type TestPlatform,
} from './harness.js';
import { prepareNangoProject, ROOT, runCli } from './nango-cli.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'nango-project');
const API_KEY = 'mb_nango_project=';
const CONN = 'acme';
const PEOPLE = 'metabase-directory';
const ITEMS = 'items-api';

/** The ActionError an @nangohq/node call failed with: its HTTP status and error body. */
async function failure(call: Promise<unknown>): Promise<{ status: number; error: Json }> {
  try {
    await call;
  } catch (err) {
    const res = (err as { response?: { status: number; data: Json } }).response;
    if (!res) throw err;
    return { status: res.status, error: res.data.error };
  }
  throw new Error('the call succeeded');
}

describe('a Nango zero-yaml project deploys unchanged and runs through @nangohq/node', () => {
  let t: TestPlatform;
  let metabase: MetabaseFake;
  let generic: GenericApiFake;
  let nango: Nango;
  let work: string;
  let proj: string;
  let packageJson: string;
  const cli = (...args: string[]) => runCli([...args, '--dir', proj]);
  const apiRequests = apiRequestRecorder();

  async function records(providerConfigKey: string, model: string): Promise<Json[]> {
    const out: Json[] = [];
    let cursor: string | null | undefined;
    do {
      const page = (await nango.listRecords({ providerConfigKey, connectionId: CONN, model, limit: 100, ...(cursor ? { cursor } : {}) })) as Json;
      out.push(...(page.records as Json[]));
      cursor = page.next_cursor as string | null;
    } while (cursor);
    return out;
  }
  const live = (rs: Json[]) => rs.filter((r) => !r._nango_metadata.deleted_at);
  const ids = (rs: Json[]) => rs.map((r) => String(r.id)).sort();

  before(async () => {
    t = await startTestPlatform({ log: apiRequests.log });
    metabase = await startMetabaseFake({
      apiKey: API_KEY,
      users: [
        { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
        { email: 'alan@example.com', first_name: 'Alan', last_name: 'Turing' },
        { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper', is_active: false },
        { email: 'edsger@example.com', first_name: 'Edsger', last_name: 'Dijkstra' },
      ],
    });
    generic = await startGenericApiFake({ apiKey: API_KEY, items: Array.from({ length: 7 }, (_, i) => ({ name: `item ${i + 1}` })) });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await addItemsApiIntegration(t, { key: PEOPLE, connectionId: CONN, apiKey: API_KEY, metabaseUrl: metabase.url });
    await addItemsApiIntegration(t, { key: ITEMS, connectionId: CONN, apiKey: API_KEY, metabaseUrl: metabase.url, itemsUrl: generic.url });

    ({ work, proj } = await prepareNangoProject(FIXTURE, t));
    // A function file index.ts does not import: Nango would not deploy it, neither does Switchyard.
    await writeFile(
      path.join(proj, ITEMS, 'actions', 'draft.ts'),
      `import { createAction } from 'nango';\nimport * as z from 'zod';\nexport default createAction({ description: 'unfinished', endpoint: { method: 'POST', path: '/draft' }, input: z.object({}), output: z.object({}), exec: async () => ({}) });\n`,
    );
    packageJson = await readFile(path.join(proj, 'package.json'), 'utf8');
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    await generic?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('compile type-checks and bundles the functions index.ts imports; package.json is left as it is', async () => {
    const r = await cli('compile');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /compiled 5 of 5 functions/);
    assert.match(r.stdout + r.stderr, /not imported by index\.ts[^\n]*items-api\/actions\/draft\.ts/);
    const manifest = JSON.parse(await readFile(path.join(proj, 'build', 'manifest.json'), 'utf8')) as Json;
    const byName = Object.fromEntries((manifest.scripts as Json[]).map((s) => [`${s.integration}/${s.name}`, s]));
    assert.deepEqual(Object.keys(byName).sort(), [
      'items-api/items',
      'items-api/rename-item',
      'metabase-directory/connection-created',
      'metabase-directory/deactivate-person',
      'metabase-directory/people',
    ]);
    const people = byName['metabase-directory/people'].manifest as Json;
    assert.deepEqual(Object.keys(people.models).sort(), ['ActivePerson', 'DeactivatedPerson']);
    assert.deepEqual(people.endpoints[0], { method: 'GET', path: '/people/active', group: 'People' });
    assert.equal(people.syncType, 'full');
    assert.equal(byName['items-api/items'].manifest.syncType, 'incremental');
    assert.equal(byName['metabase-directory/connection-created'].manifest.event, 'post-connection-creation');
    assert.equal(await readFile(path.join(proj, 'package.json'), 'utf8'), packageJson);
  });

  test('a Nango SDK call Switchyard refuses fails compile, naming the call', async () => {
    const file = path.join(proj, ITEMS, 'actions', 'rename-item.ts');
    const original = await readFile(file, 'utf8');
    await writeFile(file, original.replace('const current =', "await nango.triggerAction('items-api', 'x', {});\n        const current ="));
    try {
      const r = await cli('compile');
      assert.equal(r.code, 1);
      assert.match(r.stdout + r.stderr, /triggerAction is not supported by Switchyard/);
    } finally {
      await writeFile(file, original);
    }
  });

  test('dryrun runs the functions against a real connection and saves nothing', async () => {
    const from = apiRequests.requests.length;
    const people = await cli('dryrun', 'people', CONN, '--integration-id', PEOPLE); // Nango's flag name
    assert.equal(people.code, 0, people.stdout + people.stderr);
    assert.match(people.stdout, /ActivePerson: 3 record\(s\) would be saved/);
    assert.match(people.stdout, /DeactivatedPerson: 1 record\(s\) would be saved/);
    const items = await cli('dryrun', 'items', CONN, '--integration', ITEMS, '--checkpoint', JSON.stringify({ updatedAfter: '2000-01-01T00:00:00.000Z' }));
    assert.equal(items.code, 0, items.stdout + items.stderr);
    assert.match(items.stdout, /Item: 7 record\(s\) would be saved/);
    assert.match(items.stdout, /checkpoint would be saved/);
    // Saves nothing: the CLI asks the platform for reads only (a count of records would be 0 anyway:
    // nothing is deployed yet that could write one).
    assertReadsOnly(apiRequests.requests.slice(from));
  });

  test('deploy dev with NANGO_SECRET_KEY_DEV and NANGO_HOST from .env; the syncs fill the cache', async () => {
    const r = await cli('deploy', 'dev', '--activate');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Deployed version 1 to dev: 5 new/);
    assert.equal(await readFile(path.join(proj, 'package.json'), 'utf8'), packageJson);

    const active = await waitFor('the people sync to fill ActivePerson', async () => {
      const rs = live(await records(PEOPLE, 'ActivePerson'));
      return rs.length === 3 ? rs : null;
    });
    assert.deepEqual(active.map((p) => p.fullName).sort(), ['Ada Lovelace', 'Alan Turing', 'Edsger Dijkstra']);
    // The sync saves its two models one after the other: the second may still be on its way.
    const deactivated = await waitFor('the people sync to fill DeactivatedPerson', async () => {
      const rs = live(await records(PEOPLE, 'DeactivatedPerson'));
      return rs.length > 0 ? rs : null;
    });
    assert.deepEqual(
      deactivated.map((p) => [p.fullName, p.deactivated]),
      [['Grace Hopper', true]],
    );
    const items = await waitFor('the items sync to fill Item', async () => {
      const rs = live(await records(ITEMS, 'Item'));
      return rs.length === 7 ? rs : null;
    });
    assert.ok(items.some((i) => i.name === 'item 4'));
  });

  test('the on-event function runs after a new connection is created', async () => {
    await addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: PEOPLE, connectionId: 'globex' });
    const metadata = await waitFor('the post-connection-creation function', async () => {
      const m = (await nango.getMetadata(PEOPLE, 'globex')) as Json;
      return m?.onboardedAs ? m : null;
    });
    assert.deepEqual(metadata, { onboardedAs: 'globex' });
  });

  test('the multi-model full sync moves and deletes records per model across runs', async () => {
    const ada = metabase.state.users.find((u) => u.email === 'ada@example.com')!;
    const done = await nango.triggerAction(PEOPLE, CONN, 'deactivate-person', { id: String(ada.id) });
    assert.deepEqual(done, { id: String(ada.id), deactivated: true });
    const added = metabase.addUser({ email: 'barbara@example.com', first_name: 'Barbara', last_name: 'Liskov' });

    await nango.triggerSync(PEOPLE, ['people'], CONN);
    const activeAfter = await waitFor('the second run to delete Ada from ActivePerson', async () => {
      const rs = await records(PEOPLE, 'ActivePerson');
      const gone = rs.find((r) => r.id === String(ada.id));
      return gone?._nango_metadata.deleted_at && rs.some((r) => r.id === String(added.id)) ? rs : null;
    });
    assert.equal(activeAfter.find((r) => r.id === String(ada.id))!._nango_metadata.last_action, 'DELETED');
    assert.equal(activeAfter.find((r) => r.id === String(added.id))!._nango_metadata.last_action, 'ADDED');
    assert.equal(live(activeAfter).length, 3);
    const deactivated = await records(PEOPLE, 'DeactivatedPerson');
    assert.deepEqual(ids(live(deactivated)), ids([{ id: ada.id }, { id: metabase.state.users.find((u) => u.email === 'grace@example.com')!.id }]));
    // Grace was in DeactivatedPerson on both runs: kept, not deleted by the ActivePerson sweep.
    assert.ok(deactivated.every((r) => !r._nango_metadata.deleted_at));
  });

  test('an ActionError reaches the caller as a 500 action_script_runtime_error with its payload, as from Nango', async () => {
    const missing = await failure(nango.triggerAction(PEOPLE, CONN, 'deactivate-person', { id: '9999' }));
    assert.equal(missing.status, 500, JSON.stringify(missing.error));
    assert.equal(missing.error.code, 'action_script_runtime_error');
    assert.deepEqual(missing.error.payload, { type: 'person_not_found', message: 'No Metabase user 9999', id: '9999' });
    const ada = metabase.state.users.find((u) => u.email === 'ada@example.com')!;
    const again = await failure(nango.triggerAction(PEOPLE, CONN, 'deactivate-person', { id: String(ada.id) }));
    assert.equal(again.status, 500);
    assert.equal(again.error.payload.type, 'already_deactivated');
    // Through the script's own endpoint too.
    const viaEndpoint = await t.api('/catalog/items', {
      method: 'PATCH',
      headers: { 'connection-id': CONN, 'provider-config-key': ITEMS },
      json: { id: '1', name: 'item 1' },
    });
    assert.equal(viaEndpoint.status, 500);
    assert.deepEqual(((await viaEndpoint.json()) as Json).error.payload, { type: 'name_unchanged', message: 'Item 1 is already named item 1', name: 'item 1' });
  });

  test('the incremental sync resumes from its checkpoint; an action write shows in the cache at once', async () => {
    const renamed = (await nango.triggerAction(ITEMS, CONN, 'rename-item', { id: '3', name: 'third' })) as Json;
    assert.equal(renamed.name, 'third');
    const cached = (await records(ITEMS, 'Item')).find((r) => r.id === '3')!;
    assert.equal(cached.name, 'third');

    generic.updateItem('5', { name: 'fifth' });
    generic.addItem({ name: 'item 8' });
    const before = generic.requests.length;
    await nango.triggerSync(ITEMS, ['items'], CONN);
    const items = await waitFor('the second items run', async () => {
      const rs = live(await records(ITEMS, 'Item'));
      return rs.length === 8 && rs.some((r) => r.id === '5' && r.name === 'fifth') ? rs : null;
    });
    assert.equal(items.find((r) => r.id === '3')!.name, 'third');
    assert.equal(items.find((r) => r.id === '1')!.name, 'item 1', 'unchanged items are kept by an incremental run');
    const listings = generic.requests.slice(before).filter((q) => q.path === '/items');
    assert.ok(listings.length > 0);
    // The run asked only for what changed since the checkpoint (rename, update, addition).
    assert.ok(
      listings.every((q) => typeof q.query.updated_after === 'string' && q.query.updated_after.length > 0),
      JSON.stringify(listings.map((q) => q.query)),
    );
    const checkpointed = generic.state.items.filter((i) => i.updated_at > listings[0]!.query.updated_after!);
    assert.deepEqual(checkpointed.map((i) => i.id).sort(), ['3', '5', '8']);
  });
});
