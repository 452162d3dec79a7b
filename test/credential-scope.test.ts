/**
 * Credentials only to their provider (issue 14, item 7): a script's `baseUrlOverride` and an
 * absolute pagination link to another origin are requested without the connection's credentials;
 * the provider's own origin still gets them, and so do the origins its definition lists in
 * `proxy.credential_origins` (issue 28, item 6). A Metabase hostname over plain http is refused at
 * connection creation unless its host is in SWITCHYARD_ALLOWED_PRIVATE_HOSTS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { createAction } from '../sdk/index.js';
import { startPagesFake } from './fakes/pages.js';
import { connectMetabase, startTestPlatform, triggerAction, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const API_KEY = 'mb_scope_key';

const ids = z.object({ ids: z.array(z.string()) });
const readAt = createAction({
  description: 'GETs /pages at a base URL override',
  endpoint: { method: 'POST', path: '/read-at' },
  input: z.object({ base: z.string() }),
  output: ids,
  async exec(ctx, input) {
    const res = await ctx.get<{ items: { id: string }[] }>({ endpoint: '/pages', baseUrlOverride: input.base });
    return { ids: res.data.items.map((i) => i.id) };
  },
});
registerPrebuiltScripts('scoped-api', { 'read-at': readAt });
registerPrebuiltScripts('metabase', {
  ...metabaseScripts,
  'follow-links': createAction({
    description: 'reads every page of /pages, following absolute next links',
    endpoint: { method: 'POST', path: '/follow-links' },
    input: z.object({}),
    output: ids,
    async exec(ctx) {
      const out: string[] = [];
      const pages = ctx.paginate<{ id: string }>({
        endpoint: '/pages',
        paginate: { type: 'link', response_path: 'items', link_path_in_response_body: 'next' },
      });
      for await (const page of pages) out.push(...page.map((p) => p.id));
      return { ids: out };
    },
  }),
  'read-at': readAt,
});

describe('credential scope', () => {
  let t: TestPlatform;
  let foreign: Awaited<ReturnType<typeof startPagesFake>>;
  let provider: Awaited<ReturnType<typeof startPagesFake>>;
  const trigger = (action: string, input: Json) => triggerAction(t, action, input);
  const credentialsSeen = (fake: typeof provider) =>
    fake.requests.filter((r) => r.path === '/pages').map((r) => r.headers['x-api-key'] ?? r.headers.authorization ?? null);

  before(async () => {
    // 'localhost' and 127.0.0.1 are both allow-listed by the harness; another port is another origin.
    foreign = await startPagesFake();
    provider = await startPagesFake({ nextOrigin: foreign.url });
    t = await startTestPlatform();
    await connectMetabase(t, provider.url, API_KEY, { endpoints: ['POST /follow-links', 'POST /read-at'] });
  });
  after(async () => {
    await t?.stop();
    await provider?.close();
    await foreign?.close();
  });

  test('an absolute next link to another host is followed without the credentials', async () => {
    const { status, body } = await trigger('follow-links', {});
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.ids, [`${provider.url}#1`, `${foreign.url}#2`]);
    assert.deepEqual(credentialsSeen(provider), [API_KEY], 'the provider gets the key');
    assert.deepEqual(credentialsSeen(foreign), [null], 'the foreign host gets no credentials');
  });

  test("a baseUrlOverride to another host gets no credentials; one to the provider's origin does", async () => {
    provider.requests.length = 0;
    foreign.requests.length = 0;
    const elsewhere = await trigger('read-at', { base: foreign.url });
    assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
    assert.deepEqual(credentialsSeen(foreign), [null]);
    const own = await trigger('read-at', { base: `${provider.url}/` });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.deepEqual(credentialsSeen(provider), [API_KEY]);
  });

  test('the origins a definition lists in credential_origins get the credentials at a baseUrlOverride; others still do not', async () => {
    const files = await startPagesFake();
    try {
      const defined = await t.api('/providers', {
        method: 'POST',
        json: {
          name: 'scoped-api',
          display_name: 'Scoped',
          auth_mode: 'API_KEY',
          proxy: {
            base_url: provider.url,
            headers: { 'x-api-key': '${apiKey}' },
            credential_origins: [files.url],
            verification: { method: 'GET', endpoints: ['/api/user/current'] },
          },
          docs: 'https://scoped.test/docs',
        },
      });
      assert.equal(defined.status, 201, await defined.clone().text());
      assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'scoped-api', unique_key: 'scoped' } })).status, 200);
      const created = await t.api('/connections', {
        method: 'POST',
        json: { provider_config_key: 'scoped', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: API_KEY } },
      });
      assert.equal(created.status, 201, await created.clone().text());
      const enabled = await t.api('/integrations/scoped/endpoints', {
        method: 'PATCH',
        json: { endpoints: [{ method: 'POST', path: '/read-at', enabled: true }] },
      });
      assert.equal(enabled.status, 200, await enabled.clone().text());
      foreign.requests.length = 0;
      const readAt = async (base: string) => {
        const res = await t.api('/action/trigger', {
          method: 'POST',
          headers: { 'connection-id': 'c1', 'provider-config-key': 'scoped' },
          json: { action_name: 'read-at', input: { base } },
        });
        assert.equal(res.status, 200, await res.clone().text());
      };
      await readAt(files.url);
      assert.deepEqual(credentialsSeen(files), [API_KEY], 'a listed origin gets the key');
      await readAt(foreign.url);
      assert.deepEqual(credentialsSeen(foreign), [null], 'an unlisted one does not');
    } finally {
      await files.close();
    }
  });

  test('a Metabase hostname over plain http is refused with a 400 naming the field', async () => {
    for (const hostname of ['http://metabase.example.com', 'http://metabase.example.com:3000/base']) {
      const res = await t.api('/connections', {
        method: 'POST',
        json: { provider_config_key: 'metabase', connection_id: 'plain', connection_config: { hostname }, credentials: { type: 'API_KEY', apiKey: API_KEY } },
      });
      const body = (await res.json()) as Json;
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.error.code, 'invalid_connection_config');
      assert.match(body.error.message, /connection_config\.hostname must use https/);
    }
  });
});
