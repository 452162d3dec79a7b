import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { Client, Connection } from '@temporalio/client';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { emitEvent, sweepPendingDeliveries } from '../features/webhooks/emit.js';
import { standardWebhooksSecret } from '../features/webhooks/sign.js';
import { verifyWebhook } from '../features/webhooks/verify.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { startWorkerProcess } from './worker-process.js';
import { executeWorkflow, taskQueueFor, webhookDeliveryWorkflowId } from '../workflows/contracts.js';
import { freePort } from '../lib/embedded/temporal.js';

/**
 * Temporal down, for real: the real client aimed at a port where no Temporal server listens, with
 * the default gRPC retries off so a start fails at once instead of after its backoff.
 */
async function temporalDown(): Promise<{ client: Client; close(): Promise<void> }> {
  const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
  return { client: new Client({ connection }), close: () => connection.close() };
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// Small backoffs: 100 ms, 200 ms, ... (read by the emitter, carried in the workflow input).
process.env.SWITCHYARD_WEBHOOK_INITIAL_BACKOFF_MS = '100';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  answered: number;
}

/** The developer's backend: answers each path from a script of replies (status 0: never answer), then with its default. */
async function startReceiver() {
  const received: Received[] = [];
  const scripts = new Map<string, { status: number; headers?: Record<string, string> }[]>();
  const defaults = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const reply = scripts.get(path)?.shift() ?? { status: defaults.get(path) ?? 200 };
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), answered: reply.status });
      if (reply.status === 0) return; // hang: hold the request open
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.status === 200 ? 'ok' : `no (${reply.status})`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    script: (path: string, replies: { status: number; headers?: Record<string, string> }[]) => scripts.set(path, replies),
    setDefault: (path: string, status: number) => defaults.set(path, status),
    at: (path: string) => received.filter((r) => r.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhooks to the developer', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const API_KEY = 'mb_goodkey=';

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    receiver = await startReceiver();
    const res = await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } });
    assert.equal(res.status, 200);
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    await receiver?.close();
  });

  async function setEnvironment(json: Json, key?: string): Promise<Json> {
    const res = await t.api('/environment', { method: 'PATCH', json, key });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as Json).data;
  }

  async function connect(connectionId: string, extra: Json = {}): Promise<void> {
    await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId, extra });
  }

  async function deliveries(q = '', key?: string): Promise<Json[]> {
    const res = await t.api(`/webhook-deliveries${q}`, { key });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as Json).data;
  }

  async function deliveryFor(connectionId: string, status: string): Promise<Json> {
    return waitFor(`${status} delivery for ${connectionId}`, async () =>
      (await deliveries('?limit=100')).find((d) => d.connection_id === connectionId && d.status === status),
    );
  }

  async function signingKey(): Promise<string> {
    return ((await (await t.api('/environment')).json()) as Json).data.webhook_signing_key;
  }

  test('environment settings: read, patch, refusals naming the field', async () => {
    const initial = ((await (await t.api('/environment')).json()) as Json).data;
    assert.equal(initial.name, 'dev');
    assert.equal(initial.webhook_url, null);
    assert.deepEqual(initial.webhook_events, { auth: true, sync: true, async_action: true, forward: true, on_sync_completion_always: false });
    assert.match(initial.webhook_signing_key, /^[0-9a-f]{64}$/);
    assert.equal(await signingKey(), initial.webhook_signing_key, 'generated once');

    const patched = await setEnvironment({
      alert_webhook_url: `${receiver.url}/alerts`,
      otlp_endpoint: 'http://127.0.0.1:4318',
      otlp_headers: [{ name: 'x-api-key', value: 'collector-secret' }],
      webhook_events: { on_sync_completion_always: true },
    });
    assert.deepEqual(patched.otlp_headers, [{ name: 'x-api-key' }]);
    assert.equal(patched.webhook_events.on_sync_completion_always, true);
    assert.ok(!JSON.stringify(patched).includes('collector-secret'));
    const stored = await t.platform.deps.db.query('SELECT otlp_headers_enc FROM environment_settings');
    assert.ok(!String(stored.rows[0].otlp_headers_enc).includes('collector-secret'), 'OTLP headers are encrypted at rest');

    const privateUrl = await t.api('/environment', { method: 'PATCH', json: { secondary_webhook_url: 'http://10.1.2.3/hook' } });
    assert.equal(privateUrl.status, 400);
    assert.deepEqual(((await privateUrl.json()) as Json).error.errors[0].path, ['secondary_webhook_url']);
    const badScheme = await t.api('/environment', { method: 'PATCH', json: { webhook_url: 'ftp://example.com/x' } });
    assert.equal(badScheme.status, 400);
    assert.deepEqual(((await badScheme.json()) as Json).error.errors[0].path, ['webhook_url']);
    const unknownField = await t.api('/environment', { method: 'PATCH', json: { webhook_urls: 'x' } });
    assert.equal(unknownField.status, 400);
    // the prod environment is untouched
    const prod = ((await (await t.api('/environment', { key: t.prodKey })).json()) as Json).data;
    assert.equal(prod.name, 'prod');
    assert.equal(prod.alert_webhook_url, null);
    assert.notEqual(prod.webhook_signing_key, initial.webhook_signing_key);
  });

  test('an auth webhook survives 503, 503, 429 (Retry-After: 1) and arrives signed once the backend is healthy', async () => {
    receiver.script('/flaky', [{ status: 503 }, { status: 503 }, { status: 429, headers: { 'retry-after': '1' } }]);
    await setEnvironment({ webhook_url: `${receiver.url}/flaky` });
    await connect('wh-flaky');

    const delivered = await deliveryFor('wh-flaky', 'delivered');
    assert.equal(delivered.type, 'auth');
    assert.deepEqual(
      delivered.attempts.map((a: Json) => a.status),
      [503, 503, 429, 200],
    );
    assert.equal(delivered.attempts[0].response_excerpt, 'no (503)');
    assert.equal(delivered.attempts[3].error, null);
    assert.ok(delivered.delivered_at);

    const hits = receiver.at('/flaky');
    assert.equal(hits.length, 4);
    assert.equal(hits.filter((h) => h.answered === 200).length, 1, 'delivered once');
    assert.ok(hits[3]!.at - hits[2]!.at >= 900, `Retry-After honoured (waited ${hits[3]!.at - hits[2]!.at} ms)`);

    const last = hits[3]!;
    assert.equal(last.headers['content-type'], 'application/json');
    assert.equal(last.headers['user-agent'], 'switchyard/0.67.0');
    const payload = JSON.parse(last.body) as Json;
    assert.equal(payload.type, 'auth');
    assert.equal(payload.operation, 'creation');
    assert.equal(payload.connectionId, 'wh-flaky');
    assert.equal(payload.providerConfigKey, 'metabase');
    assert.equal(payload.environment, 'dev');
    assert.equal(JSON.stringify(payload), last.body, 'keys sorted, so re-serializing gives the same bytes');

    const key = await signingKey();
    const nango = new Nango({ secretKey: t.devKey, host: t.url, webhookSigningKey: key });
    assert.equal(nango.verifyIncomingWebhookRequest(last.body, last.headers), true);
    assert.equal(nango.verifyWebhookSignature(String(last.headers['x-nango-signature']), payload), true);
    assert.equal(last.headers['x-switchyard-hmac-sha256'], last.headers['x-nango-hmac-sha256']);
    assert.deepEqual(verifyWebhook(last.body, last.headers, key), { ok: true });
    assert.deepEqual(verifyWebhook(last.body.replace('wh-flaky', 'wh-forged'), last.headers, key), { ok: false, reason: 'bad_signature' });
    assert.deepEqual(verifyWebhook(last.body, last.headers, key, { now: new Date(Date.now() + 10 * 60_000) }), { ok: false, reason: 'stale_timestamp' });
    const impostor = new Nango({ secretKey: t.devKey, host: t.url, webhookSigningKey: 'not-the-key' });
    assert.equal(impostor.verifyIncomingWebhookRequest(last.body, last.headers), false);

    // Standard Webhooks: every attempt verifies with the standardwebhooks package, under one message id.
    const wh = new Webhook(standardWebhooksSecret(key));
    for (const hit of hits) assert.deepEqual(wh.verify(hit.body, hit.headers as Record<string, string>), payload);
    assert.equal(new Set(hits.map((h) => h.headers['webhook-id'])).size, 1, 'the same webhook-id on every retry');
    assert.equal(last.headers['webhook-id'], `msg_${delivered.id}`);
    assert.throws(() => wh.verify(last.body.replace('wh-flaky', 'wh-forged'), last.headers as Record<string, string>), WebhookVerificationError);
    assert.throws(() => new Webhook(standardWebhooksSecret('not-the-key')).verify(last.body, last.headers as Record<string, string>), WebhookVerificationError);
  });

  test('a 400 is final: dead after one attempt; replay delivers a copy; listing pages with a cursor', async () => {
    receiver.setDefault('/refuse', 400);
    await setEnvironment({ webhook_url: `${receiver.url}/refuse` });
    await connect('wh-refused');
    const dead = await deliveryFor('wh-refused', 'dead');
    assert.equal(dead.attempts.length, 1);
    assert.equal(dead.last_status, 400);
    assert.match(dead.last_error, /400/);
    assert.equal((await deliveries('?status=dead')).length, 1);

    const otherEnv = await t.api(`/webhook-deliveries/${dead.id}/replay`, { method: 'POST', key: t.prodKey });
    assert.equal(otherEnv.status, 404);
    const notUuid = await t.api('/webhook-deliveries/nope/replay', { method: 'POST' });
    assert.equal(notUuid.status, 400);

    receiver.setDefault('/refuse', 200);
    const replay = await t.api(`/webhook-deliveries/${dead.id}/replay`, { method: 'POST' });
    assert.equal(replay.status, 201);
    const copy = ((await replay.json()) as Json).data;
    assert.equal(copy.replay_of, dead.id);
    assert.notEqual(copy.id, dead.id);
    const delivered = await waitFor('replayed delivery', async () =>
      (await deliveries('?limit=100')).find((d) => d.id === copy.id && d.status === 'delivered'),
    );
    assert.equal(delivered.attempts.length, 1);
    const bodies = receiver.at('/refuse').map((r) => r.body);
    assert.equal(bodies.length, 2);
    assert.equal(bodies[0], bodies[1], 'same bytes');
    const ids = receiver.at('/refuse').map((r) => r.headers['webhook-id']);
    assert.deepEqual(ids, [`msg_${dead.id}`, `msg_${dead.id}`], 'a replay resends the same Standard Webhooks message');

    // type=auth: the dead delivery also raised (and the replay resolved) an alert, whose own
    // deliveries to the alert webhook are newer.
    const firstPage = (await (await t.api('/webhook-deliveries?limit=1&type=auth')).json()) as Json;
    assert.equal(firstPage.data.length, 1);
    assert.equal(firstPage.data[0].id, copy.id, 'newest first');
    assert.ok(firstPage.next_cursor);
    const secondPage = (await (await t.api(`/webhook-deliveries?limit=1&type=auth&cursor=${firstPage.next_cursor}`)).json()) as Json;
    assert.equal(secondPage.data[0].id, dead.id);
    const badCursor = await t.api('/webhook-deliveries?cursor=%%%');
    assert.equal(badCursor.status, 400);
    assert.equal((await deliveries('', t.prodKey)).length, 0, 'another environment sees none');
  });

  test('recover: every message that failed since a time is replayed once, under its own webhook-id', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    receiver.setDefault('/recover', 400);
    await setEnvironment({ webhook_url: `${receiver.url}/recover` });
    await connect('wh-recover-1');
    await connect('wh-recover-2');
    const dead = [await deliveryFor('wh-recover-1', 'dead'), await deliveryFor('wh-recover-2', 'dead')];

    for (const [json, field] of [
      [{}, 'since'],
      [{ since: 'yesterday' }, 'since'],
      [{ since, extra: 1 }, ''],
    ] as const) {
      const bad = await t.api('/webhook-deliveries/recover', { method: 'POST', json });
      assert.equal(bad.status, 400, JSON.stringify(json));
      const err = ((await bad.json()) as Json).error;
      if (field) assert.deepEqual(err.errors[0].path, [field]);
    }
    const future = await t.api('/webhook-deliveries/recover', { method: 'POST', json: { since: new Date(Date.now() + 60_000).toISOString() } });
    assert.deepEqual(await future.json(), { requeued: 0 });
    const otherEnv = await t.api('/webhook-deliveries/recover', { method: 'POST', json: { since }, key: t.prodKey });
    assert.deepEqual(await otherEnv.json(), { requeued: 0 });

    // still failing: recovered copies die too, and a second recover replays them again (once each)
    const first = await t.api('/webhook-deliveries/recover', { method: 'POST', json: { since } });
    assert.equal(first.status, 200);
    assert.deepEqual(await first.json(), { requeued: 2 });
    await waitFor(
      'recovered copies dead',
      async () => (await deliveries('?limit=100&status=dead')).filter((d) => d.replay_of && dead.some((o) => o.id === d.replay_of)).length === 2,
    );

    receiver.setDefault('/recover', 200);
    const second = await t.api('/webhook-deliveries/recover', { method: 'POST', json: { since } });
    assert.deepEqual(await second.json(), { requeued: 2 });
    for (const o of dead)
      await waitFor(`${o.connection_id} recovered`, async () => (await deliveries('?limit=100&status=delivered')).some((d) => d.replay_of === o.id));
    const hits = receiver.at('/recover');
    assert.equal(hits.length, 6, '2 originals, 2 failed recoveries, 2 delivered');
    for (const o of dead) assert.equal(hits.filter((h) => h.headers['webhook-id'] === `msg_${o.id}`).length, 3);

    const third = await t.api('/webhook-deliveries/recover', { method: 'POST', json: { since } });
    assert.deepEqual(await third.json(), { requeued: 0 }, 'a delivered message is not recovered again');
  });

  test('per-endpoint throttling: a burst of 10 reaches the endpoint no faster than webhook_max_per_second, none dropped', async (ctx) => {
    const rate = 1;
    for (const bad of [0, -1, 'fast', 20_000]) {
      const res = await t.api('/environment', { method: 'PATCH', json: { webhook_max_per_second: bad } });
      assert.equal(res.status, 400, String(bad));
      assert.deepEqual(((await res.json()) as Json).error.errors[0].path, ['webhook_max_per_second']);
    }
    const settings = await setEnvironment({ webhook_url: `${receiver.url}/throttled`, webhook_max_per_second: rate });
    assert.equal(settings.webhook_max_per_second, rate);
    const env = (await t.platform.deps.db.query(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0];
    // Emitted while Temporal is unreachable, so that all of them wait, unstarted, and then start together.
    const down = await temporalDown();
    const emitted = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        emitEvent(
          { ...t.platform.deps, temporal: down.client },
          {
            environmentId: env.id,
            type: 'async_action',
            integration: 'metabase',
            connectionId: `wh-throttle-${i}`,
            payload: { type: 'async_action', payload: { i } },
          },
        ),
      ),
    ).finally(down.close);
    const ids = emitted.flatMap((e) => e.deliveries);
    assert.equal(ids.length, 10);
    assert.equal(receiver.at('/throttled').length, 0);
    const burstAt = Date.now();
    assert.equal(await sweepPendingDeliveries(t.platform.deps, { minAgeMs: 0 }), 10);
    const done = await waitFor(
      'all 10 delivered',
      async () => {
        const list = (await deliveries('?limit=100&status=delivered')).filter((d) => ids.includes(d.id));
        return list.length === 10 && list;
      },
      120_000,
    );
    for (const d of done) assert.equal(d.attempts.length, 1, 'waiting for a slot is not an attempt');
    const times = receiver
      .at('/throttled')
      .map((r) => r.at)
      .sort((a, b) => a - b);
    assert.equal(times.length, 10, 'each delivered once');
    // Request k + 1 may not come before k / rate seconds after the burst started (a lower bound only).
    const offsets = times.map((at) => at - burstAt);
    ctx.diagnostic(`requests came ${offsets.join(', ')} ms after the burst`);
    offsets.forEach((ms, k) => assert.ok(ms >= (k * 1000) / rate - 1, `request ${k + 1} came ${ms} ms after the burst (all: ${offsets.join(', ')})`));
    assert.equal((await setEnvironment({ webhook_max_per_second: null })).webhook_max_per_second, null);
  });

  test('rotation: new key signs; the old key keeps verifying during the grace period only', async () => {
    const oldKey = await signingKey();
    await setEnvironment({ webhook_url: `${receiver.url}/rotated` });
    const rotated = await t.api('/environment/webhook-signing-key/rotate', { method: 'POST' });
    assert.equal(rotated.status, 200);
    const newKey = ((await rotated.json()) as Json).data.webhook_signing_key;
    assert.match(newKey, /^[0-9a-f]{64}$/);
    assert.notEqual(newKey, oldKey);
    const env = ((await (await t.api('/environment')).json()) as Json).data;
    assert.equal(env.webhook_signing_key, newKey);
    const graceLeft = Date.parse(env.previous_webhook_signing_key_expires_at) - Date.now();
    assert.ok(graceLeft > 23 * 3600_000 && graceLeft <= 24 * 3600_000);

    await connect('wh-rotated');
    await deliveryFor('wh-rotated', 'delivered');
    const inGrace = receiver.at('/rotated')[0]!;
    assert.equal(new Nango({ secretKey: t.devKey, host: t.url, webhookSigningKey: newKey }).verifyIncomingWebhookRequest(inGrace.body, inGrace.headers), true);
    assert.equal(new Nango({ secretKey: t.devKey, host: t.url, webhookSigningKey: oldKey }).verifyIncomingWebhookRequest(inGrace.body, inGrace.headers), false);
    assert.deepEqual(verifyWebhook(inGrace.body, inGrace.headers, newKey), { ok: true });
    assert.deepEqual(verifyWebhook(inGrace.body, inGrace.headers, oldKey), { ok: true }, 'old key still verifies in the grace window');

    await t.platform.deps.db.query(`UPDATE environment_settings SET previous_signing_key_expires_at = now() - interval '1 second'`);
    await connect('wh-rotated', { connection_config: { hostname: metabase.url } }); // re-authorisation: an `override` auth event
    await waitFor('second delivery', async () => receiver.at('/rotated').length === 2);
    const afterGrace = receiver.at('/rotated')[1]!;
    assert.equal((JSON.parse(afterGrace.body) as Json).operation, 'override');
    assert.deepEqual(verifyWebhook(afterGrace.body, afterGrace.headers, newKey), { ok: true });
    assert.deepEqual(verifyWebhook(afterGrace.body, afterGrace.headers, oldKey), { ok: false, reason: 'bad_signature' });
    assert.deepEqual(verifyWebhook(afterGrace.body, afterGrace.headers, [oldKey, newKey]), { ok: true });
  });

  test('targets: the connection override replaces both URLs; a disabled kind is recorded but not sent', async () => {
    await setEnvironment({ webhook_url: `${receiver.url}/primary`, secondary_webhook_url: `${receiver.url}/secondary` });
    await connect('wh-both');
    await waitFor('both URLs', async () => receiver.at('/primary').length === 1 && receiver.at('/secondary').length === 1);

    await connect('wh-override', { webhook_url_override: `${receiver.url}/override` });
    await deliveryFor('wh-override', 'delivered');
    const toOverride = (await deliveries('?limit=100')).filter((d) => d.connection_id === 'wh-override');
    assert.deepEqual(
      toOverride.map((d) => d.url),
      [`${receiver.url}/override`],
    );

    await setEnvironment({ webhook_events: { auth: false } });
    await connect('wh-muted');
    const events = await t.platform.deps.db.query(`SELECT id FROM events WHERE connection_id = 'wh-muted'`);
    assert.equal(events.rowCount, 1, 'the event is recorded');
    assert.equal((await deliveries('?limit=100')).filter((d) => d.connection_id === 'wh-muted').length, 0);
    await setEnvironment({ webhook_events: { auth: true }, secondary_webhook_url: null });
  });

  test('a delivery whose workflow could not be started is started by the sweeper; forward headers are filtered', async () => {
    await setEnvironment({ webhook_url: `${receiver.url}/swept` });
    const down = await temporalDown();
    const env = (await t.platform.deps.db.query(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0];
    const { deliveries: ids } = await emitEvent(
      { ...t.platform.deps, temporal: down.client },
      { environmentId: env.id, type: 'forward', integration: 'metabase', payload: { from: 'metabase', type: 'forward', payload: { hello: 'world' } } },
      {
        forwardHeaders: { 'x-metabase-event': 'user.created', authorization: 'Bearer provider-secret', 'x-nango-hmac-sha256': 'spoofed' },
        idempotencyKey: 'forward-1',
      },
    ).finally(down.close);
    assert.equal(ids.length, 1);
    const pending = await t.platform.deps.db.query('SELECT status, workflow_started_at FROM webhook_deliveries WHERE id = $1', [ids[0]]);
    assert.equal(pending.rows[0].status, 'pending');
    assert.equal(pending.rows[0].workflow_started_at, null);

    assert.equal(await sweepPendingDeliveries(t.platform.deps, { minAgeMs: 0 }), 1);
    assert.equal(await sweepPendingDeliveries(t.platform.deps, { minAgeMs: 0 }), 0, 'started once');
    const again = await emitEvent(
      t.platform.deps,
      { environmentId: env.id, type: 'forward', integration: 'metabase', payload: { from: 'metabase', type: 'forward', payload: { hello: 'world' } } },
      { idempotencyKey: 'forward-1' },
    );
    assert.deepEqual(again.deliveries, ids, 'the same key emits once');
    await waitFor('swept delivery', async () => receiver.at('/swept').length === 1);
    const hit = receiver.at('/swept')[0]!;
    assert.equal(hit.headers['x-metabase-event'], 'user.created');
    assert.equal(hit.headers.authorization, undefined);
    assert.deepEqual(verifyWebhook(hit.body, hit.headers, await signingKey()), { ok: true });
    assert.equal(hit.headers['x-nango-hmac-sha256'], hit.headers['x-switchyard-hmac-sha256'], 'a provider cannot spoof our signature headers');
  });
});

describe('webhook retries end', () => {
  let t: TestPlatform;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    receiver = await startReceiver();
  });
  after(async () => {
    await t?.stop();
    await receiver?.close();
  });

  async function pendingDelivery(path: string): Promise<string> {
    const res = await t.api('/environment', { method: 'PATCH', json: { webhook_url: `${receiver.url}${path}` } });
    assert.equal(res.status, 200);
    const env = (await t.platform.deps.db.query(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0];
    // Emitted while Temporal is unreachable, so the delivery waits, unstarted, for the test to start it.
    const down = await temporalDown();
    const { deliveries } = await emitEvent(
      { ...t.platform.deps, temporal: down.client },
      { environmentId: env.id, type: 'async_action', integration: 'x', connectionId: 'c', payload: { type: 'async_action', payload: { id: path } } },
    ).finally(down.close);
    return deliveries[0]!;
  }

  async function delivery(id: string): Promise<Json> {
    const list = ((await (await t.api('/webhook-deliveries?limit=100')).json()) as Json).data as Json[];
    return list.find((d) => d.id === id)!;
  }

  test('a backend that stays down: retried until the window closes, then dead with the last error', async () => {
    const worker = await startWorkerProcess(t);
    try {
      receiver.setDefault('/down', 503);
      const id = await pendingDelivery('/down');
      const result = await executeWorkflow(t.platform.deps.temporal, 'webhookDeliveryWorkflow', {
        workflowId: webhookDeliveryWorkflowId(id),
        taskQueue: taskQueueFor(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev'),
        workflowExecutionTimeout: '2 minutes',
        args: [{ deliveryId: id, initialIntervalMs: 200, retryHours: 5 / 3600 }],
      });
      assert.deepEqual(result, { status: 'dead', reason: 'gave up after 5 s of retries' });
      const dead = await delivery(id);
      assert.equal(dead.status, 'dead');
      assert.ok(dead.attempts.length >= 2, `retried (${dead.attempts.length} attempts)`);
      assert.equal(dead.attempts[0].status, 503);
      assert.equal(dead.last_error, 'gave up after 5 s of retries (last error: HTTP 503)');
    } finally {
      await worker.stop();
    }
  });

  test('kill -9 the worker mid-request: another worker carries the delivery through', async () => {
    let worker = await startWorkerProcess(t);
    try {
      receiver.script('/slow', [{ status: 0 }]);
      const id = await pendingDelivery('/slow');
      assert.equal(await sweepPendingDeliveries(t.platform.deps, { minAgeMs: 0 }), 1);
      await waitFor('the first request', async () => receiver.at('/slow').length === 1);
      await worker.kill();
      worker = await startWorkerProcess(t);
      await waitFor('delivered', async () => (await delivery(id)).status === 'delivered');
      const done = await delivery(id);
      assert.deepEqual(
        done.attempts.map((a: Json) => a.status),
        [null, 200],
      );
      assert.equal(receiver.at('/slow').length, 2);
    } finally {
      await worker.stop();
    }
  });
});
