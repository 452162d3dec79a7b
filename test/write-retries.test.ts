/**
 * Writes repeated at the third party (issue 14, item 2; issue 28, item 4): a POST whose answer is
 * lost after the provider created the object is sent once when it carries no Idempotency-Key
 * (neither the script context nor Temporal sends it again), and with the key the context adds on
 * request, every retry, Temporal's included, carries the same key so the provider creates one object.
 * The same holds for syncs, onWebhook and post-connection scripts, and for an action whose worker is
 * killed while its POST is in flight: the write is marked in Postgres before it leaves, and the
 * retry that finds the mark does not run the script again.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { createAction, createOnEvent, createSync } from '../sdk/index.js';
import { onEventWorkflowId, syncWebhookWorkflowId, workflowHandle } from '../workflows/contracts.js';
import { deployScripts } from './deploy-scripts.js';
import { startWritesFake, type WritesFake } from './fakes/writes.js';
import { addMetabaseConnection, ACME, connectMetabase, startTestPlatform, triggerAction, waitFor, type TestPlatform } from './harness.js';
import { startWorkerProcess } from './worker-process.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The messages of an error and its causes (a workflow's failure wraps the activity's). */
const causes = (err: unknown): string => (err instanceof Error ? [err.message, err.cause ? causes(err.cause) : ''].join(' ') : String(err));

const created = z.object({ id: z.string(), name: z.string() });
registerPrebuiltScripts('metabase', {
  ...metabaseScripts,
  'create-object': createAction({
    description: 'POSTs an object, with the retries asked for',
    endpoint: { method: 'POST', path: '/create-object' },
    input: z.object({ name: z.string(), retries: z.number() }),
    output: created,
    async exec(ctx, input) {
      return (await ctx.post<z.infer<typeof created>>({ endpoint: '/objects', data: { name: input.name }, retries: input.retries })).data;
    },
  }),
  'create-then-read': createAction({
    description: 'POSTs an object without retries, then reads it back with retries',
    endpoint: { method: 'POST', path: '/create-then-read' },
    input: z.object({ name: z.string() }),
    output: created,
    async exec(ctx, input) {
      const res = await ctx.post<z.infer<typeof created>>({ endpoint: '/objects', data: { name: input.name } });
      return (await ctx.get<z.infer<typeof created>>({ endpoint: `/objects/${res.data.id}` })).data;
    },
  }),
  'post-object-on-connect': createOnEvent({
    description: 'test',
    event: 'post-connection-creation',
    async exec(ctx) {
      // e.g. a webhook subscription registered upstream for the new connection
      if (ctx.connectionId.startsWith('subscribed-')) await ctx.post({ endpoint: '/objects', data: { name: `on-connect:${ctx.connectionId}` } });
    },
  }),
  'object-sync': createSync({
    description: 'POSTs without a key, from exec and from onWebhook',
    frequency: 'every day',
    autoStart: false,
    endpoints: [{ method: 'GET', path: '/object-sync' }],
    models: { Obj: created },
    webhookSubscriptions: ['object.requested'],
    async exec(ctx) {
      await ctx.post({ endpoint: '/objects', data: { name: 'from-sync' } });
    },
    async onWebhook(ctx, payload) {
      await ctx.post({ endpoint: '/objects', data: { name: (payload as { name: string }).name } });
    },
  }),
});

describe('write retries', () => {
  let t: TestPlatform;
  let api: WritesFake;
  const trigger = (action: string, input: Json) => triggerAction(t, action, input);
  const posts = (name: string) => api.requests.filter((r) => r.method === 'POST' && r.path === '/objects' && JSON.parse(r.body).name === name);
  const objects = (name: string) => api.state.objects.filter((o) => o.name === name);

  before(async () => {
    api = await startWritesFake();
    t = await startTestPlatform();
    await connectMetabase(t, api.url, 'k', { endpoints: ['POST /create-object', 'POST /create-then-read', 'GET /object-sync'] });
  });
  after(async () => {
    await t?.stop();
    await api?.close();
  });

  test('a POST without retries that landed and answered 502 is sent once, and the run fails saying why', async () => {
    api.state.failAfterWrite = 2;
    const { status, body } = await trigger('create-object', { name: 'unkeyed', retries: 0 });
    assert.equal(posts('unkeyed').length, 1, 'upstream POSTs');
    assert.equal(objects('unkeyed').length, 1);
    assert.equal(posts('unkeyed')[0]!.headers['idempotency-key'], undefined);
    assert.ok(status >= 400, JSON.stringify(body));
    assert.match(JSON.stringify(body), /without an Idempotency-Key/);
    api.state.failAfterWrite = 0;
  });

  test('a POST with retries carries one Idempotency-Key on every retry, Temporal retries included; one object results', async () => {
    // 1 in-call retry: 2 attempts per activity run, so 3 × 502 takes a second activity attempt.
    api.state.failAfterWrite = 3;
    const { status, body } = await trigger('create-object', { name: 'keyed', retries: 1 });
    assert.equal(status, 200, JSON.stringify(body));
    const sent = posts('keyed');
    assert.equal(sent.length, 4, 'upstream POSTs');
    const keys = new Set(sent.map((r) => r.headers['idempotency-key']));
    assert.equal(keys.size, 1, `one key for every retry, got ${[...keys].join(', ')}`);
    assert.match([...keys][0] ?? '', /^[0-9a-f]{40}$/);
    assert.equal(objects('keyed').length, 1);
    assert.deepEqual(body, { id: objects('keyed')[0]!.id, name: 'keyed' });
  });

  test('after an unkeyed write landed, a later retryable failure does not run the script (and the write) again', async () => {
    api.state.failReads = 2;
    const { status, body } = await trigger('create-then-read', { name: 'then-read' });
    assert.equal(posts('then-read').length, 1, 'upstream POSTs');
    assert.equal(objects('then-read').length, 1);
    assert.ok(status >= 400, JSON.stringify(body));
    assert.match(JSON.stringify(body), /POST \/objects may have reached the provider/);
    api.state.failReads = 0;
  });

  test('a sync whose unkeyed POST landed and answered 502 does not run (and POST) again', async () => {
    api.state.failAfterWrite = 1;
    const res = await t.api('/sync/trigger', { method: 'POST', json: { syncs: ['object-sync'], provider_config_key: 'metabase', connection_id: 'acme' } });
    assert.equal(res.status, 200, await res.clone().text());
    const run = await waitFor('the sync run to end', async () => {
      const { rows } = await t.platform.deps.db.query(`SELECT status, error FROM sync_runs WHERE sync_name = 'object-sync' AND status <> 'RUNNING'`);
      return rows[0] as Json | undefined;
    });
    assert.equal(posts('from-sync').length, 1, 'upstream POSTs');
    assert.equal(run.status, 'ERROR');
    assert.match(JSON.stringify(run.error), /POST \/objects may have reached the provider without an Idempotency-Key/);
    api.state.failAfterWrite = 0;
  });

  test("a sync's onWebhook whose unkeyed POST landed and answered 502 is not run again", async () => {
    const secret = ((await (await t.api('/integrations/metabase/webhook-secret')).json()) as Json).data.webhook_secret as string;
    const body = JSON.stringify({ id: 'evt_write', type: 'object.requested', connectionId: 'acme', name: 'from-webhook' });
    api.state.failAfterWrite = 1;
    const res = await fetch(`${t.url}/webhook/${(await t.platform.deps.db.query(`SELECT uuid FROM environments WHERE name = 'dev'`)).rows[0].uuid}/metabase`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-switchyard-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
      body,
    });
    assert.equal(res.status, 200, await res.clone().text());
    const handle = workflowHandle(
      t.platform.deps.temporal,
      'syncWebhookWorkflow',
      syncWebhookWorkflowId('dev', 'metabase', 'acme', 'object-sync', 'evt_write'),
    );
    const outcome = await waitFor('the onWebhook run', () =>
      handle.result().then(
        () => 'completed',
        (err: unknown) => `failed: ${causes(err)}`,
      ),
    );
    assert.equal(posts('from-webhook').length, 1, 'upstream POSTs');
    assert.match(outcome, /^failed: .*POST \/objects may have reached the provider/);
    api.state.failAfterWrite = 0;
  });

  test('a post-connection script whose unkeyed POST landed and answered 502 is not run again', async () => {
    api.state.failAfterWrite = 1;
    const connection = await addMetabaseConnection(t, api.url, 'k', { connectionId: 'subscribed-1' });
    const pk = (await t.platform.deps.db.query(`SELECT id FROM connections WHERE connection_id = 'subscribed-1'`)).rows[0].id as number;
    assert.equal(connection.connection_id, 'subscribed-1');
    const handle = workflowHandle(
      t.platform.deps.temporal,
      'onEventWorkflow',
      onEventWorkflowId('dev', 'post-connection-creation', 'metabase', 'subscribed-1', pk),
    );
    const outcome = await waitFor('the post-connection run', () => handle.result());
    assert.equal(posts('on-connect:subscribed-1').length, 1, 'upstream POSTs');
    assert.equal(outcome.ok, false);
    assert.match(String(outcome.error), /POST \/objects may have reached the provider/);
    api.state.failAfterWrite = 0;
  });
});

describe('write retries across a worker killed mid-request', () => {
  let t: TestPlatform;
  let api: WritesFake;

  before(async () => {
    api = await startWritesFake();
    t = await startTestPlatform({ runWorker: false });
    await connectMetabase(t, api.url, 'k');
    // Deployed, not pre-built: the worker runs in its own process, which knows only what is deployed.
    await deployScripts(t, 'metabase', {
      'actions/post-unkeyed.ts': `import { z } from 'zod';
import { createAction } from 'switchyard/sdk';
export default createAction({
  description: 'POSTs an object without retries (no Idempotency-Key)',
  endpoint: { method: 'POST', path: '/post-unkeyed' },
  input: z.object({ name: z.string() }),
  output: z.object({ id: z.string(), name: z.string() }),
  async exec(ctx, input) {
    return (await ctx.post({ endpoint: '/objects', data: { name: input.name } })).data as { id: string; name: string };
  },
});
`,
    });
  });
  after(async () => {
    await t?.stop();
    await api?.close();
  });

  test('kill -9 the worker while an unkeyed POST is in flight: the retried run does not POST again, and fails saying why', async () => {
    let worker = await startWorkerProcess(t);
    api.state.holdAfterWrite = 1;
    const started = await t.api('/action/trigger', {
      method: 'POST',
      headers: { ...ACME, 'x-async': 'true' },
      json: { action_name: 'post-unkeyed', input: { name: 'killed' } },
    });
    assert.equal(started.status, 202, await started.clone().text());
    const runId = ((await started.json()) as Json).id as string;
    await waitFor('the POST at the provider', () => api.state.objects.some((o) => o.name === 'killed'));
    await worker.kill();
    worker = await startWorkerProcess(t);
    try {
      // Temporal notices the lost attempt at its heartbeat timeout, then retries it on the new worker.
      const run = await waitFor(
        'the run to end',
        async () => {
          const res = await t.api(`/action/${runId}`);
          return res.status === 404 ? null : { status: res.status, body: (await res.json()) as Json };
        },
        180_000,
      );
      const sent = api.requests.filter((r) => r.method === 'POST' && r.path === '/objects');
      assert.equal(sent.length, 1, 'upstream POSTs');
      assert.ok(run.status >= 400, JSON.stringify(run.body));
      assert.match(JSON.stringify(run.body), /POST \/objects may have reached the provider without an Idempotency-Key/);
    } finally {
      await worker.stop();
    }
  });
});
