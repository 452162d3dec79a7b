import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { randomBytes } from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { SyncSchedules, syncScheduleTiming } from '../features/syncs/schedules.js';
import { checkWorkflowId, syncScheduleId } from '../workflows/contracts.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, createMetabaseIntegration, enableMetabaseEndpoints, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { startWorkerProcess } from './worker-process.js';
import { renameEveryUser, rewrittenUsers } from './exactly-once.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_syncs=';

const connect = (t: TestPlatform, metabaseUrl: string, connectionId: string) => addMetabaseConnection(t, metabaseUrl, API_KEY, { connectionId });

async function activateUsersSync(t: TestPlatform) {
  await createMetabaseIntegration(t);
  await enableMetabaseEndpoints(t, ['GET /users']);
}

async function status(nango: Nango, connectionId: string): Promise<Json> {
  return ((await nango.syncStatus('metabase', ['users'], connectionId)) as Json).syncs[0];
}

async function runAndWait(t: TestPlatform, nango: Nango, connectionId: string, opts: Json = {}) {
  const before = (await status(nango, connectionId))?.finishedAt ?? null;
  await nango.triggerSync('metabase', ['users'], connectionId, opts as never);
  return waitFor('the sync run to finish', async () => {
    const s = await status(nango, connectionId);
    return s.finishedAt && s.finishedAt !== before && s.latestExecutionStatus !== 'RUNNING' ? s : null;
  });
}

/**
 * The schedule as Temporal describes it: the catch-up window of SWITCHYARD_SYNC_CATCHUP_MINUTES=7
 * (not Temporal's default of a year nor the former fixed minute), the interval, and a phase offset
 * in whole seconds within SWITCHYARD_SYNC_SPREAD_SECONDS=3600.
 */
function assertTiming(schedule: ScheduleDescription, every: number) {
  assert.equal(schedule.policies.catchupWindow, 7 * 60_000);
  const interval = schedule.spec.intervals?.[0];
  assert.ok(interval, 'an interval spec');
  assert.equal(Number(interval.every), every);
  const offset = Number(interval.offset ?? 0);
  assert.ok(offset >= 0 && offset < 3_600_000 && offset % 1000 === 0, `offset ${offset} ms`);
}

describe('syncs and the records cache', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;

  before(async () => {
    // Schedule settings other than the defaults, so the describes below show they reach Temporal.
    t = await startTestPlatform({ env: { SWITCHYARD_SYNC_CATCHUP_MINUTES: '7', SWITCHYARD_SYNC_SPREAD_SECONDS: '3600' } });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    for (let i = 0; i < 250; i++) metabase.addUser({ email: `user${i}@example.com`, first_name: `First${i}`, last_name: `Last${i}` });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await activateUsersSync(t);
    await connect(t, metabase.url, 'acme');
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('an auto-start sync runs unattended on its schedule and fills the cache', async () => {
    const s = await waitFor('the first scheduled run', async () => {
      const st = await status(nango, 'acme');
      return st?.latestResult?.User?.added === 250 ? st : null;
    });
    assert.equal(s.recordCount.User, 250);
    assert.equal(s.frequency, 'every day');
    assert.ok(s.nextScheduledSyncAt);
    const schedule = await t.platform.deps.temporal.schedule
      .getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'acme', 'users'))
      .describe();
    assert.equal(schedule.state.paused, false);
    assertTiming(schedule, 86_400_000);
    // The schedule's next firing is Temporal's, and carries the phase offset.
    assert.equal(new Date(s.nextScheduledSyncAt).getTime() % 86_400_000, Number(schedule.spec.intervals?.[0]?.offset ?? 0));
    const pages = metabase.requests.filter((r) => r.path === '/api/user' && r.query.status === 'all');
    assert.deepEqual(
      pages.map((p) => p.query.offset),
      ['0', '100', '200'],
    );
  });

  test('a second run with no upstream change writes 0 rows', async () => {
    const before = await t.platform.deps.db.query(`SELECT max(cursor) AS c FROM records`);
    const s = await runAndWait(t, nango, 'acme');
    assert.deepEqual(s.latestResult.User, { added: 0, updated: 0, deleted: 0 });
    const afterRun = await t.platform.deps.db.query(`SELECT max(cursor) AS c FROM records`);
    assert.equal(afterRun.rows[0].c, before.rows[0].c);
  });

  test("a run's history (scheduled or triggered): the script is its only activity task; claim and finish are local activities in two workflow tasks", async () => {
    const { rows } = await t.platform.deps.db.query<{ id: string }>(`SELECT id FROM sync_runs WHERE status = 'SUCCESS' ORDER BY started_at`);
    // The schedule's first run and the triggered one just before.
    assert.ok(rows.some((r) => !r.id.includes(':trigger-')) && rows.some((r) => r.id.includes(':trigger-')), rows.map((r) => r.id).join(', '));
    for (const { id } of rows) {
      const [workflowId, runId] = id.split('/');
      const events = (await t.platform.deps.temporal.workflow.getHandle(workflowId!, runId).fetchHistory()).events ?? [];
      const activities = events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType?.name);
      const workflowTasks = events.filter((e) => e.workflowTaskScheduledEventAttributes).length;
      const markers = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
      assert.deepEqual({ activities, workflowTasks, markers }, { activities: ['executeSync'], workflowTasks: 2, markers: 2 }, id);
    }
  });

  test('upstream edits and deletions show as UPDATED and DELETED, with tombstones readable', async () => {
    const edited = metabase.state.users.find((u) => u.email === 'user3@example.com')!;
    edited.first_name = 'Renamed';
    const removedIndex = metabase.state.users.findIndex((u) => u.email === 'user7@example.com');
    const removedId = String(metabase.state.users[removedIndex]!.id);
    metabase.state.users.splice(removedIndex, 1);
    const s = await runAndWait(t, nango, 'acme');
    assert.deepEqual(s.latestResult.User, { added: 0, updated: 1, deleted: 1 });
    const changed = (await nango.listRecords({
      providerConfigKey: 'metabase',
      connectionId: 'acme',
      model: 'User',
      filter: 'updated,deleted',
    } as never)) as Json;
    const byId = Object.fromEntries(changed.records.map((r: Json) => [r.id, r]));
    assert.equal(byId[String(edited.id)].firstName, 'Renamed');
    assert.equal(byId[String(edited.id)]._nango_metadata.last_action, 'UPDATED');
    assert.equal(byId[removedId]._nango_metadata.last_action, 'DELETED');
    assert.ok(byId[removedId]._nango_metadata.deleted_at);
  });

  test('sync webhooks are emitted per model with counts', async () => {
    const events = await t.platform.deps.db.query(`SELECT payload FROM events WHERE type = 'sync' ORDER BY id`);
    const last = events.rows.at(-1).payload;
    assert.equal(last.model, 'User');
    assert.equal(last.success, true);
    assert.deepEqual(last.responseResults, { added: 0, updated: 1, deleted: 1 });
    assert.ok(last.modifiedAfter);
  });

  test('pausing stops runs and starting resumes them; frequency override and revert', async () => {
    await nango.pauseSync('metabase', ['users'], 'acme');
    let s = await status(nango, 'acme');
    assert.equal(s.status, 'PAUSED');
    assert.equal(
      (await t.platform.deps.temporal.schedule.getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'acme', 'users')).describe())
        .state.paused,
      true,
    );
    assert.equal(s.nextScheduledSyncAt, null);
    await nango.updateSyncConnectionFrequency('metabase', 'users', 'acme', 'every 2 hours');
    s = await status(nango, 'acme');
    assert.equal(s.frequency, 'every 2 hours');
    // An update keeps the configured catch-up window and re-derives the phase for the new interval.
    assertTiming(
      await t.platform.deps.temporal.schedule.getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'acme', 'users')).describe(),
      7_200_000,
    );
    const bad = await t.api('/sync/update-connection-frequency', {
      method: 'PUT',
      json: { sync_name: 'users', provider_config_key: 'metabase', connection_id: 'acme', frequency: 'every 5 seconds' },
    });
    assert.equal(bad.status, 400);
    await nango.updateSyncConnectionFrequency('metabase', 'users', 'acme', null as never);
    assert.equal((await status(nango, 'acme')).frequency, 'every day');
    const runsBefore = metabase.requests.length;
    await nango.startSync('metabase', ['users'], 'acme');
    s = await waitFor('a run after start', async () => {
      const st = await status(nango, 'acme');
      return metabase.requests.length > runsBefore && st.latestExecutionStatus === 'SUCCESS' ? st : null;
    });
    assert.notEqual(s.status, 'PAUSED');
    assert.equal(
      (await t.platform.deps.temporal.schedule.getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'acme', 'users')).describe())
        .state.paused,
      false,
    );
  });

  test('deactivating the endpoint removes the schedules; activating it again restores them; deleting the connection removes its schedules', async () => {
    const scheduled = (connectionId: string) =>
      t.platform.deps.temporal.schedule
        .getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', connectionId, 'users'))
        .describe()
        .then(
          () => true,
          (err: unknown) => {
            if (err instanceof ScheduleNotFoundError) return false;
            throw err;
          },
        );
    const setUsersEndpoint = async (enabled: boolean) => {
      const res = await t.api('/integrations/metabase/endpoints', { method: 'PATCH', json: { endpoints: [{ method: 'GET', path: '/users', enabled }] } });
      assert.equal(res.status, 200, await res.clone().text());
    };
    await connect(t, metabase.url, 'temp');
    assert.deepEqual([await scheduled('acme'), await scheduled('temp')], [true, true]);
    // The PATCH answers once every connection's schedules follow the endpoint.
    await setUsersEndpoint(false);
    assert.deepEqual([await scheduled('acme'), await scheduled('temp')], [false, false], 'schedules of acme and temp after deactivating GET /users');
    await setUsersEndpoint(true);
    assert.deepEqual([await scheduled('acme'), await scheduled('temp')], [true, true], 'schedules of acme and temp after activating GET /users again');
    await nango.deleteConnection('metabase', 'temp');
    await assert.rejects(
      t.platform.deps.temporal.schedule.getHandle(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'temp', 'users')).describe(),
    );
    await assert.rejects(
      t.platform.deps.temporal.schedule.getHandle(checkWorkflowId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'temp')).describe(),
    );
  });

  test('two deployments in one Temporal namespace (two task-queue prefixes) keep their own sync schedules', async () => {
    const { temporal } = t.platform.deps;
    const timing = syncScheduleTiming(t.config);
    const own = t.config.SWITCHYARD_TASK_QUEUE_PREFIX;
    const [a, b] = [new SyncSchedules(temporal, `${own}-a`, timing), new SyncSchedules(temporal, `${own}-b`, timing)];
    const target = { env: 'dev', connection: { id: 1, integrationKey: 'metabase', connectionId: 'two-deployments' }, syncName: 'users' };
    await a.ensure(target, '1h', { paused: true, runNow: false });
    await b.ensure(target, '1h', { paused: false, runNow: false });
    assert.equal(await a.nextRunAt(target), null, "b's schedule is not a's: a stays paused");
    assert.ok(await b.nextRunAt(target));
    await a.remove(target);
    assert.ok(await b.nextRunAt(target), "removing a's schedule leaves b's");
    await b.remove(target);
  });

  test("at start, a deployment's schedules under the former shared ids move to ids with its task queue (spec and state kept; two starts at once; another deployment's left)", async () => {
    const { temporal } = t.platform.deps;
    const prefix = `${t.config.SWITCHYARD_TASK_QUEUE_PREFIX}-mig`;
    const key = `mig-${randomBytes(3).toString('hex')}`;
    const legacy = { sync: `sync:dev:${key}:c1:users`, check: `check:dev:${key}:c1`, foreign: `sync:dev:${key}:c2:users` };
    const schedule = (id: string, taskQueue: string, workflowType: string, args: unknown[], workflowId?: string) =>
      temporal.schedule.create({
        scheduleId: id,
        spec: { intervals: [{ every: '2h', offset: '17s' }] },
        action: { type: 'startWorkflow', workflowType, taskQueue, args, ...(workflowId ? { workflowId } : {}) },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '7m' },
        state: { paused: true, note: 'paused through the API' },
      });
    // As a release before the fix wrote them: the sync's runs named after the schedule, the check's by Temporal's default.
    await schedule(legacy.sync, `${prefix}-dev`, 'syncWorkflow', [{ connectionPk: 41, syncName: 'users' }], legacy.sync);
    await schedule(legacy.check, `${prefix}-dev`, 'connectionCheckWorkflow', [{ connectionPk: 41 }]);
    // Another deployment's, under an id of the same shape.
    await schedule(legacy.foreign, `${prefix}-elsewhere-dev`, 'syncWorkflow', [{ connectionPk: 7, syncName: 'users' }], legacy.foreign);
    await waitFor('the schedules to be listed', async () => {
      const ids = new Set<string>();
      for await (const x of temporal.schedule.list()) ids.add(x.scheduleId);
      return Object.values(legacy).every((id) => ids.has(id));
    });

    const starts = await Promise.all([0, 1].map(() => startTestPlatform({ env: { SWITCHYARD_TASK_QUEUE_PREFIX: prefix }, runWorker: false })));
    await Promise.all(starts.map((p) => p.stop()));

    const moved = await temporal.schedule.getHandle(syncScheduleId(prefix, 'dev', key, 'c1', 'users')).describe();
    assert.equal(moved.action.type, 'startWorkflow');
    assert.equal(moved.action.workflowType, 'syncWorkflow');
    assert.equal(moved.action.taskQueue, `${prefix}-dev`);
    assert.equal(moved.action.workflowId, moved.scheduleId, "the sync's runs are named after the new id");
    assert.deepEqual(moved.action.args, [{ connectionPk: 41, syncName: 'users' }]);
    assert.deepEqual(
      moved.spec.intervals?.map((i) => [Number(i.every), Number(i.offset)]),
      [[7_200_000, 17_000]],
    );
    assert.equal(moved.policies.catchupWindow, 7 * 60_000);
    assert.equal(moved.policies.overlap, ScheduleOverlapPolicy.SKIP);
    assert.deepEqual([moved.state.paused, moved.state.note], [true, 'paused through the API']);
    const check = await temporal.schedule.getHandle(checkWorkflowId(prefix, 'dev', key, 'c1')).describe();
    assert.equal(check.action.type === 'startWorkflow' && check.action.workflowId, `${check.scheduleId}-workflow`);
    assert.deepEqual(check.action.type === 'startWorkflow' && check.action.args, [{ connectionPk: 41 }]);
    for (const id of [legacy.sync, legacy.check]) await assert.rejects(temporal.schedule.getHandle(id).describe(), ScheduleNotFoundError, id);
    const foreign = await temporal.schedule.getHandle(legacy.foreign).describe();
    assert.equal(foreign.action.type === 'startWorkflow' && foreign.action.taskQueue, `${prefix}-elsewhere-dev`);
    for (const id of [moved.scheduleId, check.scheduleId, legacy.foreign]) await temporal.schedule.getHandle(id).delete();
  });

  test('bad sync requests get clear 4xx answers', async () => {
    const unknown = await t.api('/sync/trigger', { method: 'POST', json: { syncs: ['nope'], provider_config_key: 'metabase' } });
    assert.equal(unknown.status, 400);
    const noPck = await t.api('/sync/trigger', { method: 'POST', json: { syncs: ['users'] } });
    assert.equal(((await noPck.json()) as Json).error.code, 'missing_provider_config_key');
    const mixed = await t.api('/sync/trigger', {
      method: 'POST',
      json: { syncs: ['users'], provider_config_key: 'metabase', opts: { reset: true }, full_resync: true },
    });
    assert.equal(mixed.status, 400);
  });
});

describe('a sync survives its worker being killed mid-run', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    for (let i = 0; i < 1950; i++) metabase.addUser({ email: `u${i}@example.com`, first_name: `F${i}`, last_name: `L${i}` });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  test('kill -9 during a 20-page sync: every record exactly once, no page fetched from the start again', async () => {
    let worker = await startWorkerProcess(t);
    try {
      metabase.setLatency(150);
      await activateUsersSync(t);
      await connect(t, metabase.url, 'big');
      const pages = () => metabase.requests.filter((r) => r.path === '/api/user' && r.query.status === 'all');
      await waitFor('8 pages fetched', async () => pages().length >= 8);
      await worker.kill();
      const fetchedBeforeKill = pages().map((p) => Number(p.query.offset));
      // From here a page saved again is a rewrite (UPDATED), not an unchanged upsert the cache skips.
      renameEveryUser(metabase);
      worker = await startWorkerProcess(t);
      const nango = new Nango({ secretKey: t.devKey, host: t.url });
      const s = await waitFor(
        'the resumed run to finish',
        async () => {
          const st = await status(nango, 'big');
          return st?.latestExecutionStatus === 'SUCCESS' ? st : null;
        },
        120_000,
      );
      assert.equal(s.recordCount.User, 1950);
      // Exactly once is counted where a duplicate would show (UNIQUE(external_id) alone cannot tell).
      // Two pages are in flight at the kill: the one being written, whose position is saved after
      // its records, and the next one, fetched ahead. In the cache, only the first may have been
      // saved before the kill and saved again after it: at most one page of records rewritten.
      const rewritten = await rewrittenUsers(t.platform.deps.db, 'big');
      assert.ok(rewritten <= 100, `${rewritten} records saved again after the restart: more than the one page being written at the kill`);
      // At the provider each page is asked for once; only those two may be asked for again, once each.
      const all = pages().map((p) => Number(p.query.offset));
      const inFlight = Math.max(...fetchedBeforeKill);
      const asked = new Map<number, number>();
      for (const o of all) asked.set(o, (asked.get(o) ?? 0) + 1);
      assert.equal(asked.size, 20, 'every page fetched');
      const again = [...asked].filter(([o, n]) => n > 1 && !((o === inFlight - 100 || o === inFlight) && n === 2)).map(([o, n]) => `offset ${o} ×${n}`);
      assert.deepEqual(again, [], `pages fetched again besides the two in flight at the kill (${inFlight - 100}, ${inFlight}), once each`);
      const after = all.slice(fetchedBeforeKill.length);
      assert.ok(after.length > 0);
      // After the restart the run goes on from the last page in flight, never from offset 0.
      assert.ok(!after.includes(0), `refetched from the start: ${after.join(',')}`);
      assert.ok(after[0]! >= inFlight - 100, `resumed at ${after[0]} after ${inFlight}`);
    } finally {
      metabase.setLatency(0);
      await worker.stop();
    }
  });
});
