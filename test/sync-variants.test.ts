import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { addMetabaseConnection, createMetabaseIntegration, enableMetabaseEndpoints, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { startMetabaseFake } from './fakes/index.js';
import { ScheduleNotFoundError } from '@temporalio/client';
import { syncScheduleId } from '../workflows/contracts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_variants=';

describe('sync variants', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;

  const statusOf = async (syncs: (string | { name: string; variant: string })[]) =>
    ((await nango.syncStatus('metabase', syncs as never, 'acme')) as Json).syncs as Json[];
  const baseRun = async () => (await statusOf(['users']))[0]!.finishedAt as string | null;

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    for (let i = 0; i < 5; i++) metabase.addUser({ email: `v${i}@example.com`, first_name: `F${i}`, last_name: `L${i}` });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await createMetabaseIntegration(t);
    await enableMetabaseEndpoints(t, ['GET /users']);
    await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId: 'acme' });
    await waitFor('the first run of the base sync', async () => ((await statusOf(['users']))[0]?.latestExecutionStatus === 'SUCCESS' ? true : null));
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('a variant that was never created is refused (400 naming it), never applied to the base sync', async () => {
    const frequency = await t.api('/sync/update-connection-frequency', {
      method: 'PUT',
      json: { sync_name: 'users', sync_variant: 'eu', provider_config_key: 'metabase', connection_id: 'acme', frequency: 'every 2 hours' },
    });
    assert.equal(frequency.status, 400, await frequency.clone().text());
    assert.equal((await statusOf(['users']))[0]!.frequency, 'every day', "the base sync's frequency is untouched");

    const finishedBefore = await baseRun();
    for (const [path, json] of [
      ['/sync/trigger', { syncs: [{ name: 'users', variant: 'eu' }], provider_config_key: 'metabase', connection_id: 'acme' }],
      ['/sync/trigger', { syncs: ['users::eu'], provider_config_key: 'metabase', connection_id: 'acme' }],
      ['/sync/pause', { syncs: [{ name: 'users', variant: 'eu' }], provider_config_key: 'metabase', connection_id: 'acme' }],
      ['/sync/start', { syncs: ['users::eu'], provider_config_key: 'metabase', connection_id: 'acme' }],
    ] as const) {
      const res = await t.api(path, { method: 'POST', json });
      assert.equal(res.status, 400, `${path} ${JSON.stringify(json)}: ${await res.clone().text()}`);
      const body = (await res.json()) as Json;
      assert.match(JSON.stringify(body.error), /eu/, `${path}: the answer names the variant`);
    }
    const status = await t.api('/sync/status?provider_config_key=metabase&connection_id=acme&syncs=users::eu');
    assert.equal(status.status, 400, await status.clone().text());
    const base = (await statusOf(['users']))[0]!;
    assert.equal(base.status, 'SUCCESS', 'the base sync was not paused');
    assert.equal(base.finishedAt, finishedBefore, 'the base sync did not run');
  });

  test('a created variant is its own sync instance: schedule, runs, records, frequency and pause; deleting it removes them', async () => {
    const schedule = (instance: string) =>
      t.platform.deps.temporal.schedule
        .getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'acme', instance))
        .describe()
        .catch((err: unknown) => (err instanceof ScheduleNotFoundError ? null : Promise.reject(err)));
    const records = async (variant?: string) =>
      ((await nango.listRecords({ providerConfigKey: 'metabase', connectionId: 'acme', model: 'User', ...(variant && { variant }) } as never)) as Json)
        .records as Json[];
    const eu = { name: 'users', variant: 'eu' };
    const body = { provider_config_key: 'metabase', connection_id: 'acme' };

    const created = await nango.createSyncVariant({ ...body, name: 'users', variant: 'eu' });
    assert.deepEqual({ name: created.name, variant: created.variant }, eu);
    assert.ok(created.id);
    assert.equal((await schedule('users::eu'))?.state.paused, false, "the variant's own schedule");
    const first = await waitFor('the first run of the variant', async () => {
      const s = (await statusOf([eu]))[0]!;
      return s.latestExecutionStatus === 'SUCCESS' ? s : null;
    });
    assert.equal(first.variant, 'eu');
    assert.deepEqual(first.recordCount, { User: 5 });
    assert.equal((await records('eu')).length, 5);

    // A run of the variant changes its records only.
    const baseFinished = await baseRun();
    const renamed = metabase.state.users.find((u) => u.email === 'v0@example.com')!;
    renamed.first_name = 'Renamed';
    await nango.triggerSync('metabase', [eu], 'acme');
    await waitFor('the second run of the variant', async () => {
      const s = (await statusOf(['users::eu']))[0]!;
      return s.finishedAt !== first.finishedAt && s.latestExecutionStatus === 'SUCCESS' ? s : null;
    });
    const nameIn = (rs: Json[]) => rs.find((r) => r.id === String(renamed.id))?.firstName;
    assert.equal(nameIn(await records('eu')), 'Renamed');
    assert.equal(nameIn(await records()), 'F0', "the base sync's records are untouched");
    assert.equal(nameIn(await records('base')), 'F0');
    assert.equal(await baseRun(), baseFinished, 'the base sync did not run');

    await nango.updateSyncConnectionFrequency('metabase', eu, 'acme', 'every 2 hours');
    await nango.pauseSync('metabase', [eu], 'acme');
    const both = await statusOf('*' as never);
    const byVariant = Object.fromEntries(both.map((s) => [s.variant, s]));
    assert.deepEqual(Object.keys(byVariant).sort(), ['base', 'eu']);
    assert.deepEqual([byVariant.eu.frequency, byVariant.eu.status], ['every 2 hours', 'PAUSED']);
    assert.notEqual(byVariant.base.status, 'PAUSED');
    assert.equal(byVariant.base.frequency, 'every day');
    assert.equal((await schedule('users::eu'))?.state.paused, true);
    assert.equal((await schedule('users'))?.state.paused, false);
    await nango.startSync('metabase', ['users::eu'], 'acme');
    assert.equal((await schedule('users::eu'))?.state.paused, false);

    const again = await t.api('/sync/users/variant/eu', { method: 'POST', json: body });
    assert.equal(again.status, 400);
    assert.equal(((await again.json()) as Json).error.code, 'sync_variant_already_exists');
    const protectedBase = await t.api('/sync/users/variant/BASE', { method: 'POST', json: body });
    assert.equal(((await protectedBase.json()) as Json).error.code, 'invalid_variant');
    const unknownSync = await t.api('/sync/nope/variant/eu', { method: 'POST', json: body });
    assert.equal(((await unknownSync.json()) as Json).error.code, 'unknown_sync');
    const badName = await t.api('/sync/users/variant/e%20u', { method: 'POST', json: body });
    assert.equal(((await badName.json()) as Json).error.code, 'invalid_uri_params');

    await waitFor('the run after start to end', async () => ((await statusOf([eu]))[0]!.latestExecutionStatus === 'RUNNING' ? null : true));
    await nango.deleteSyncVariant({ ...body, name: 'users', variant: 'eu' });
    assert.equal(await schedule('users::eu'), null, "the variant's schedule is gone");
    assert.notEqual(await schedule('users'), null);
    assert.deepEqual(await records('eu'), []);
    assert.equal((await records()).length, 5);
    const gone = await t.api('/sync/status?provider_config_key=metabase&connection_id=acme&syncs=users::eu');
    assert.equal(gone.status, 400);
    const deleteAgain = await t.api('/sync/users/variant/eu', { method: 'DELETE', json: body });
    assert.equal(deleteAgain.status, 404);
  });

  test('the page that arrives after the delete is not saved: the variant leaves no record behind', async () => {
    const body = { provider_config_key: 'metabase', connection_id: 'acme' };
    const scheduleId = syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'acme', 'users::late');
    const userCalls = () => metabase.requests.filter((r) => r.path === '/api/user').length;
    // The provider answers slowly: the variant's first run is still fetching when the variant is deleted.
    metabase.setLatency(1500);
    const callsBefore = userCalls();
    await nango.createSyncVariant({ ...body, name: 'users', variant: 'late' });
    await waitFor('the run to ask the provider for users', async () => (userCalls() > callsBefore ? true : null));
    await nango.deleteSyncVariant({ ...body, name: 'users', variant: 'late' });
    metabase.setLatency(0);

    const runs = await waitFor('the run started by the variant, in the visibility store', async () => {
      const ids: string[] = [];
      for await (const w of t.platform.deps.temporal.workflow.list({ query: `WorkflowId STARTS_WITH '${scheduleId}'` })) ids.push(w.workflowId);
      return ids.length > 0 ? ids : null;
    });
    for (const id of runs)
      await t.platform.deps.temporal.workflow
        .getHandle(id)
        .result()
        .catch(() => undefined);

    const { rows } = await t.platform.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM records WHERE model LIKE 'User::late%'`);
    assert.equal(rows[0]!.n, 0, 'no record of the deleted variant');
    const listed = await nango.listRecords({ providerConfigKey: 'metabase', connectionId: 'acme', model: 'User', variant: 'late' } as never);
    assert.deepEqual((listed as Json).records, []);
  });
});
