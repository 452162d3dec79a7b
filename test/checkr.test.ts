/**
 * Checkr Partner end to end, through the public API only, against the Checkr fake: OAuth connect
 * (token metadata, Account Hierarchy detection), candidates, services, parameters, a trigger
 * followed by backgroundCheckWorkflow to its final state (by a signed webhook, or by polling), the
 * forward webhook to the developer, forged signatures refused, 429 bursts survived, and the
 * background-checks sync over link pagination.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { verifyWebhook } from '../features/webhooks/verify.js';
import { startCheckrFake, type CheckrFake } from './fakes/index.js';
import { startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { workflowHandle } from '../workflows/contracts.js';
import { backgroundCheckWorkflowId } from '../integrations/checkr-partner/workflows/contracts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CLIENT_ID = 'partner-client';
const CLIENT_SECRET = 'partner-client-secret';
const ACME = 'acme00000000000000000001';
const GLOBEX = 'globex000000000000000002';

// Long by default: the first check must end by its webhook, not by polling. One test shortens it.
process.env.SWITCHYARD_BGCHECK_POLL_INTERVAL_MS = '600000';

describe('Checkr Partner', () => {
  let t: TestPlatform;
  let checkr: CheckrFake;
  let receiver: WebhookReceiver;
  let nango: Nango;
  const conn: Record<string, string> = {};
  let webhookPath = '';
  let signingKey = '';
  let candidateId = '';

  const headersFor = (key: string) => ({ 'connection-id': conn[key]!, 'provider-config-key': key });

  async function integration(key: string, provider: string, authorizeQuery: string) {
    const res = await t.api('/integrations', {
      method: 'POST',
      json: {
        provider,
        unique_key: key,
        credentials: { type: 'OAUTH2', client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
        integration_config: {
          authorization_url: `${checkr.url}/authorize/${CLIENT_ID}?${authorizeQuery}`,
          token_url: `${checkr.url}/oauth/tokens`,
          base_url: checkr.url,
        },
      },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const tab = (await (await t.api(`/integrations/${key}/endpoints`)).json()) as Json;
    const endpoints = tab.data.map((e: Json) => ({ method: e.method, path: e.path, enabled: true }));
    assert.equal(endpoints.length, 5);
    assert.equal((await t.api(`/integrations/${key}/endpoints`, { method: 'PATCH', json: { endpoints } })).status, 200);
  }

  async function oauthConnect(key: string): Promise<string> {
    const session = await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: `user-${key}` } } });
    const token = ((await session.json()) as Json).data.token;
    const start = await fetch(`${t.url}/oauth/connect/${key}?connect_session_token=${token}`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    const approved = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    assert.equal(approved.status, 302, 'the fake approves at once with ?auto=1');
    const done = await fetch(approved.headers.get('location')!);
    const page = await done.text();
    assert.equal(done.status, 200, page);
    const list = ((await (await t.api(`/connections?integrationId=${key}`)).json()) as Json).connections;
    assert.equal(list.length, 1);
    return list[0].connection_id;
  }

  async function records(key: string): Promise<Json[]> {
    const res = (await nango.listRecords({ providerConfigKey: key, connectionId: conn[key]!, model: 'BackgroundCheck' } as never)) as Json;
    return res.records;
  }

  async function trigger(key: string, body: Json): Promise<Response> {
    return t.api('/background-check/trigger', { method: 'POST', headers: headersFor(key), json: body });
  }

  function checkWorkflow(key: string, invitationId: string) {
    return workflowHandle(t.platform.deps.temporal, 'backgroundCheckWorkflow', backgroundCheckWorkflowId('dev', conn[key]!, invitationId));
  }

  function signed(body: string, secret = CLIENT_SECRET): Record<string, string> {
    return { 'content-type': 'application/json', 'x-checkr-signature': createHmac('sha256', secret).update(body).digest('hex') };
  }

  before(async () => {
    t = await startTestPlatform();
    checkr = await startCheckrFake({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      accounts: [
        { id: ACME, name: 'Acme Staffing' },
        { id: GLOBEX, name: 'Globex', hierarchyEnabled: true },
      ],
    });
    receiver = await startWebhookReceiver();
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    const env = await t.api('/environment', { method: 'PATCH', json: { webhook_url: `${receiver.url}/hooks` } });
    assert.equal(env.status, 200, await env.clone().text());
    signingKey = ((await env.json()) as Json).data.webhook_signing_key;
    await integration('checkr', 'checkr-partner', 'auto=1');
    await integration('checkr-staging', 'checkr-partner-staging', `auto=1&account=${GLOBEX}`);
    conn.checkr = await oauthConnect('checkr');
    conn['checkr-staging'] = await oauthConnect('checkr-staging');
    const hook = ((await (await t.api('/integrations/checkr?include=webhook')).json()) as Json).data.webhook_url as string;
    webhookPath = new URL(hook).pathname;
  });
  after(async () => {
    await t?.stop();
    await checkr?.close();
    await receiver?.close();
  });

  test('OAuth connect keeps checkr_account_id and detects Account Hierarchy after the callback', async () => {
    const acme = (await (await t.api(`/connections/${conn.checkr}?provider_config_key=checkr`)).json()) as Json;
    assert.equal(acme.connection_config.checkr_account_id, ACME);
    assert.equal(acme.connection_config.accountHierarchyEnabled, false);
    assert.equal(acme.credentials.type, 'OAUTH2');
    const globex = (await (await t.api(`/connections/${conn['checkr-staging']}?provider_config_key=checkr-staging`)).json()) as Json;
    assert.equal(globex.connection_config.checkr_account_id, GLOBEX);
    assert.equal(globex.connection_config.accountHierarchyEnabled, true);
    const probes = checkr.requests.filter((r) => r.path === '/v1/nodes' && r.query.per_page === '1');
    assert.equal(probes.length, 2);
    assert.match(probes[0]!.headers.authorization!, /^Basic /);
    assert.equal(webhookPath, `/webhook/${webhookPath.split('/')[2]}/checkr`);
  });

  test('create a candidate; the service list (all pages, per node with hierarchy) and the parameters', async () => {
    const bad = await t.api('/candidates', {
      method: 'POST',
      headers: headersFor('checkr'),
      json: { country: 'US', first_name: 'Ann', email: 'ann@example.com', phone: '555' },
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as Json).error.code, 'invalid_action_input');

    const res = await t.api('/candidates', {
      method: 'POST',
      headers: headersFor('checkr'),
      json: {
        country: 'US',
        state: 'CA',
        city: 'San Francisco',
        first_name: 'Ann',
        no_middle_name: true,
        last_name: 'Lee',
        email: 'ann@example.com',
        phone: '5555550100',
        ssn: '111-22-3333',
      },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const candidate = (await res.json()) as Json;
    assert.match(candidate.id, /^[0-9a-f]{24}$/);
    assert.equal(candidate.ssn, 'XXX-XX-3333');
    assert.deepEqual(candidate.work_locations, [{ country: 'US', state: 'CA', city: 'San Francisco' }]);
    candidateId = candidate.id;

    const services = (await (await t.api('/background-check/service-list', { headers: headersFor('checkr') })).json()) as Json;
    assert.deepEqual(services.services.map((s: Json) => s.slug).sort(), ['basic_plus', 'driver_pro', 'tasker_standard']);
    assert.ok(services.services.every((s: Json) => s.node === undefined && Array.isArray(s.screenings)));

    const perNode = (await (await t.api('/background-check/service-list', { headers: headersFor('checkr-staging') })).json()) as Json;
    const pairs = perNode.services.map((s: Json) => `${s.node}:${s.slug}`).sort();
    assert.deepEqual(pairs, ['acme-hq:tasker_standard', 'acme-west:driver_pro', 'acme-west:tasker_standard']);

    const params = (await (await t.api('/background-check/service-parameters?service_key=driver_pro', { headers: headersFor('checkr') })).json()) as Json;
    assert.deepEqual(
      params.parameters.map((p: Json) => p.key),
      ['service_key', 'candidate_id', 'tags', 'country', 'state', 'city'],
    );
    const withNode = (await (
      await t.api('/background-check/service-parameters?service_key=driver_pro', { headers: headersFor('checkr-staging') })
    ).json()) as Json;
    assert.deepEqual(withNode.parameters.at(-1), {
      key: 'node',
      type: 'string',
      title: 'Node',
      description: 'The custom_id of the node (Account Hierarchy).',
      required: true,
    });
    const noNode = await trigger('checkr-staging', { country: 'US', state: 'CA', service_key: 'driver_pro', candidate_id: 'x' });
    assert.equal(noNode.status, 500);
    assert.equal(((await noNode.json()) as Json).error.payload.code, 'missing_node');
  });

  test('a trigger starts backgroundCheckWorkflow; a signed webhook completes it and reaches the developer signed', async () => {
    const res = await trigger('checkr', { country: 'US', state: 'CA', service_key: 'tasker_standard', candidate_id: candidateId, tags: ['e2e'] });
    assert.equal(res.status, 200, await res.clone().text());
    const triggered = (await res.json()) as Json;
    assert.equal(triggered.status, 'pending');
    assert.equal(triggered.service_key, 'tasker_standard');
    assert.equal(triggered.url, `/v1/invitations/${triggered.applicationId}`);
    const invitationId = triggered.applicationId as string;

    const cached = (await records('checkr')).find((r) => r.id === invitationId);
    assert.equal(cached?.status, 'pending');
    assert.equal(cached?.check_status, 'pending');

    const handle = checkWorkflow('checkr', invitationId);
    const described = await handle.describe();
    assert.equal(described.type, 'backgroundCheckWorkflow');
    assert.equal(described.status.name, 'RUNNING');

    const { deliveries, report } = await checkr.completeInvitation(invitationId, { webhookUrl: `${t.url}${webhookPath}`, result: 'clear' });
    assert.deepEqual(
      deliveries.map((d) => [d.type, d.status, d.responseBody]),
      [
        ['invitation.completed', 200, '{"status":"success"}'],
        ['report.completed', 200, '{"status":"success"}'],
      ],
    );

    const result = (await handle.result()) as Json;
    assert.equal(result.status, 'complete');
    assert.equal(result.snapshot.reportId, report.id);
    assert.equal(checkr.requests.filter((r) => r.path === `/v1/invitations/${invitationId}`).length, 0, 'the webhooks, not polling, ended the check');

    const done = (await records('checkr')).find((r) => r.id === invitationId)!;
    assert.equal(done.status, 'completed');
    assert.equal(done.check_status, 'complete');
    assert.equal(done.report_id, report.id);
    assert.equal(done.report_status, 'complete');
    assert.equal(done.result, 'clear');

    const forwards = await waitFor('both forward webhooks', () => {
      const got = receiver.received.filter((r) => r.json.type === 'forward' && (r.json.payload as Json)?.data?.object?.id !== undefined);
      return got.length >= 2 ? got : null;
    });
    for (const f of forwards) {
      assert.deepEqual(verifyWebhook(f.body, f.headers, signingKey), { ok: true });
      assert.equal(f.json.from, 'checkr-partner');
      assert.equal(f.json.providerConfigKey, 'checkr');
      assert.equal(f.json.connectionId, conn.checkr);
      assert.equal((f.json.payload as Json).account_id, ACME);
      assert.ok(f.headers['x-checkr-signature'], "Checkr's own headers are forwarded");
    }
    assert.deepEqual(forwards.map((f) => (f.json.payload as Json).type).sort(), ['invitation.completed', 'report.completed']);

    const changes = await waitFor('the status-change events', () => {
      const got = receiver.received.filter((r) => r.json.type === 'sync' && (r.json.backgroundCheck as Json)?.id === invitationId);
      return got.some((g) => (g.json.backgroundCheck as Json).check_status === 'complete') ? got : null;
    });
    const last = changes.find((g) => (g.json.backgroundCheck as Json).check_status === 'complete')!;
    assert.equal(last.json.model, 'BackgroundCheck');
    assert.equal(last.json.syncType, 'WEBHOOK');
    assert.equal((last.json.backgroundCheck as Json).source, 'webhook');
    assert.deepEqual(verifyWebhook(last.body, last.headers, signingKey), { ok: true });
  });

  test('forged or missing signatures are refused with 401 and nothing is forwarded; bad routes answer clearly', async () => {
    const before = receiver.received.length;
    const body = JSON.stringify({
      id: 'evt_forged',
      object: 'event',
      type: 'report.completed',
      account_id: ACME,
      data: { object: { id: 'r1', object: 'report', status: 'complete' } },
    });
    const forged = await fetch(`${t.url}${webhookPath}`, { method: 'POST', headers: signed(body, 'not-the-secret'), body });
    assert.equal(forged.status, 401);
    assert.equal(((await forged.json()) as Json).error.code, 'webhook_invalid_signature');
    const tampered = await fetch(`${t.url}${webhookPath}`, { method: 'POST', headers: signed(body), body: body.replace('complete"', 'canceled"') });
    assert.equal(tampered.status, 401);
    const missing = await fetch(`${t.url}${webhookPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(missing.status, 401);
    assert.equal(((await missing.json()) as Json).error.code, 'webhook_missing_signature');

    const envUuid = webhookPath.split('/')[2]!;
    const badUuid = await fetch(`${t.url}/webhook/not-a-uuid/checkr`, { method: 'POST', headers: signed(body), body });
    assert.equal(badUuid.status, 400);
    assert.equal(((await badUuid.json()) as Json).error.code, 'invalid_uri_params');
    const unknownEnv = await fetch(`${t.url}/webhook/${crypto.randomUUID()}/checkr`, { method: 'POST', headers: signed(body), body });
    assert.equal(unknownEnv.status, 404);
    assert.equal(((await unknownEnv.json()) as Json).error.code, 'unknown_environment');
    const unknownKey = await fetch(`${t.url}/webhook/${envUuid}/nope`, { method: 'POST', headers: signed(body), body });
    assert.equal(unknownKey.status, 404);
    assert.equal(((await unknownKey.json()) as Json).error.code, 'unknown_provider_config');
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } })).status, 200);
    const metabase = await fetch(`${t.url}/webhook/${envUuid}/metabase`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(metabase.status, 404);
    assert.equal(((await metabase.json()) as Json).error.code, 'webhooks_not_supported');

    // A valid event for an account no connection has: acknowledged, forwarded raw (no wrapper).
    const stray = JSON.stringify({
      id: 'evt_stray',
      object: 'event',
      type: 'account.credentialed',
      account_id: 'someone-else',
      data: { object: { id: 'someone-else', object: 'account' } },
    });
    const ok = await fetch(`${t.url}${webhookPath}`, { method: 'POST', headers: signed(stray), body: stray });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { status: 'success' });
    const raw = await waitFor('the unattributed forward', () => receiver.received.find((r) => r.json.id === 'evt_stray'));
    assert.equal(raw.json.type, 'account.credentialed');
    // Checkr redelivers an event it thinks failed: acknowledged again, forwarded once.
    const forwards = async () =>
      (((await (await t.api('/webhook-deliveries?limit=100')).json()) as Json).data as Json[]).filter((d) => d.type === 'forward').length;
    const counted = await forwards();
    const again = await fetch(`${t.url}${webhookPath}`, { method: 'POST', headers: signed(stray), body: stray });
    assert.equal(again.status, 200);
    assert.equal(await forwards(), counted);
    assert.ok(!receiver.received.slice(before).some((r) => r.body.includes('evt_forged')), 'nothing of the forged event was forwarded');
  });

  test('routing: a connection saved before routing values were tracked counts only the account id of its stored token response', async () => {
    const db = t.platform.deps.db;
    const event = (id: string, account: string) =>
      JSON.stringify({ id, object: 'event', type: 'account.credentialed', account_id: account, data: { object: { id: account, object: 'account' } } });
    const forwardOf = (id: string) =>
      waitFor(`the forward of ${id}`, () =>
        // Routed: wrapped, the event in `payload`; routed nowhere: the event itself.
        receiver.received.find((r) => (r.json.type === 'forward' ? (r.json.payload as Json)?.id : r.json.id) === id),
      );
    const oauthKeys = await db.query(`SELECT verified_config_keys FROM connections WHERE connection_id = $1`, [conn.checkr]);
    assert.deepEqual(oauthKeys.rows[0].verified_config_keys, ['accountHierarchyEnabled', 'checkr_account_id'], 'both came from Checkr');
    try {
      await db.query(`UPDATE connections SET verified_config_keys = NULL WHERE connection_id = $1`, [conn.checkr]);
      const legacy = event('evt_legacy', ACME);
      assert.equal((await fetch(`${t.url}${webhookPath}`, { method: 'POST', headers: signed(legacy), body: legacy })).status, 200);
      assert.equal((await forwardOf('evt_legacy')).json.connectionId, conn.checkr);

      // A value the token response does not hold (typed, as before provenance was kept) routes nothing.
      await db.query(`UPDATE connections SET connection_config = connection_config || '{"checkr_account_id":"typed-acct"}' WHERE connection_id = $1`, [
        conn.checkr,
      ]);
      const typed = event('evt_typed', 'typed-acct');
      assert.equal((await fetch(`${t.url}${webhookPath}`, { method: 'POST', headers: signed(typed), body: typed })).status, 200);
      const unrouted = await forwardOf('evt_typed');
      assert.equal(unrouted.json.connectionId, undefined, 'forwarded unwrapped: routed to no connection');
    } finally {
      await db.query(
        `UPDATE connections SET connection_config = connection_config || jsonb_build_object('checkr_account_id', $2::text),
           verified_config_keys = '{accountHierarchyEnabled,checkr_account_id}' WHERE connection_id = $1`,
        [conn.checkr, ACME],
      );
    }
  });

  test('without a webhook, the workflow polls Checkr and follows the check to expired', async () => {
    process.env.SWITCHYARD_BGCHECK_POLL_INTERVAL_MS = '300';
    try {
      const res = await trigger('checkr', { country: 'US', service_key: 'basic_plus', candidate_id: candidateId });
      assert.equal(res.status, 200, await res.clone().text());
      const invitationId = ((await res.json()) as Json).applicationId as string;
      const handle = checkWorkflow('checkr', invitationId);
      await waitFor('a poll', () => checkr.requests.some((r) => r.path === `/v1/invitations/${invitationId}`));
      const invitation = checkr.state.accounts.find((a) => a.id === ACME)!.invitations.find((i) => i.id === invitationId)!;
      invitation.status = 'expired';
      const result = (await handle.result()) as Json;
      assert.equal(result.status, 'expired');
      const cached = (await records('checkr')).find((r) => r.id === invitationId)!;
      assert.equal(cached.status, 'expired');
      assert.equal(cached.check_status, 'expired');
      const event = await waitFor('the expired event', () =>
        receiver.received.find((r) => (r.json.backgroundCheck as Json)?.id === invitationId && (r.json.backgroundCheck as Json).check_status === 'expired'),
      );
      assert.equal((event.json.backgroundCheck as Json).source, 'poll');
      assert.equal((event.json.backgroundCheck as Json).previous_check_status, 'pending');
    } finally {
      process.env.SWITCHYARD_BGCHECK_POLL_INTERVAL_MS = '600000';
    }
  });

  test('a burst of 429s (Retry-After / X-Ratelimit-Reset) is waited out and ends in success', async () => {
    const before = checkr.requests.length;
    checkr.failNext({
      status: 429,
      headers: { 'retry-after': '1', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1), 'x-ratelimit-remaining': '0' },
      body: JSON.stringify({ error: 'Too Many Requests' }),
      times: 4,
      match: (r) => r.path === '/v1/packages',
    });
    const res = await t.api('/background-check/service-list', { headers: headersFor('checkr') });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(((await res.json()) as Json).services.length, 3);
    const packages = checkr.requests.slice(before).filter((r) => r.path === '/v1/packages');
    assert.deepEqual(
      packages.map((r) => r.status),
      [429, 429, 429, 429, 200],
    );
    for (let i = 1; i < packages.length; i++) assert.ok(packages[i]!.at - packages[i - 1]!.at >= 900, 'each retry waited what Checkr asked');
  });

  test('the background-checks sync reads every page (next_href) through a 429, with reports', async () => {
    const token = checkr.issueToken(ACME);
    const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}`, 'content-type': 'application/json' };
    for (let i = 0; i < 28; i++) {
      const r = await fetch(`${checkr.url}/v1/invitations`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ candidate_id: candidateId, package: 'driver_pro' }),
      });
      assert.equal(r.status, 201);
    }
    const status = async () => ((await nango.syncStatus('checkr', ['background-checks'], conn.checkr)) as Json).syncs[0];
    const previous = (await status())?.finishedAt ?? null;
    checkr.failNext({
      status: 429,
      headers: { 'retry-after': '1' },
      body: '{"error":"Too Many Requests"}',
      times: 2,
      match: (r) => r.path === '/v1/invitations',
    });
    await nango.triggerSync('checkr', ['background-checks'], conn.checkr);
    const s = await waitFor('the sync run', async () => {
      const st = await status();
      return st?.finishedAt && st.finishedAt !== previous && st.latestExecutionStatus !== 'RUNNING' ? st : null;
    });
    assert.equal(s.latestExecutionStatus, 'SUCCESS', JSON.stringify(s));
    assert.equal(checkr.requests.filter((r) => r.path === '/v1/invitations' && r.status === 429).length, 2, 'the sync met the burst');
    const all = await records('checkr');
    assert.equal(all.length, 30);
    const pages = checkr.requests.filter((r) => r.path === '/v1/invitations' && r.method === 'GET' && r.status === 200).map((r) => r.query.page ?? '1');
    assert.ok(pages.includes('2'), `the second page was read via next_href (${pages.join(',')})`);
    const complete = all.find((r) => r.check_status === 'complete');
    assert.equal(complete?.result, 'clear', 'the sync keeps the report of completed checks');
  });
});
