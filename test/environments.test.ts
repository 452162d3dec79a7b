/**
 * Environments made and deleted at run time and scoped API keys (issue 31 item 4), at Nango's
 * paths: a created environment's key runs an action and a sync on its own task queue; deleting it
 * leaves no schedule, workflow or key behind; a key without a route's scope gets 403 naming it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startMetabaseFake } from './fakes/index.js';
import { connectMetabase, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_environments=';
const ACME = { 'connection-id': 'acme', 'provider-config-key': 'metabase' };

describe('environments and API keys', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  /** The platform as seen with another key. */
  const as = (key: string): TestPlatform => ({ ...t, api: (p, init = {}) => t.api(p, { ...init, key }) });
  const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Json });
  const schedulesOf = async (taskQueue: string) => {
    const ids: string[] = [];
    for await (const s of t.platform.deps.temporal.schedule.list()) if (s.scheduleId.includes(`:${taskQueue}:`)) ids.push(s.scheduleId);
    return ids;
  };

  test('a created environment is usable with its default key: an action and a sync run on its own task queue; deleting it leaves nothing behind', async () => {
    const created = await json(await t.api('/environments', { method: 'POST', json: { name: 'staging' } }));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.data.name, 'staging');
    const { id, uuid } = created.body.data as { id: number; uuid: string };
    const listed = await json(await t.api('/environments?name=staging'));
    assert.deepEqual(listed.body.data, [{ id, uuid, name: 'staging', is_production: false }]);
    assert.equal((await t.api('/environments', { method: 'POST', json: { name: 'staging' } })).status, 409);

    // Its full-access key, read back as Nango's dashboard shows it.
    const keys = await json(await t.api(`/environments/${uuid}/api-keys`));
    assert.deepEqual(
      keys.body.data.map((k: Json) => [k.display_name, k.scopes]),
      [['Default - Full access', ['environment:*']]],
    );
    assert.equal(keys.body.data[0].secret, undefined, 'a listing shows no secret');
    const secret = (await json(await t.api(`/environments/${uuid}/api-keys/${keys.body.data[0].uuid}`))).body.data.secret as string;

    const queue = `${t.config.SWITCHYARD_TASK_QUEUE_PREFIX}-staging`;
    await waitFor('a worker polling the new environment', async () => t.platform.workers!.taskQueues.includes(queue));
    const staging = as(secret);
    await connectMetabase(staging, metabase.url, API_KEY, { endpoints: ['POST /users', 'GET /users'] });
    const action = await json(
      await staging.api('/action/trigger', {
        method: 'POST',
        headers: ACME,
        json: { action_name: 'create-user', input: { firstName: 'Sta', lastName: 'Ging', email: 'staging@example.com' } },
      }),
    );
    assert.equal(action.status, 200, JSON.stringify(action.body));
    assert.equal(action.body.email, 'staging@example.com');
    await waitFor('the sync of the new environment stored records', async () => {
      const records = await json(await staging.api('/records?model=User', { headers: ACME }));
      return records.status === 200 && records.body.records.length > 0;
    });
    // The dev key sees none of it: environments are apart.
    assert.equal((await t.api('/connections/acme?provider_config_key=metabase')).status, 400);
    const schedules = await schedulesOf(queue);
    assert.ok(schedules.some((s) => s.startsWith('sync:')) && schedules.some((s) => s.startsWith('check:')), schedules.join(', '));

    const deleted = await t.api(`/environments/${id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 204, await deleted.clone().text());
    assert.deepEqual(await schedulesOf(queue), []);
    const running: string[] = [];
    for await (const w of t.platform.deps.temporal.workflow.list({ query: `TaskQueue = '${queue}' AND ExecutionStatus = 'Running'` }))
      running.push(w.workflowId);
    assert.deepEqual(running, []);
    assert.equal((await staging.api('/connections')).status, 401, 'its keys went with it');
    await waitFor('its worker stopped', async () => !t.platform.workers!.taskQueues.includes(queue));
    assert.equal((await t.api(`/environments/${uuid}`, { method: 'DELETE' })).status, 404);
    const rows = await t.platform.deps.db.query('SELECT 1 FROM integrations WHERE unique_key = $1', ['metabase']);
    assert.equal(rows.rowCount, 0);
  });

  test('a key without the scope a route needs gets 403 naming it; with it, the route answers', async () => {
    const env = (await json(await t.api('/environments', { method: 'POST', json: { name: 'scoped' } }))).body.data as { id: number; uuid: string };
    const full = await json(await t.api(`/environments/${env.uuid}/api-keys`, { method: 'POST', json: { display_name: 'full' } }));
    assert.equal(full.status, 200, JSON.stringify(full.body));
    assert.deepEqual(full.body.data.scopes, ['environment:*']);
    await connectMetabase(as(full.body.data.secret), metabase.url, API_KEY, { endpoints: ['POST /users'] });

    const reader = await json(
      await t.api(`/environments/${env.uuid}/api-keys`, { method: 'POST', json: { display_name: 'reader', scopes: ['environment:connections:read'] } }),
    );
    assert.equal(reader.status, 200, JSON.stringify(reader.body));
    const scoped = as(reader.body.data.secret);
    // Without environment:connections:read_credentials: the connection without its credentials, as Nango
    // answers, and 403 for the options that touch them; with it (the full key), the credentials.
    const withoutCredentials = await json(await scoped.api('/connections/acme?provider_config_key=metabase'));
    assert.equal(withoutCredentials.status, 200, JSON.stringify(withoutCredentials.body));
    assert.equal(withoutCredentials.body.connection_id, 'acme');
    assert.deepEqual(withoutCredentials.body.credentials, {});
    for (const option of ['refresh_token=true', 'force_refresh=true']) {
      const refusedOption = await json(await scoped.api(`/connections/acme?provider_config_key=metabase&${option}`));
      assert.equal(refusedOption.status, 403, option);
      assert.match(refusedOption.body.error.message, /environment:connections:read_credentials/);
    }
    const withCredentials = await json(await as(full.body.data.secret).api('/connections/acme?provider_config_key=metabase'));
    assert.equal(withCredentials.body.credentials.apiKey, API_KEY);
    const integrationReader = await json(
      await t.api(`/environments/${env.uuid}/api-keys`, { method: 'POST', json: { display_name: 'integrations', scopes: ['environment:integrations:read'] } }),
    );
    const integrationSeen = await json(await as(integrationReader.body.data.secret).api('/integrations/metabase?include=credentials'));
    assert.equal(integrationSeen.status, 200, JSON.stringify(integrationSeen.body));
    assert.equal('credentials' in integrationSeen.body.data, false);
    const integrationFull = await json(await as(full.body.data.secret).api('/integrations/metabase?include=credentials'));
    assert.equal('credentials' in integrationFull.body.data, true, JSON.stringify(integrationFull.body));
    const refused = await json(await scoped.api('/action/trigger', { method: 'POST', headers: ACME, json: { action_name: 'create-user', input: {} } }));
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
    assert.match(refused.body.error.message, /environment:actions:execute/);
    assert.deepEqual(refused.body.error.payload, { required_scopes: ['environment:actions:execute'] });
    // A script endpoint (Nango's /v1 passthrough) needs the scope of what it runs.
    const viaEndpoint = await json(await scoped.api('/users', { method: 'POST', headers: ACME, json: { firstName: 'A', lastName: 'B', email: 'a@b.c' } }));
    assert.equal(viaEndpoint.status, 403);
    assert.match(viaEndpoint.body.error.message, /environment:actions:execute/);
    // Environment keys administer nothing: account scopes stay with the default secret keys.
    const admin = await json(await scoped.api('/environments', { method: 'POST', json: { name: 'nope' } }));
    assert.equal(admin.status, 403);
    assert.match(admin.body.error.message, /account:environments:create/);
    const fullAdmin = await as(full.body.data.secret).api('/environments', { method: 'POST', json: { name: 'nope' } });
    assert.equal(fullAdmin.status, 403);

    // Nango's published paths, by numeric id: create, then delete, and the key stops at once.
    const legacy = await json(await t.api('/environment/api-keys', { method: 'POST', json: { environment_id: env.id, display_name: 'ci' } }));
    assert.equal(legacy.status, 200, JSON.stringify(legacy.body));
    assert.equal((await as(legacy.body.data.secret).api('/connections')).status, 200);
    const removed = await json(await t.api('/environment/api-keys', { method: 'DELETE', json: { environment_id: env.id, key_id: legacy.body.data.id } }));
    assert.deepEqual(removed, { status: 200, body: { success: true } });
    assert.equal((await as(legacy.body.data.secret).api('/connections')).status, 401);
    assert.equal((await t.api(`/environments/${env.uuid}/api-keys/${reader.body.data.uuid}`, { method: 'DELETE' })).status, 200);
    assert.equal((await scoped.api('/connections/acme?provider_config_key=metabase')).status, 401);
    assert.equal((await t.api(`/environments/${env.uuid}`, { method: 'DELETE' })).status, 204);
  });

  test('dev and prod cannot be deleted; the default keys keep full access', async () => {
    const envs = (await json(await t.api('/environments'))).body.data as { id: number; name: string; is_production: boolean }[];
    const dev = envs.find((e) => e.name === 'dev')!;
    const prod = envs.find((e) => e.name === 'prod')!;
    assert.equal(prod.is_production, true);
    const devDelete = await json(await t.api(`/environments/${dev.id}`, { method: 'DELETE' }));
    assert.equal(devDelete.status, 400);
    assert.equal(devDelete.body.error.code, 'cannot_delete_default_environment');
    const prodDelete = await json(await t.api(`/environments/${prod.id}`, { method: 'DELETE', key: t.prodKey }));
    assert.equal(prodDelete.status, 400);
    assert.equal(prodDelete.body.error.code, 'cannot_delete_prod_environment');
    assert.equal((await t.api('/environment')).status, 200);
  });

  test('bad input is a 400 naming the field', async () => {
    const field = async (res: Response) => {
      const { status, body } = await json(res);
      assert.equal(status, 400, JSON.stringify(body));
      return [body.error.code, body.error.errors?.map((e: Json) => e.path.join('.'))];
    };
    assert.deepEqual(await field(await t.api('/environments', { method: 'POST', json: { name: 'Not A Name' } })), ['invalid_body', ['name']]);
    assert.deepEqual(await field(await t.api('/environments', { method: 'POST', json: { name: 'x', slack_notifications: true } })), [
      'invalid_body',
      ['slack_notifications'],
    ]);
    assert.deepEqual(await field(await t.api('/environments/abc', { method: 'DELETE' })), ['invalid_uri_params', ['environmentId']]);
    assert.deepEqual(await field(await t.api('/environments/99999999999', { method: 'DELETE' })), ['invalid_uri_params', ['environmentId']]);
    const dev = (await json(await t.api('/environments?name=dev'))).body.data[0] as { id: number; uuid: string };
    assert.deepEqual(await field(await t.api(`/environments/${dev.uuid}/api-keys`, { method: 'POST', json: { display_name: 'x', scopes: ['account:*'] } })), [
      'invalid_body',
      ['scopes.0'],
    ]);
    assert.deepEqual(await field(await t.api('/environment/api-keys', { method: 'POST', json: { environment_id: 0, display_name: 'x' } })), [
      'invalid_body',
      ['environment_id'],
    ]);
    assert.deepEqual(await field(await t.api(`/environments/${dev.uuid}/api-keys/not-a-uuid`)), ['invalid_uri_params', ['keyUuid']]);
    assert.equal((await t.api('/environment/api-keys', { method: 'DELETE', json: { environment_id: dev.id, key_id: 123456 } })).status, 404);
  });
});
