/**
 * Third-party webhooks verified and routed by the `webhook` settings of a provider's definition (a
 * user-defined provider created with `POST /providers`, no plugin): a webhook signed as the
 * definition says (prefix + base64 HMAC-SHA256 of the raw body with the integration's webhook secret)
 * and routed by a dot path in its body reaches the matching connection's subscribed sync (records,
 * one onWebhook run) and is forwarded, signed, to the developer; a missing or bad signature gets 401
 * and nothing runs or is forwarded; an event routed to no connection runs nothing and is forwarded
 * unwrapped. An API_KEY provider (its integration has no OAuth credentials) signs with the
 * integration's generated webhook secret (hex HMAC-SHA1 here) and, without `routing`, is routed by a
 * `connectionId` at the body's root.
 *
 * Security (issue 28, item 3): a routing value the end user typed routes nothing (another customer's
 * account id stays theirs), one value on several verified connections reaches each and says so on
 * every one; a signed timestamp more than 5 minutes off is refused; an event id already processed is
 * acknowledged and not processed again.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ProviderDefinitionInput } from '../features/providers/definition.js';
import { verifyWebhook } from '../features/webhooks/verify.js';
import { syncWebhookWorkflowId, workflowHandle } from '../workflows/contracts.js';
import { startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { deployScripts } from './deploy-scripts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PCK = 'hooked';
const CLIENT_SECRET = 'hooked-client-secret';
const WEBHOOK_SECRET = 'hooked-webhook-secret';
const HEADER = 'X-Hooked-Signature';

const DEFINITION: ProviderDefinitionInput = {
  name: 'hooked-api',
  display_name: 'Hooked API',
  auth_mode: 'OAUTH2',
  authorization_url: 'https://auth.hooked.test/authorize',
  token_url: 'https://auth.hooked.test/token',
  proxy: { base_url: 'https://api.hooked.test' },
  connection_config: { workspace: { title: 'Workspace id' } },
  docs: 'https://example.com/hooked/webhooks',
  webhook: {
    signature_header: HEADER,
    algorithm: 'hmac-sha256',
    encoding: 'base64',
    signature_prefix: 'v1,',
    secret: 'webhook_secret',
    routing: { body_path: 'data.workspace.id', connection_config_key: 'workspace' },
  },
};

const SYNC = `import { z } from 'zod';
import { createSync } from 'switchyard/sdk';
export default createSync({
  description: 'Tickets pushed by webhooks',
  frequency: 'every day',
  autoStart: false,
  endpoints: [{ method: 'GET', path: '/tickets' }],
  models: { Ticket: z.object({ id: z.string(), title: z.string() }) },
  webhookSubscriptions: ['ticket.created'],
  async exec() {},
  async onWebhook(ctx, payload) {
    const event = payload as { data: { ticket: { id: string; title: string } } };
    await ctx.batchSave([event.data.ticket], 'Ticket');
  },
});
`;

describe('provider webhooks from the definition', () => {
  let t: TestPlatform;
  let receiver: WebhookReceiver;
  let webhookUrl: string;
  let signingKey: string;

  const sign = (body: string, secret = WEBHOOK_SECRET) => `v1,${createHmac('sha256', secret).update(body).digest('base64')}`;
  const post = (text: string, headers: Record<string, string> = {}) =>
    fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
  const event = (id: string, workspace: string, title = id) => ({
    id,
    type: 'ticket.created',
    data: { workspace: { id: workspace }, ticket: { id: `t-${id}`, title } },
  });
  const runExists = async (connectionId: string, eventId: string) => {
    try {
      await workflowHandle(t.platform.deps.temporal, 'syncWebhookWorkflow', syncWebhookWorkflowId('dev', PCK, connectionId, 'tickets', eventId)).describe();
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  };
  const records = async (connectionId: string) =>
    ((await (await t.api('/records?model=Ticket', { headers: { 'connection-id': connectionId, 'provider-config-key': PCK } })).json()) as Json)
      .records as Json[];

  before(async () => {
    t = await startTestPlatform();
    receiver = await startWebhookReceiver();
    const env = await t.api('/environment', { method: 'PATCH', json: { webhook_url: `${receiver.url}/hooks` } });
    assert.equal(env.status, 200, await env.clone().text());
    signingKey = ((await env.json()) as Json).data.webhook_signing_key;

    const defined = await t.api('/providers', { method: 'POST', json: DEFINITION });
    assert.equal(defined.status, 201, await defined.clone().text());
    const integration = await t.api('/integrations', {
      method: 'POST',
      json: {
        provider: 'hooked-api',
        unique_key: PCK,
        credentials: { type: 'OAUTH2', client_id: 'hooked-client', client_secret: CLIENT_SECRET, webhook_secret: WEBHOOK_SECRET },
      },
    });
    assert.equal(integration.status, 200, await integration.clone().text());
    for (const [connection_id, workspace] of [
      ['conn-a', 'ws-a'],
      ['conn-b', 'ws-b'],
    ]) {
      const created = await t.api('/connections', {
        method: 'POST',
        json: { provider_config_key: PCK, connection_id, connection_config: { workspace }, credentials: { type: 'OAUTH2', access_token: `tok-${workspace}` } },
      });
      assert.equal(created.status, 201, await created.clone().text());
    }
    webhookUrl = ((await (await t.api(`/integrations/${PCK}?include=webhook`)).json()) as Json).data.webhook_url as string;
    assert.match(webhookUrl, /\/webhook\/[0-9a-f-]{36}\/hooked$/);

    // Compile the sync as `switchyard compile` does, then deploy it, activated.
    await deployScripts(t, PCK, { 'syncs/tickets.ts': SYNC });
  });
  after(async () => {
    await t?.stop();
    await receiver?.close();
  });

  test('a webhook signed as the definition says is routed by its body path to the right connection: sync run and signed forward', async () => {
    const body = JSON.stringify(event('evt_b1', 'ws-b', 'routed to b'));
    const res = await post(body, { [HEADER]: sign(body) });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { status: 'success' });

    const saved = await waitFor('the record of conn-b', async () => {
      const r = await records('conn-b');
      return r?.length ? r : null;
    });
    assert.deepEqual(
      saved.map((r) => [r.id, r.title]),
      [['t-evt_b1', 'routed to b']],
    );
    assert.equal(await runExists('conn-b', 'evt_b1'), true);
    assert.equal(await runExists('conn-a', 'evt_b1'), false, 'the other connection runs nothing');
    assert.deepEqual(await records('conn-a'), []);

    const forward = await waitFor('the forward webhook', () => receiver.received.find((r) => r.json.type === 'forward' && r.body.includes('evt_b1')));
    assert.equal(forward.json.connectionId, 'conn-b');
    assert.equal(forward.json.providerConfigKey, PCK);
    assert.equal(forward.json.from, 'hooked-api');
    assert.deepEqual(forward.json.payload, JSON.parse(body));
    assert.deepEqual(verifyWebhook(forward.body, forward.headers, signingKey), { ok: true }, 'the forward is signed for the developer');
  });

  test('a missing or bad signature gets 401: nothing runs and nothing is forwarded', async () => {
    const before = receiver.received.length;
    const body = (id: string) => JSON.stringify(event(id, 'ws-a'));
    const refused: [string, Response][] = [
      ['evt_none', await post(body('evt_none'))],
      ['evt_wrongkey', await post(body('evt_wrongkey'), { [HEADER]: sign(body('evt_wrongkey'), 'not-the-secret') })],
      // The client secret is not the secret this definition names.
      ['evt_clientsecret', await post(body('evt_clientsecret'), { [HEADER]: sign(body('evt_clientsecret'), CLIENT_SECRET) })],
      ['evt_tampered', await post(body('evt_tampered'), { [HEADER]: sign(body('evt_other')) })],
      ['evt_noprefix', await post(body('evt_noprefix'), { [HEADER]: sign(body('evt_noprefix')).slice('v1,'.length) })],
      // Our own signature header does not stand in for the provider's.
      [
        'evt_switchyard',
        await post(body('evt_switchyard'), {
          'x-switchyard-signature': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body('evt_switchyard')).digest('hex')}`,
        }),
      ],
    ];
    for (const [id, res] of refused) {
      assert.equal(res.status, 401, id);
      const code = ((await res.json()) as Json).error.code;
      assert.equal(code, id === 'evt_none' || id === 'evt_switchyard' ? 'webhook_missing_signature' : 'webhook_invalid_signature', id);
    }
    // Give a wrongly accepted event time to show up before checking that none did.
    const ok = JSON.stringify(event('evt_after', 'ws-a'));
    assert.equal((await post(ok, { [HEADER]: sign(ok) })).status, 200);
    await waitFor('the valid event forwarded', () => receiver.received.find((r) => r.body.includes('evt_after')));
    for (const [id] of refused) {
      assert.equal(await runExists('conn-a', id), false, id);
      assert.ok(!receiver.received.slice(before).some((r) => r.body.includes(id)), `${id} was not forwarded`);
    }
    const saved = await waitFor('the record of the valid event', async () => {
      const r = await records('conn-a');
      return r.length ? r : null;
    });
    assert.deepEqual(
      saved.map((r) => r.id),
      ['t-evt_after'],
    );
  });

  test('an event routed to no connection runs nothing and is forwarded unwrapped', async () => {
    const ghosts = [event('evt_ghost', 'ws-nobody'), { id: 'evt_nopath', type: 'ticket.created', data: { ticket: { id: 't-x', title: 'x' } } }];
    for (const e of ghosts) {
      const body = JSON.stringify(e);
      const res = await post(body, { [HEADER]: sign(body) });
      assert.equal(res.status, 200, await res.clone().text());
    }
    for (const e of ghosts) {
      const raw = await waitFor(`the unattributed forward of ${e.id}`, () => receiver.received.find((r) => r.json.id === e.id));
      assert.deepEqual(raw.json, e, 'forwarded as received, without the wrapper');
      for (const c of ['conn-a', 'conn-b']) assert.equal(await runExists(c, e.id), false, `${e.id} ran nothing for ${c}`);
    }
    assert.equal((await records('conn-b')).length, 1);
  });
  test('an API_KEY provider signs with the generated webhook secret; without routing, a connectionId at the root routes it', async () => {
    const def: ProviderDefinitionInput = {
      name: 'hooked-key-api',
      display_name: 'Hooked key API',
      auth_mode: 'API_KEY',
      proxy: { base_url: 'https://api.hooked-key.test', headers: { 'x-api-key': '${apiKey}' } },
      docs: 'https://example.com/hooked-key/webhooks',
      webhook: { signature_header: 'X-Key-Signature', algorithm: 'hmac-sha1', encoding: 'hex', secret: 'webhook_secret' },
    };
    assert.equal((await t.api('/providers', { method: 'POST', json: def })).status, 201);
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'hooked-key-api', unique_key: 'hooked-key' } })).status, 200);
    const created = await t.api('/connections', {
      method: 'POST',
      json: { provider_config_key: 'hooked-key', connection_id: 'key-conn', credentials: { type: 'API_KEY', apiKey: 'k-1' } },
    });
    assert.equal(created.status, 201, await created.clone().text());
    const url = ((await (await t.api('/integrations/hooked-key?include=webhook')).json()) as Json).data.webhook_url as string;
    const body = JSON.stringify({ id: 'evt_key', type: 'thing.changed', connectionId: 'key-conn' });
    const send = (secret: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-key-signature': createHmac('sha1', secret).update(body).digest('hex') },
        body,
      });

    // No secret generated yet: nothing can prove the webhook.
    const early = await send('guessed');
    assert.equal(early.status, 401);
    assert.match(((await early.json()) as Json).error.message, /no webhook secret/);
    const secret = ((await (await t.api('/integrations/hooked-key/webhook-secret')).json()) as Json).data.webhook_secret as string;
    assert.equal((await send('guessed')).status, 401);
    const res = await send(secret);
    assert.equal(res.status, 200, await res.clone().text());
    const forward = await waitFor('the forward of evt_key', () => receiver.received.find((r) => r.json.type === 'forward' && r.body.includes('evt_key')));
    assert.equal(forward.json.connectionId, 'key-conn');
    assert.equal(forward.json.providerConfigKey, 'hooked-key');
  });

  describe('security', () => {
    const generatedSecret = async (pck: string) => ((await (await t.api(`/integrations/${pck}/webhook-secret`)).json()) as Json).data.webhook_secret as string;
    const forwardsOf = async (eventId: string) =>
      (
        await t.platform.deps.db.query<{ connection_id: string | null }>(
          `SELECT connection_id FROM events WHERE type = 'forward' AND (payload->'payload'->>'id' = $1 OR payload->>'id' = $1) ORDER BY connection_id`,
          [eventId],
        )
      ).rows.map((r) => r.connection_id);
    /** A user-defined API-key provider whose webhooks `webhook` describes. */
    const apiKeyProvider = (
      name: string,
      webhook: ProviderDefinitionInput['webhook'],
      more: Partial<ProviderDefinitionInput> = {},
    ): ProviderDefinitionInput => ({
      name,
      display_name: name,
      auth_mode: 'API_KEY',
      proxy: { base_url: `https://${name}.test`, headers: { 'x-api-key': '${apiKey}' } },
      docs: `https://example.com/${name}/webhooks`,
      webhook,
      ...more,
    });
    /** A connection made with the secret key: its connection_config is the developer's. */
    const developerConnection = async (pck: string, connectionId: string, connectionConfig: Json = {}) => {
      const res = await t.api('/connections', {
        method: 'POST',
        json: {
          provider_config_key: pck,
          connection_id: connectionId,
          connection_config: connectionConfig,
          credentials: { type: 'API_KEY', apiKey: `k-${connectionId}` },
        },
      });
      assert.equal(res.status, 201, await res.clone().text());
    };
    const webhookErrors = async (pck: string, connectionId: string) =>
      (((await (await t.api(`/connections/${encodeURIComponent(connectionId)}?provider_config_key=${pck}`)).json()) as Json).errors as Json[]).filter(
        (e) => e.type === 'webhook',
      );

    test("a routing value the end user typed routes nothing: another customer's account id stays theirs", async () => {
      const def = apiKeyProvider(
        'acct-api',
        {
          signature_header: 'X-Acct-Signature',
          algorithm: 'hmac-sha256',
          encoding: 'hex',
          secret: 'webhook_secret',
          routing: { body_path: 'account', connection_config_key: 'account' },
        },
        { connection_config: { account: { title: 'Account id' } } },
      );
      assert.equal((await t.api('/providers', { method: 'POST', json: def })).status, 201);
      assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'acct-api', unique_key: 'acct' } })).status, 200);
      const secret = await generatedSecret('acct');
      const url = ((await (await t.api('/integrations/acct?include=webhook')).json()) as Json).data.webhook_url as string;
      const send = (e: Json) => {
        const text = JSON.stringify(e);
        return fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-acct-signature': createHmac('sha256', secret).update(text).digest('hex') },
          body: text,
        });
      };
      // The customer's connection, made by the developer (secret key).
      await developerConnection('acct', 'victim', { account: 'acct-1' });
      // Another end user types the customer's account id into their own connection.
      const session = ((await (await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'mallory' } } })).json()) as Json).data.token;
      const typed = await fetch(`${t.url}/api-auth/api-key/acct?connect_session_token=${session}&params[account]=acct-1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiKey: 'k-m' }),
      });
      assert.equal(typed.status, 200, await typed.clone().text());
      const mallory = ((await typed.json()) as Json).connectionId as string;

      assert.equal((await send({ id: 'evt_acct_1', type: 'thing.changed', account: 'acct-1' })).status, 200);
      assert.deepEqual(await forwardsOf('evt_acct_1'), ['victim'], "only the customer's own connection gets the event");
      const told = await webhookErrors('acct', mallory);
      assert.equal(told.length, 1, 'the connection whose value was typed says why it gets nothing');
      assert.match(told[0]!.message, /account acct-1 are not routed to this connection: the value was entered by the end user/);
      assert.deepEqual(await webhookErrors('acct', 'victim'), []);

      // The developer gives a second connection the same account: both get the event, each says so.
      await developerConnection('acct', 'victim-2', { account: 'acct-1' });
      assert.equal((await send({ id: 'evt_acct_2', type: 'thing.changed', account: 'acct-1' })).status, 200);
      assert.deepEqual(await forwardsOf('evt_acct_2'), ['victim', 'victim-2']);
      assert.match((await webhookErrors('acct', 'victim'))[0]?.message ?? '', /also go to victim-2: 2 connections claim this value/);
      assert.match((await webhookErrors('acct', 'victim-2'))[0]?.message ?? '', /also go to victim: 2 connections claim this value/);
    });

    test('a signed timestamp more than 5 minutes off is refused; the signature covers it', async () => {
      const def = apiKeyProvider('stamped-api', {
        signature_header: 'X-Stamped-Signature',
        signature_prefix: 'v0=',
        algorithm: 'hmac-sha256',
        encoding: 'hex',
        secret: 'webhook_secret',
        timestamp_header: 'X-Stamped-Timestamp',
        signed_payload: 'v0:${timestamp}:${body}',
      });
      const unsigned = await t.api('/providers', {
        method: 'POST',
        json: { ...def, name: 'stamped-unsigned', webhook: { ...def.webhook, signed_payload: undefined } },
      });
      assert.equal(unsigned.status, 400, 'a timestamp the signature does not cover is refused');
      assert.match(await unsigned.text(), /signed_payload/);
      const created = await t.api('/providers', { method: 'POST', json: def });
      assert.equal(created.status, 201, await created.clone().text());
      assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'stamped-api', unique_key: 'stamped' } })).status, 200);
      await developerConnection('stamped', 'stamped-conn');
      const secret = await generatedSecret('stamped');
      const url = ((await (await t.api('/integrations/stamped?include=webhook')).json()) as Json).data.webhook_url as string;
      const send = (id: string, sentAt: number, headerAt = sentAt) => {
        const text = JSON.stringify({ id, type: 'thing.changed', connectionId: 'stamped-conn' });
        const mac = createHmac('sha256', secret).update(`v0:${sentAt}:${text}`).digest('hex');
        return fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-stamped-signature': `v0=${mac}`, 'x-stamped-timestamp': String(headerAt) },
          body: text,
        });
      };
      const now = Math.floor(Date.now() / 1000);
      assert.equal((await send('evt_fresh', now)).status, 200);
      assert.deepEqual(await forwardsOf('evt_fresh'), ['stamped-conn']);
      for (const [id, res, code] of [
        ['evt_old', await send('evt_old', now - 400), 'webhook_stale_timestamp'],
        ['evt_future', await send('evt_future', now + 400), 'webhook_stale_timestamp'],
        ['evt_moved', await send('evt_moved', now - 3600, now), 'webhook_invalid_signature'],
      ] as const) {
        assert.equal(res.status, 401, id);
        assert.equal(((await res.json()) as Json).error.code, code, id);
        assert.deepEqual(await forwardsOf(id), [], id);
      }
      const text = JSON.stringify({ id: 'evt_nostamp', type: 'thing.changed', connectionId: 'stamped-conn' });
      const noStamp = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-stamped-signature': `v0=${createHmac('sha256', secret).update(text).digest('hex')}` },
        body: text,
      });
      assert.equal(noStamp.status, 401);
      assert.equal(((await noStamp.json()) as Json).error.code, 'webhook_missing_timestamp');
    });

    test('an event id already processed is acknowledged and not processed again (a redelivery or a replay)', async () => {
      const body = JSON.stringify(event('evt_once', 'ws-a', 'once'));
      assert.equal((await post(body, { [HEADER]: sign(body) })).status, 200);
      const handle = workflowHandle(t.platform.deps.temporal, 'syncWebhookWorkflow', syncWebhookWorkflowId('dev', PCK, 'conn-a', 'tickets', 'evt_once'));
      await handle.result();
      const first = (await handle.describe()).runId;
      const again = await post(body, { [HEADER]: sign(body) });
      assert.equal(again.status, 200);
      assert.deepEqual(await again.json(), { status: 'success' });
      assert.equal((await handle.describe()).runId, first, 'onWebhook did not run again');
      assert.deepEqual(await forwardsOf('evt_once'), ['conn-a'], 'forwarded once');
    });
  });
});
