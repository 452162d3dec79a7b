/**
 * The production topology (issue 19, item 2), run by `npm run test:prod-shape` (not by `npm test`:
 * it needs the Temporal server binaries, lib/embedded/temporal-server.ts). A private stack for this
 * file: an embedded PostgreSQL, a real Temporal server whose stores are databases of that
 * PostgreSQL, ONE API process and TWO worker processes polling the same task queues, all apart.
 *
 * Faults: kill -9 the worker that runs a sync mid-run and the worker that ran an action attempt
 * (the other worker finishes each, from Temporal's own record of who ran what); kill -9 and restart
 * the API; stop the Temporal server mid-sync and start it again. Search attributes are checked
 * through the server's SQL visibility store, schedules through the server's schedule records.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import { createPool, type Db } from '../lib/db/pool.js';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedPostgres } from '../lib/embedded/postgres.js';
import { freePort, type EmbeddedTemporal } from '../lib/embedded/temporal.js';
import { startTemporalServer } from '../lib/embedded/temporal-server.js';
import { startMetabaseFake, type MetabaseFake } from './fakes/index.js';
import { actionRunsFor, renameEveryUser, rewrittenUsers, userPosts } from './exactly-once.js';
import { assertRunning, killAllParts, startPart, type Part } from './parts.js';
import { waitFor as waitUntil } from './wait.js';
import { syncScheduleId } from '../workflows/contracts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const API_KEY = 'mb_prodshape=';
const PAGES = 20;
const USERS = 1950;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (m: string) => console.log(`[prod-shape] ${m}`);

describe('production shape: Temporal server on PostgreSQL, one API and two workers as separate processes', () => {
  let work = '';
  let pg: EmbeddedPostgres | null = null;
  let temporal: EmbeddedTemporal | null = null;
  let temporalPort = 0;
  let db: Db | null = null;
  let tClient: Client | null = null;
  let api: Part | null = null;
  const workers: Part[] = [];
  const fakes: MetabaseFake[] = [];
  let apiUrl = '';
  let env: Record<string, string> = {};
  const devKey = randomUUID();

  const startTemporal = () =>
    startTemporalServer({ dataDir: work, databaseServerUrl: pg!.url, port: temporalPort, headless: true, namespace: 'default', log: say });
  const startApi = async () => {
    api = await startPart('api', env);
  };
  const startWorker = async (i: number) => {
    workers[i] = await startPart('worker', env, `worker ${i + 1}`);
  };

  const waitFor = <T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 120_000): Promise<T> =>
    waitUntil(what, probe, timeoutMs, {
      everyMs: 200,
      ignoreErrors: true,
      detail: () => [api, ...workers].map((p) => (p ? `--- ${p.name} output (tail) ---\n${p.output().slice(-3000)}` : '')).join('\n'),
    });

  function call(pathname: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    headers.set('authorization', `Bearer ${devKey}`);
    if (json !== undefined) {
      headers.set('content-type', 'application/json');
      rest.body = JSON.stringify(json);
    }
    return fetch(apiUrl + pathname, { ...rest, headers });
  }

  /** A Metabase fake with USERS users, 150 ms per request (a 20-page sync takes about 3 s undisturbed). */
  async function bigFake(): Promise<MetabaseFake> {
    const fake = await startMetabaseFake({ apiKey: API_KEY });
    for (let i = 0; i < USERS; i++) fake.addUser({ email: `u${i}@example.com`, first_name: `F${i}`, last_name: `L${i}` });
    fakes.push(fake);
    return fake;
  }

  async function connect(connectionId: string, fake: MetabaseFake): Promise<void> {
    const res = await call('/connections', {
      method: 'POST',
      json: {
        provider_config_key: 'metabase',
        connection_id: connectionId,
        connection_config: { hostname: fake.url },
        credentials: { type: 'API_KEY', apiKey: API_KEY },
      },
    });
    assert.equal(res.status, 201, await res.text());
  }

  const pagesOf = (fake: MetabaseFake) => fake.requests.filter((r) => r.path === '/api/user' && r.query.status === 'all');

  /** The sync run of a connection, found through our search attributes in the server's visibility store. */
  async function runningSync(connectionId: string): Promise<WorkflowExecutionInfo | undefined> {
    const query = `SwitchyardEnvironment = 'dev' AND SwitchyardConnection = '${connectionId}' AND SwitchyardScript = 'users' AND ExecutionStatus = 'Running'`;
    for await (const wf of tClient!.workflow.list({ query })) return wf;
    return undefined;
  }

  const pidOf = (identity: string | null | undefined) => Number(identity?.split('@')[0]);

  /** The pending activity `type` of a workflow: its attempt, and the worker that started its last attempt (Temporal's record). */
  async function pendingActivity(workflowId: string, type: string): Promise<{ attempt: number; worker?: Part; failed: boolean } | undefined> {
    const description = await tClient!.workflow.getHandle(workflowId).describe();
    const pending = description.raw.pendingActivities?.find((a) => a.activityType?.name === type);
    if (!pending?.lastWorkerIdentity) return undefined;
    const pid = pidOf(pending.lastWorkerIdentity);
    return { attempt: pending.attempt ?? 1, worker: workers.find((w) => w.child.pid === pid), failed: Boolean(pending.lastFailure) };
  }

  /**
   * The attempt of activity `type` that completed, and the pid of the worker that ran it, from the
   * workflow's history (the server records the start of a retried activity's last attempt only).
   */
  async function completedAttempt(workflowId: string, type: string): Promise<{ attempt: number; pid: number }> {
    const history = await tClient!.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = new Map<string, string>();
    let last: { attempt: number; pid: number } | null = null;
    for (const e of history.events ?? []) {
      if (e.activityTaskScheduledEventAttributes) scheduled.set(String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? '');
      const started = e.activityTaskStartedEventAttributes;
      if (started && scheduled.get(String(started.scheduledEventId)) === type) last = { attempt: started.attempt ?? 1, pid: pidOf(started.identity) };
    }
    assert.ok(last, `no ${type} in the history of ${workflowId}`);
    return last;
  }

  async function syncState(connectionId: string): Promise<Json | undefined> {
    const { rows } = await db!.query(
      `SELECT s.* FROM sync_states s JOIN connections c ON c.id = s.connection_pk WHERE c.connection_id = $1 AND s.sync_name = 'users'`,
      [connectionId],
    );
    return rows[0] as Json | undefined;
  }

  const finishedSync = (connectionId: string) =>
    waitFor(`the ${connectionId} sync run to succeed`, async () => {
      const s = await syncState(connectionId);
      return s?.last_status === 'SUCCESS' && !s.running_run_id ? s : null;
    });

  /**
   * Every record stored, none saved again but those of `rewritable` pages (the page being written
   * at the fault, its position saved after its records; renameEveryUser at the fault makes a save
   * again a rewrite), and each page asked for once but those in flight at the fault (at most `refetchable`).
   */
  async function assertExactlyOnce(connectionId: string, fake: MetabaseFake, refetchable: number, rewritable: number): Promise<string> {
    const live = await db!.query(
      `SELECT count(*)::int AS n FROM records r JOIN connections c ON c.id = r.connection_pk WHERE c.connection_id = $1 AND r.model = 'User' AND r.deleted_at IS NULL`,
      [connectionId],
    );
    assert.equal(live.rows[0].n, USERS);
    const rewritten = await rewrittenUsers(db!, connectionId);
    assert.ok(rewritten <= rewritable * 100, `${rewritten} records saved again after the fault (at most ${rewritable} page(s) of 100 may be)`);
    const asked = new Map<string, number>();
    for (const p of pagesOf(fake)) asked.set(String(p.query.offset), (asked.get(String(p.query.offset)) ?? 0) + 1);
    assert.equal(asked.size, PAGES, 'every page fetched');
    const again = [...asked].filter(([, n]) => n > 1).map(([o, n]) => `offset ${o} ×${n}`);
    assert.ok(again.length <= refetchable && [...asked.values()].every((n) => n <= 2), `pages fetched again: ${again.join(', ')}`);
    return `${again.join(', ') || 'none'}; records saved again: ${rewritten}`;
  }

  before(async () => {
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'prod-shape-'));
    await chmod(work, 0o755);
    const pgDir = path.join(work, 'postgres');
    await mkdir(pgDir, { mode: 0o755 });
    await chmod(pgDir, 0o755);
    pg = await startEmbeddedPostgres(pgDir, await freePort());
    const databaseUrl = await ensureDatabase(pg.url, 'switchyard');
    temporalPort = await freePort();
    const started = Date.now();
    temporal = await startTemporal();
    say(`Temporal server on PostgreSQL ready in ${Date.now() - started} ms (${temporal.binary})`);
    db = createPool(databaseUrl, 4);
    tClient = new Client({ connection: await Connection.connect({ address: temporal.address }), namespace: 'default' });

    const apiPort = await freePort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    env = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      SWITCHYARD_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      SWITCHYARD_SECRET_KEY_DEV: devKey,
      SWITCHYARD_SECRET_KEY_PROD: randomUUID(),
      SWITCHYARD_TASK_QUEUE_PREFIX: `ps-${randomBytes(4).toString('hex')}`,
      SWITCHYARD_ALLOWED_PRIVATE_HOSTS: '127.0.0.1,localhost',
      SWITCHYARD_DATA_DIR: path.join(work, 'data'),
      SWITCHYARD_WORKFLOW_BUNDLE: process.env.SWITCHYARD_TEST_WORKFLOW_BUNDLE ?? '',
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    };
    await startApi(); // only the API creates the environments
    await Promise.all([startWorker(0), startWorker(1)]);
    assert.ok((await call('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } })).ok);
    const endpoints = [
      { method: 'GET', path: '/users', enabled: true },
      { method: 'POST', path: '/users', enabled: true },
    ];
    assert.equal((await call('/integrations/metabase/endpoints', { method: 'PATCH', json: { endpoints } })).status, 200);
  });

  after(async () => {
    await api?.stop().catch(() => undefined);
    for (const w of workers) await w.stop().catch(() => undefined);
    killAllParts();
    await tClient?.connection.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    for (const f of fakes) await f.close().catch(() => undefined);
    await temporal?.stop().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    await rm(work, { recursive: true, force: true }).catch(() => undefined);
  });

  test('1. kill -9 the worker running a 20-page sync → the other worker resumes it: every record exactly once; the run is found by its search attributes and its schedule is on the server', async () => {
    const fake = await bigFake();
    fake.setLatency(150);
    await connect('big-a', fake);
    const run = await waitFor('the sync run in the visibility store, by search attributes', () => runningSync('big-a'));
    await waitFor('6 pages fetched', async () => pagesOf(fake).length >= 6);
    const victim = await waitFor('the worker running executeSync', async () => (await pendingActivity(run.workflowId, 'executeSync'))?.worker);
    const survivor = workers.find((w) => w !== victim)!;
    const victimPid = victim.child.pid!;
    await victim.kill9();
    const fetchedAtKill = pagesOf(fake).length;
    renameEveryUser(fake);
    try {
      const state = await finishedSync('big-a');
      fake.setLatency(0);
      // The page being written (its position follows its records) and the one fetched ahead.
      const again = await assertExactlyOnce('big-a', fake, 2, 1);
      assert.equal(state.last_result?.User?.added, USERS, JSON.stringify(state.last_result));
      const done = await completedAttempt(run.workflowId, 'executeSync');
      assert.equal(done.pid, survivor.child.pid, 'the surviving worker ran the attempt that completed');
      assert.ok(done.attempt >= 2, `a retry completed (attempt ${done.attempt})`);
      const schedule = await tClient!.schedule.getHandle(syncScheduleId(env.SWITCHYARD_TASK_QUEUE_PREFIX!, 'dev', 'metabase', 'big-a', 'users')).describe();
      assert.equal(schedule.action.type, 'startWorkflow');
      assert.equal(schedule.action.workflowType, 'syncWorkflow');
      say(
        `1 injected: kill -9 of ${victim.name} (pid ${victimPid}) after ${fetchedAtKill} of ${PAGES} pages; checked: ${survivor.name} (pid ${done.pid}) completed executeSync attempt ${done.attempt}, ${USERS} records each written once, pages again: ${again}; found by search attributes; schedule on the server`,
      );
    } finally {
      fake.setLatency(0);
      await startWorker(workers.indexOf(victim));
    }
  });

  test('2. kill -9 the worker that ran an action attempt answered 429 → the other worker runs the retry; the user is created once', async () => {
    const fake = await startMetabaseFake({ apiKey: API_KEY });
    fakes.push(fake);
    await connect('acme', fake);
    const email = 'two-workers@example.com';
    fake.failNext({ status: 429, headers: { 'retry-after': '4' }, match: (r) => r.method === 'POST' && r.path === '/api/user' });
    const started = await call('/action/trigger', {
      method: 'POST',
      headers: { 'connection-id': 'acme', 'provider-config-key': 'metabase', 'x-async': 'true' },
      json: { action_name: 'create-user', input: { firstName: 'Two', lastName: 'Workers', email } },
    });
    assert.equal(started.status, 202, await started.clone().text());
    const runId = ((await started.json()) as Json).id as string;
    const workflowId = `action:dev:${runId}`;
    await waitFor('the 429', async () => fake.requests.some((r) => r.method === 'POST' && r.status === 429));
    const first = await waitFor('the first runAction attempt to have failed', async () => {
      const p = await pendingActivity(workflowId, 'runAction');
      return p?.failed && p.worker ? p : null;
    });
    const victim = first.worker!;
    const survivor = workers.find((w) => w !== victim)!;
    await victim.kill9();
    try {
      const result = await waitFor('the action result', async () => {
        const res = await call(`/action/${runId}`);
        return res.status === 200 ? ((await res.json()) as Json) : null;
      });
      assert.equal(result.email, email);
      assert.deepEqual(userPosts(fake, email), [429, 200], 'POSTs at the provider: the one refused with 429, then the one that created the user');
      assert.equal(await actionRunsFor(db!, email), 1, 'one action run');
      const done = await completedAttempt(workflowId, 'runAction');
      assert.deepEqual(done, { attempt: 2, pid: survivor.child.pid }, 'the retry ran on the other worker');
    } finally {
      await startWorker(workers.indexOf(victim));
    }
    say(`2 injected: kill -9 of ${victim.name} during the Retry-After wait of action ${runId}; checked: ${survivor.name} ran the retry, user created once`);
  });

  test('3. kill -9 the API and start it again → the workers go on; the new API serves the records, triggers a sync and runs an action', async () => {
    const fake = await bigFake();
    fake.setLatency(150);
    await connect('big-b', fake);
    await waitFor('4 pages fetched', async () => pagesOf(fake).length >= 4);
    await api!.kill9();
    const fetchedWhileDown = pagesOf(fake).length;
    renameEveryUser(fake);
    await sleep(1000);
    await startApi();
    const first = await finishedSync('big-b');
    fake.setLatency(0);
    const again = await assertExactlyOnce('big-b', fake, 0, 0);
    const records = await call('/records?model=User&limit=5', { headers: { 'connection-id': 'big-b', 'provider-config-key': 'metabase' } });
    assert.equal(records.status, 200, await records.clone().text());
    assert.equal((((await records.json()) as Json).records as Json[]).length, 5);
    const trigger = await call('/sync/trigger', { method: 'POST', json: { syncs: ['users'], provider_config_key: 'metabase', connection_id: 'big-b' } });
    assert.ok(trigger.ok, await trigger.text());
    await waitFor('the triggered run to succeed', async () => {
      const st = await syncState('big-b');
      return st?.last_run_id !== first.last_run_id && st?.last_status === 'SUCCESS' && !st.running_run_id;
    });
    const action = await call('/action/trigger', {
      method: 'POST',
      headers: { 'connection-id': 'big-b', 'provider-config-key': 'metabase' },
      json: { action_name: 'create-user', input: { firstName: 'After', lastName: 'Restart', email: 'after-restart@example.com' } },
    });
    assert.equal(action.status, 200, await action.clone().text());
    assertRunning(workers, 'both workers alive');
    say(
      `3 injected: kill -9 of the API during a sync (${fetchedWhileDown} pages fetched at the kill); checked: the sync finished (pages again: ${again}), records served, sync triggered and action run through the new API`,
    );
  });

  test('4. stop the Temporal server mid-sync for 5 s and start it again → the run completes, every record exactly once; API and workers survive', async () => {
    const fake = await bigFake();
    fake.setLatency(150);
    await connect('big-c', fake);
    await waitFor('6 pages fetched', async () => pagesOf(fake).length >= 6);
    await temporal!.stop();
    const fetchedAtStop = pagesOf(fake).length;
    renameEveryUser(fake);
    say('Temporal server stopped');
    await sleep(5000);
    const started = Date.now();
    temporal = await startTemporal();
    say(`Temporal server started again on the same port and databases in ${Date.now() - started} ms`);
    await finishedSync('big-c');
    fake.setLatency(0);
    const again = await assertExactlyOnce('big-c', fake, 1, 1);
    assertRunning([api!, ...workers], 'API and workers survived the Temporal restart');
    assert.ok(await runningSync('big-c').then(() => true), 'visibility answers after the restart');
    say(
      `4 injected: Temporal server down 5 s after ${fetchedAtStop} of ${PAGES} pages; checked: run SUCCESS, ${USERS} records each written once, pages again: ${again}; API and workers alive`,
    );
  });
});
