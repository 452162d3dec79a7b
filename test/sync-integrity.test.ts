/**
 * Sync integrity (issue 14, items 1 and 3) with a deployed two-model full sync, the worker in its
 * own OS process: runs without upstream change delete nothing, one upstream deletion is one
 * tombstone, a finish whose worker is killed after its delete step deletes nothing extra when
 * retried, and a worker killed between a save and its counter loses no count (the sync webhook
 * still carries the change).
 *
 * The kill points are pinned with a test-only Postgres trigger: the statement that comes next
 * waits on an advisory lock this test holds, the worker is SIGKILLed while it waits, and the
 * statement's backend is terminated with it (as if the worker had died just before sending it).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import pg from 'pg';
import { bundle, manifestOf } from '../cli/build.js';
import { findScripts } from '../cli/project.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const API_KEY = 'mb_integrity=';
const PCK = 'directory';
const ZERO = { added: 0, updated: 0, deleted: 0 };

// Active and deactivated users as two models of one full sync: deletion detection runs per model.
const PEOPLE_SYNC = `import { z } from 'zod';
import { createSync } from 'switchyard/sdk';
const Person = z.object({ id: z.string(), email: z.string() });
export default createSync({
  description: 'Active and deactivated users, as two models',
  frequency: 'every day',
  autoStart: true,
  syncType: 'full',
  endpoints: [{ method: 'GET', path: '/people' }],
  models: { ActiveUser: Person, InactiveUser: Person },
  async exec(ctx) {
    const res = await ctx.get<{ data: { id: number; email: string; is_active: boolean }[] }>({ endpoint: '/api/user', params: { status: 'all' } });
    const people = (active: boolean) => res.data.data.filter((u) => u.is_active === active).map((u) => ({ id: String(u.id), email: u.email }));
    await ctx.batchSave(people(true), 'ActiveUser');
    await ctx.batchSave(people(false), 'InactiveUser');
  },
});
`;

describe('sync integrity: deletion detection and counters survive retries and worker kills', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let worker: WorkerProcess;
  let nango: Nango;
  let work: string;
  let locker: pg.Client;

  const q = async (sql: string, args: unknown[] = []) => (await t.platform.deps.db.query(sql, args)).rows as Json[];
  const runs = (connectionId: string) =>
    q(
      `SELECT r.id, r.status, r.results FROM sync_runs r JOIN connections c ON c.id = r.connection_pk WHERE c.connection_id = $1 AND r.sync_name = 'people' ORDER BY r.started_at`,
      [connectionId],
    );
  /** Starts one run (`start`) and returns it once finished; each test stands on its own. */
  const oneRun = async (connectionId: string, start: () => Promise<unknown>, timeoutMs?: number) => {
    const n = (await runs(connectionId)).length;
    await start();
    return waitFor(
      'the run to finish',
      async () => {
        const run = (await runs(connectionId))[n];
        return run && run.status !== 'RUNNING' ? run : null;
      },
      timeoutMs,
    );
  };
  const trigger = (connectionId: string) => () => nango.triggerSync(PCK, ['people'], connectionId);
  const tombstones = async (connectionId: string) =>
    await q(
      `SELECT r.external_id, r.model FROM records r JOIN connections c ON c.id = r.connection_pk
        WHERE c.connection_id = $1 AND r.model IN ('ActiveUser', 'InactiveUser') AND r.deleted_at IS NOT NULL ORDER BY r.model, r.external_id`,
      [connectionId],
    );
  /** Tombstones made since `before`, counted per model ("Model:n"). */
  const newTombstones = async (connectionId: string, before: Json[]) => {
    const known = new Set(before.map((r) => `${r.model}/${r.external_id}`));
    const counts = new Map<string, number>();
    for (const r of await tombstones(connectionId)) if (!known.has(`${r.model}/${r.external_id}`)) counts.set(r.model, (counts.get(r.model) ?? 0) + 1);
    return [...counts].map(([model, n]) => `${model}:${n}`);
  };
  const live = async (connectionId: string, model: string) =>
    (
      await q(
        `SELECT r.external_id FROM records r JOIN connections c ON c.id = r.connection_pk
          WHERE c.connection_id = $1 AND r.model = $2 AND r.deleted_at IS NULL ORDER BY r.external_id`,
        [connectionId, model],
      )
    ).map((r) => r.external_id as string);
  const upstream = (active: boolean) =>
    metabase.state.users
      .filter((u) => u.type === 'personal' && u.is_active === active)
      .map((u) => String(u.id))
      .sort();
  const connect = (connectionId: string) => addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: PCK, connectionId });
  const removeUpstream = (active: boolean) => {
    const i = metabase.state.users.findIndex((u) => u.type === 'personal' && u.is_active === active);
    return String(metabase.state.users.splice(i, 1)[0]!.id);
  };

  /** The next UPDATE of sync_runs matching `when` waits until `release` (test-only trigger). */
  async function trap(name: string, key: number, when: string) {
    await locker.query('SELECT pg_advisory_lock($1)', [key]);
    await q(`CREATE TRIGGER ${name} BEFORE UPDATE ON sync_runs FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION integrity_test_wait('${key}')`);
    return {
      /** Waits until the worker's statement is held by the trap. */
      held: () =>
        waitFor(`the worker to reach the ${name} trap`, async () => {
          const rows = await q(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`);
          return rows.length > 0;
        }),
      async release() {
        await locker.query('SELECT pg_advisory_unlock($1)', [key]);
        await q(`DROP TRIGGER ${name} ON sync_runs`);
      },
    };
  }

  /** SIGKILL the worker while its statement is held; its waiting backends die with it. Then a fresh worker. */
  async function killWorkerAndRestart(release: () => Promise<void>) {
    await worker.kill();
    await q(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    );
    await release();
    worker = await startWorkerProcess(t);
  }

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    worker = await startWorkerProcess(t);
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    for (let i = 0; i < 6; i++) metabase.addUser({ email: `person${i}@example.com`, first_name: `P${i}`, last_name: 'X', is_active: i < 4 });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    locker = new pg.Client({ connectionString: t.databaseUrl });
    await locker.connect();
    await q(`CREATE FUNCTION integrity_test_wait() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN PERFORM pg_advisory_xact_lock_shared(TG_ARGV[0]::bigint); RETURN NEW; END $$`);

    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: PCK } })).status, 200);
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'sync-integrity-'));
    await mkdir(path.join(work, 'node_modules'), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules', 'zod'), path.join(work, 'node_modules', 'zod'), 'dir');
    await mkdir(path.join(work, PCK, 'syncs'), { recursive: true });
    await writeFile(path.join(work, PCK, 'syncs', 'people.ts'), PEOPLE_SYNC);
    const scripts = [];
    for (const s of await findScripts(work)) {
      const code = await bundle(work, s);
      scripts.push({ integration: s.integration, name: s.name, bundle: code, manifest: await manifestOf(work, s, code) });
    }
    const deployed = await t.api('/scripts/deploy', { method: 'POST', json: { scripts, activate: true, cli_version: '0.67.0' } });
    assert.equal(deployed.status, 200, await deployed.clone().text());
  });
  after(async () => {
    await worker?.stop();
    await locker?.end().catch(() => undefined);
    await t?.stop();
    await metabase?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('a two-model full sync run twice without upstream change deletes nothing', async () => {
    const first = await oneRun('acme', () => connect('acme'));
    assert.equal(first.status, 'SUCCESS');
    assert.deepEqual(first.results, { ActiveUser: { added: 4, updated: 0, deleted: 0 }, InactiveUser: { added: 2, updated: 0, deleted: 0 } });
    const second = await oneRun('acme', trigger('acme'));
    assert.equal(second.status, 'SUCCESS');
    assert.deepEqual(second.results, { ActiveUser: ZERO, InactiveUser: ZERO });
    assert.deepEqual(await tombstones('acme'), []);
    assert.deepEqual(await live('acme', 'ActiveUser'), upstream(true));
    assert.deepEqual(await live('acme', 'InactiveUser'), upstream(false));
  });

  test('one upstream deletion gives exactly one tombstone', async () => {
    const before = await tombstones('acme');
    removeUpstream(false);
    const run = await oneRun('acme', trigger('acme'));
    assert.deepEqual(run.results, { ActiveUser: ZERO, InactiveUser: { added: 0, updated: 0, deleted: 1 } });
    assert.deepEqual(await newTombstones('acme', before), ['InactiveUser:1']);
    assert.deepEqual(await live('acme', 'ActiveUser'), upstream(true));
    assert.deepEqual(await live('acme', 'InactiveUser'), upstream(false));
  });

  test('a finish whose worker is killed after its delete step, retried, deletes nothing extra', async () => {
    const before = await tombstones('acme');
    removeUpstream(true);
    // Held at the UPDATE that marks the run done: every delete step of the finish came before it.
    const markDone = await trap('integrity_mark_done', 7001, `OLD.sync_name = 'people' AND OLD.status = 'RUNNING' AND NEW.status = 'SUCCESS'`);
    const run = await oneRun(
      'acme',
      async () => {
        await trigger('acme')();
        await markDone.held();
        await killWorkerAndRestart(markDone.release);
      },
      240_000,
    );
    assert.equal(run.status, 'SUCCESS');
    assert.deepEqual(run.results, { ActiveUser: { added: 0, updated: 0, deleted: 1 }, InactiveUser: ZERO });
    assert.deepEqual(await newTombstones('acme', before), ['ActiveUser:1']);
    assert.deepEqual(await live('acme', 'ActiveUser'), upstream(true));
    assert.deepEqual(await live('acme', 'InactiveUser'), upstream(false));
    assert.deepEqual(await q(`SELECT run_id FROM sync_run_seen WHERE run_id = $1`, [run.id]), [], 'the run forgot its seen ids');
  });

  test('a worker killed between a save and its counter loses no count: the sync webhook carries the change', async () => {
    // Held at the first counter update of the run (the save of ActiveUser).
    const counter = await trap(
      'integrity_counter',
      7002,
      `OLD.sync_name = 'people' AND OLD.status = 'RUNNING' AND NEW.status = 'RUNNING' AND NEW.results IS DISTINCT FROM OLD.results`,
    );
    const run = await oneRun(
      'counts',
      async () => {
        await connect('counts');
        await counter.held();
        await killWorkerAndRestart(counter.release);
      },
      240_000,
    );
    assert.equal(run.status, 'SUCCESS');
    const expected = {
      ActiveUser: { added: upstream(true).length, updated: 0, deleted: 0 },
      InactiveUser: { added: upstream(false).length, updated: 0, deleted: 0 },
    };
    assert.deepEqual(run.results, expected);
    // The run is marked done before its webhooks are emitted (finishSync): wait for both models' events.
    const events = await waitFor('the sync events of both models', async () => {
      const rows = await q(
        `SELECT payload FROM events WHERE type = 'sync' AND payload->>'connectionId' = 'counts' AND payload->>'syncName' = 'people' ORDER BY id`,
      );
      return rows.length >= 2 ? rows : null;
    });
    assert.deepEqual(Object.fromEntries(events.map((e) => [e.payload.model, e.payload.responseResults])), expected);
  });
});
