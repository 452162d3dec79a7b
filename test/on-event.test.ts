/**
 * On-event scripts, sync webhooks and the sandbox's web APIs: deployed (sandboxed) and pre-built
 * (in-process) post-connection-creation scripts set metadata after a connection is created (a
 * failing one leaves an error on the connection); a validate-connection script that throws refuses
 * the connection with 400 and nothing is saved; pre-connection-deletion scripts run before a delete
 * (a failing one does not stop it); a sync's onWebhook turns a third-party webhook into records and
 * a WEBHOOK sync event; a deployed action uses z.url(), URL and URLSearchParams, and deployed
 * validators strip undeclared keys as zod does.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { bundle, manifestOf } from '../cli/build.js';
import { CLI_VERSION, findScripts } from '../cli/project.js';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { createOnEvent } from '../sdk/index.js';
import { startMetabaseFake } from './fakes/index.js';
import { startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { onEventWorkflowId, syncWebhookWorkflowId } from '../workflows/contracts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const API_KEY = 'mb_on_event=';
const PCK = 'generic';
const CONN = 'acme';

// Pre-built on-event scripts run in-process, next to the provider's own scripts.
const seen = { created: [] as string[], deleted: [] as string[] };
registerPrebuiltScripts('metabase', {
  ...metabaseScripts,
  'mark-prebuilt': createOnEvent({
    description: 'test',
    event: 'post-connection-creation',
    async exec(ctx) {
      seen.created.push(ctx.connectionId);
      if (ctx.connectionId === 'doomed') throw new Error('no room for doomed');
      await ctx.setMetadata({ ...((await ctx.getMetadata()) as Record<string, unknown>), prebuilt: true });
    },
  }),
  'note-deletion': createOnEvent({
    description: 'test',
    event: 'pre-connection-deletion',
    async exec(ctx) {
      seen.deleted.push(ctx.connectionId);
      if (ctx.connectionId === 'doomed') throw new Error('cannot say goodbye');
    },
  }),
});

const SCRIPTS: Record<string, string> = {
  'on-events/remember-owner.ts': `import { createOnEvent } from 'switchyard/sdk';
export default createOnEvent({ description: 'test', event: 'post-connection-creation',
  description: 'Keeps the API key owner in metadata',
  async exec(ctx) {
    const res = await ctx.get<{ email: string }>({ endpoint: '/api/user/current' });
    await ctx.setMetadata({ ...(await ctx.getMetadata()), owner: res.data.email });
  },
});
`,
  'on-events/refuse-blocked.ts': `import { createOnEvent } from 'switchyard/sdk';
export default createOnEvent({ description: 'test', event: 'validate-connection',
  async exec(ctx) {
    const res = await ctx.get<{ email: string }>({ endpoint: '/api/user/current', params: { validating: ctx.connectionId } });
    const c = await ctx.getConnection();
    if (c.connectionId.startsWith('blocked')) throw new Error(c.connectionId + ' is blocked for ' + res.data.email);
  },
});
`,
  'on-events/say-goodbye.ts': `import { createOnEvent } from 'switchyard/sdk';
export default createOnEvent({ description: 'test', event: 'pre-connection-deletion',
  async exec(ctx) {
    await ctx.get({ endpoint: '/api/user/current', params: { goodbye: ctx.connectionId } });
  },
});
`,
  'syncs/webhook-items.ts': `import { z } from 'zod';
import { createSync } from 'switchyard/sdk';
export default createSync({
  description: 'Items pushed by webhooks',
  frequency: 'every day',
  autoStart: false,
  endpoints: [{ method: 'GET', path: '/webhook-items' }],
  models: { WebhookItem: z.object({ id: z.string(), name: z.string() }) },
  webhookSubscriptions: ['item.created'],
  async exec() {},
  async onWebhook(ctx, payload) {
    const event = payload as { data: { id: string; name: string } };
    await ctx.batchSave([event.data], 'WebhookItem');
  },
});
`,
  'actions/build-url.ts': `import { z } from 'zod';
import { createAction } from 'switchyard/sdk';
declare class URL { constructor(url: string); readonly searchParams: URLSearchParams; toString(): string }
declare class URLSearchParams { constructor(init?: Record<string, string>); set(k: string, v: string): void; get(k: string): string | null; toString(): string }
export default createAction({
  description: 'Builds a URL',
  endpoint: { method: 'POST', path: '/build-url' },
  input: z.object({ base: z.url(), params: z.record(z.string(), z.string()) }),
  output: z.object({ url: z.url(), query: z.string(), page: z.string().nullable() }),
  async exec(_ctx, input) {
    const u = new URL(input.base);
    for (const [k, v] of Object.entries(input.params)) u.searchParams.set(k, v);
    const out = { url: u.toString(), query: new URLSearchParams(input.params).toString(), page: u.searchParams.get('page'), debug: true };
    return out;
  },
});
`,
};

describe('on-event scripts, sync webhooks, sandbox web APIs', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let work: string;
  const scripts: Json[] = [];
  const unified = { 'connection-id': CONN, 'provider-config-key': PCK };
  const connect = (connectionId: string) =>
    t.api('/connections', {
      method: 'POST',
      json: {
        provider_config_key: PCK,
        connection_id: connectionId,
        connection_config: { hostname: metabase.url },
        credentials: { type: 'API_KEY', apiKey: API_KEY },
      },
    });
  const connection = async (connectionId: string) => (await (await t.api(`/connections/${connectionId}?provider_config_key=${PCK}`)).json()) as Json;
  const connectionRows = async (connectionId: string) =>
    (await t.platform.deps.db.query('SELECT count(*)::int AS n FROM connections WHERE connection_id = $1', [connectionId])).rows[0].n as number;
  const connectionPk = async (connectionId: string) =>
    (await t.platform.deps.db.query('SELECT id FROM connections WHERE connection_id = $1', [connectionId])).rows[0].id as number;
  const workflowExists = async (workflowId: string) => {
    try {
      await t.platform.deps.temporal.workflow.getHandle(workflowId).describe();
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  };

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: PCK } })).status, 200);
    // Compile the scripts as `switchyard compile` does (bundle + manifest), then deploy them, activated.
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'on-event-'));
    await mkdir(path.join(work, 'node_modules'), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules', 'zod'), path.join(work, 'node_modules', 'zod'), 'dir');
    for (const [file, content] of Object.entries(SCRIPTS)) {
      await mkdir(path.dirname(path.join(work, PCK, file)), { recursive: true });
      await writeFile(path.join(work, PCK, file), content);
    }
    for (const s of await findScripts(work)) {
      const code = await bundle(work, s);
      scripts.push({ integration: s.integration, name: s.name, bundle: code, manifest: await manifestOf(work, s, code) });
    }
    const deployed = await t.api('/scripts/deploy', { method: 'POST', json: { scripts, activate: true, cli_version: CLI_VERSION } });
    assert.equal(deployed.status, 200, await deployed.clone().text());
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('deploy checks the CLI version in the body: too old is 426, missing is 400 naming cli_version; nothing is deployed', async () => {
    const versions = async () => Number((await t.platform.deps.db.query('SELECT count(*) FROM script_deployments')).rows[0].count);
    const before = await versions();
    for (const path_ of ['/scripts/deploy', '/scripts/deploy/preview']) {
      const old = await t.api(path_, { method: 'POST', json: { scripts, activate: true, cli_version: '0.66.9' } });
      assert.equal(old.status, 426);
      const oldBody = (await old.json()) as Json;
      assert.equal(oldBody.error.code, 'client_upgrade_required');
      assert.match(oldBody.error.message, /cli_version 0\.66\.9 .*0\.67\.0/);
      const missing = await t.api(path_, { method: 'POST', json: { scripts, activate: true } });
      assert.equal(missing.status, 400);
      assert.deepEqual(
        ((await missing.json()) as Json).error.errors.map((e: Json) => e.path),
        [['cli_version']],
      );
      const malformed = await t.api(path_, { method: 'POST', json: { scripts, activate: true, cli_version: 'latest' } });
      assert.equal(malformed.status, 400);
      assert.deepEqual(
        ((await malformed.json()) as Json).error.errors.map((e: Json) => e.path),
        [['cli_version']],
      );
    }
    assert.equal(await versions(), before);
  });

  test('post-connection-creation: deployed and pre-built scripts run after the answer and set metadata; not on override', async () => {
    const created = await connect(CONN);
    assert.equal(created.status, 201, await created.clone().text());
    const validated = metabase.requests.find((r) => r.path === '/api/user/current' && r.query.validating === CONN);
    assert.ok(validated, 'validate-connection reached the provider with the new credentials');
    const metadata = await waitFor('the post-connection-creation scripts', async () => {
      const m = (await connection(CONN)).metadata as Json | null;
      return m?.owner && m.prebuilt ? m : null;
    });
    assert.match(metadata.owner as string, /@api-key\.invalid$/);
    assert.deepEqual(seen.created, [CONN]);

    // Not on override. The start of the scripts' workflow, when there is one, happens before the
    // answer (features/lifecycle); its id is once per connection, so while the first run is
    // remembered a second start would be refused anyway. Forget it, as Temporal does after the
    // namespace's retention: only the override itself must then stop a second run.
    const firstRun = onEventWorkflowId('dev', 'post-connection-creation', PCK, CONN, await connectionPk(CONN));
    const client = t.platform.deps.temporal;
    await client.workflow.getHandle(firstRun).result();
    await client.workflowService.deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId: firstRun } });
    await waitFor('the first run to be forgotten', async () => !(await workflowExists(firstRun)));
    const override = await connect(CONN);
    assert.equal(override.status, 201);
    assert.equal(await workflowExists(firstRun), false, 'an override starts no post-connection-creation run');
    assert.deepEqual(seen.created, [CONN], 'an override does not run them again');

    // A failing one leaves an on-event error on the connection (the connection stays).
    assert.equal((await connect('doomed')).status, 201);
    const errors = await waitFor('the failure on the connection', async () => {
      const e = (await connection('doomed')).errors as Json[];
      return e.some((x) => x.type === 'on-event') ? e : null;
    });
    assert.match(errors.find((x) => x.type === 'on-event')!.message, /mark-prebuilt failed: no room for doomed/);
  });

  test('validate-connection: a script that throws refuses the connection with 400 and nothing is saved', async () => {
    const refused = await connect('blocked-1');
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as Json;
    assert.equal(body.error.code, 'connection_validation_failed');
    assert.match(body.error.message, /refuse-blocked.*blocked-1 is blocked for .*@api-key\.invalid/);
    assert.equal(await connectionRows('blocked-1'), 0);
  });

  const webhookSecret = async () => {
    const res = await t.api(`/integrations/${PCK}/webhook-secret?connection_id=${CONN}`);
    assert.equal(res.status, 200);
    return ((await res.json()) as Json).data as { webhook_secret: string; webhook_url: string; webhook_url_with_token: string; connection_webhook_url: string };
  };
  const hmac = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const post = (url: string, body: Json, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  /** The onWebhook run of an event for a connection: started before the webhook is answered, so its absence after the answer is final. */
  const webhookRunExists = (eventId: string, connectionId = CONN) => workflowExists(syncWebhookWorkflowId('dev', PCK, connectionId, 'webhook-items', eventId));

  test('onWebhook: a webhook not proven by the integration secret gets 401 and runs nothing', async () => {
    const { webhook_secret: secret, webhook_url: url } = await webhookSecret();
    const event = (id: string) => ({ id, type: 'item.created', connectionId: CONN, data: { id, name: 'forged' } });
    const refused = [
      await post(url, event('evt_none')),
      await post(url, event('evt_badsig'), { 'x-switchyard-signature': hmac('not-the-secret', JSON.stringify(event('evt_badsig'))) }),
      // Signed over other bytes than those sent.
      await post(url, event('evt_tampered'), { 'x-switchyard-signature': hmac(secret, JSON.stringify(event('evt_other'))) }),
      await post(`${url}/${'0'.repeat(secret.length)}`, event('evt_badtoken')),
      await post(`${url}/${secret.slice(0, -1)}`, event('evt_shorttoken')),
    ];
    for (const res of refused) {
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as Json).error.code, 'webhook_invalid_signature');
    }
    for (const id of ['evt_none', 'evt_badsig', 'evt_tampered', 'evt_badtoken', 'evt_shorttoken']) assert.equal(await webhookRunExists(id), false, id);
    assert.equal(JSON.stringify(await (await t.api('/openapi.json')).json()).includes('/integrations/{uniqueKey}/webhook-secret/rotate'), true);
  });

  test('onWebhook: a subscribed event routed by connectionId saves records and emits a WEBHOOK sync event', async () => {
    const { webhook_secret: secret, webhook_url: url, webhook_url_with_token: tokenUrl, connection_webhook_url: connectionUrl } = await webhookSecret();
    assert.match(connectionUrl, new RegExp(`^${url}/c\\d+\\.[0-9a-f]{64}$`));
    const send = (body: Json) => post(url, body, { 'x-switchyard-signature': hmac(secret, JSON.stringify(body)) });
    const ignored = await send({ id: 'evt_0', type: 'item.deleted', connectionId: CONN, data: { id: 'w0', name: 'not subscribed' } });
    assert.equal(ignored.status, 200);
    assert.equal(await webhookRunExists('evt_0'), false, 'the unsubscribed event starts no onWebhook run');
    const res = await send({ id: 'evt_1', type: 'item.created', connectionId: CONN, data: { id: 'w1', name: 'from a webhook', extra: 'stripped' } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'success' });
    await t.platform.deps.temporal.workflow.getHandle(syncWebhookWorkflowId('dev', PCK, CONN, 'webhook-items', 'evt_1')).result();
    const records = ((await (await t.api('/records?model=WebhookItem', { headers: unified })).json()) as Json).records as Json[];
    assert.deepEqual(
      records.map((r) => r.id),
      ['w1'],
      'the subscribed event saved its record; the unsubscribed one saved nothing',
    );
    assert.equal(records[0]!.name, 'from a webhook');
    assert.equal(records[0]!.extra, undefined, 'undeclared keys are stripped as zod does');
    const event = await waitFor('the sync event', async () => {
      const { rows } = await t.platform.deps.db.query(`SELECT payload FROM events WHERE type = 'sync' AND payload->>'syncName' = 'webhook-items'`);
      return rows[0]?.payload as Json | undefined;
    });
    assert.equal(event.syncType, 'WEBHOOK');
    assert.equal(event.model, 'WebhookItem');
    assert.deepEqual(event.responseResults, { added: 1, updated: 0, deleted: 0 });
    // No connectionId: acknowledged, nothing runs, for no connection of the integration.
    assert.equal((await send({ id: 'evt_2', type: 'item.created', data: { id: 'w2', name: 'nobody' } })).status, 200);
    const { rows: connections } = await t.platform.deps.db.query<{ connection_id: string }>(
      'SELECT c.connection_id FROM connections c JOIN integrations i ON i.id = c.integration_id WHERE i.unique_key = $1',
      [PCK],
    );
    assert.ok(connections.length > 0);
    for (const { connection_id: c } of connections) assert.equal(await webhookRunExists('evt_2', c), false, `a run for ${c}`);
    // The integration-wide URL is handed to third parties: a body posted to it names no connection.
    const byToken = await post(tokenUrl, { id: 'evt_3', type: 'item.created', connectionId: CONN, data: { id: 'w3', name: 'by token' } });
    assert.equal(byToken.status, 200);
    assert.equal(await webhookRunExists('evt_3'), false, 'the integration-wide URL routed a body to a connection');
    // A connection's own URL routes to that connection, whatever the body names.
    const own = await post(connectionUrl, { id: 'evt_3b', type: 'item.created', connectionId: 'someone-else', data: { id: 'w3b', name: 'by url' } });
    assert.equal(own.status, 200);
    assert.equal(await webhookRunExists('evt_3b'), true);
    const unknown = await t.api(`/integrations/${PCK}/webhook-secret?connection_id=nobody`);
    assert.equal(unknown.status, 404);
    // Another connection's id in the URL token without its MAC proves nothing.
    const forged = connectionUrl.replace(/\/c(\d+)\./, (_, pk: string) => `/c${Number(pk) + 1}.`);
    assert.equal((await post(forged, { id: 'evt_3c', type: 'item.created', data: { id: 'w3c', name: 'forged' } })).status, 401);
  });

  test('onWebhook: rotating the secret refuses the old one at once and accepts the new one', async () => {
    const old = await webhookSecret();
    const rotated = await t.api(`/integrations/${PCK}/webhook-secret/rotate?connection_id=${CONN}`, { method: 'POST' });
    assert.equal(rotated.status, 200);
    const fresh = ((await rotated.json()) as Json).data as { webhook_secret: string; connection_webhook_url: string };
    assert.notEqual(fresh.webhook_secret, old.webhook_secret);
    assert.equal((await webhookSecret()).webhook_secret, fresh.webhook_secret);
    const body = { id: 'evt_4', type: 'item.created', connectionId: CONN, data: { id: 'w4', name: 'after rotation' } };
    assert.equal((await post(old.webhook_url, body, { 'x-switchyard-signature': hmac(old.webhook_secret, JSON.stringify(body)) })).status, 401);
    assert.equal((await post(old.webhook_url_with_token, body)).status, 401);
    assert.equal((await post(old.connection_webhook_url, body)).status, 401);
    assert.equal(await webhookRunExists('evt_4'), false);
    assert.equal((await post(fresh.connection_webhook_url, body)).status, 200);
    assert.equal(await webhookRunExists('evt_4'), true);
  });

  test('a deployed action uses z.url(), URL and URLSearchParams; its output is stripped of undeclared keys', async () => {
    const res = await t.api('/action/trigger', {
      method: 'POST',
      headers: unified,
      json: { action_name: 'build-url', input: { base: 'https://api.example.com/v1/items?page=1', params: { page: '2', sort: 'a b&c' } } },
    });
    const body = (await res.json()) as Json;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(body, { url: 'https://api.example.com/v1/items?page=2&sort=a+b%26c', query: 'page=2&sort=a+b%26c', page: '2' });
  });

  test('pre-connection-deletion: scripts run before the delete; a failing one does not stop it', async () => {
    const deleted = await t.api(`/connections/${CONN}?provider_config_key=${PCK}`, { method: 'DELETE' });
    assert.equal(deleted.status, 200);
    assert.ok(metabase.requests.some((r) => r.path === '/api/user/current' && r.query.goodbye === CONN));
    assert.deepEqual(seen.deleted, [CONN]);
    assert.equal(await connectionRows(CONN), 0);
    const doomed = await t.api(`/connections/doomed?provider_config_key=${PCK}`, { method: 'DELETE' });
    assert.equal(doomed.status, 200);
    assert.deepEqual(seen.deleted, [CONN, 'doomed']);
    assert.equal(await connectionRows('doomed'), 0);
  });
});
