/**
 * No request reaches Object.prototype: a stranger's query string, JSON body or form must not add a
 * property every object inherits (issue 28, item 1). The first test is the security review's
 * reproduction: a polluted `base_url` would send the next proxied API key to the stranger's server.
 * The second walks every route the application declares with pollution attempts in its query, its
 * JSON body and its form body, with and without the secret key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../api/app.js';
import { startGenericApiFake, startMetabaseFake, type GenericApiFake } from './fakes/index.js';
import { addMetabaseConnection, startTestPlatform, type TestPlatform } from './harness.js';

const API_KEY = 'pollution-test-key-0123456789';
const PCK = 'mb';
const CONN = 'conn-1';
const MARK = 'zz_polluted';

const inheritedKeys = () => Object.getOwnPropertyNames(Object.prototype).sort();
const BASELINE = inheritedKeys();

/** Keys that appeared on Object.prototype since the file started; they are removed again, so one failure does not cascade. */
function pollutionSince(): string[] {
  const added = inheritedKeys().filter((k) => !BASELINE.includes(k));
  for (const k of added) delete (Object.prototype as Record<string, unknown>)[k];
  return added;
}

describe('prototype pollution', () => {
  let t: TestPlatform;
  let attacker: GenericApiFake;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    attacker = await startGenericApiFake();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: PCK } })).status, 200);
    await addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: PCK, connectionId: CONN });
  });
  after(async () => {
    pollutionSince();
    await t?.stop();
    await attacker?.close();
    await metabase?.close();
  });

  test("the review's query strings leave Object.prototype untouched and the next proxied call goes to the provider", async () => {
    const stranger = encodeURIComponent(attacker.url);
    const attempts = [
      `/providers?__proto__[base_url]=${stranger}`,
      `/providers?constructor[prototype][base_url]=${stranger}`,
      `/oauth/callback?params[__proto__][token_url]=${stranger}&state=x&code=y`,
      `/connect/sessions?__proto__[token_url]=${stranger}`,
    ];
    for (const path of attempts) {
      const res = await t.api(path, { key: null });
      assert.ok(res.status < 500, `${path}: ${res.status}`);
      await res.arrayBuffer();
    }
    assert.deepEqual(pollutionSince(), [], 'Object.prototype gained keys');

    const res = await t.api('/proxy/api/user/current', { headers: { 'connection-id': CONN, 'provider-config-key': PCK } });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(attacker.requests.length, 0, 'a request went to the stranger');
    assert.ok(
      metabase.requests.some((r) => r.path === '/api/user/current' && r.headers['x-api-key'] === API_KEY),
      'the provider got the proxied call',
    );
  });

  test('a key that names the prototype is refused with a 400 naming the field', async () => {
    for (const q of ['__proto__[x]=1', 'a[__proto__][x]=1', 'constructor[prototype][x]=1', 'tags[prototype]=1']) {
      const res = await t.api(`/connections?${q}`);
      assert.equal(res.status, 400, q);
      const body = (await res.json()) as { error: { code: string; errors?: { path: unknown[] }[] } };
      assert.equal(body.error.code, 'invalid_query_params', q);
    }
    const res = await t.api('/connections', {
      method: 'POST',
      body: `{"provider_config_key":"${PCK}","connection_id":"c2","connection_config":{"__proto__":{"hostname":"x"}},"credentials":{"type":"API_KEY","apiKey":"k"}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; errors?: { path: unknown[] }[] } };
    assert.equal(body.error.code, 'invalid_body');
    assert.deepEqual(body.error.errors?.[0]?.path, ['connection_config', '__proto__']);
  });

  test('every route, with pollution in its query, JSON body and form, leaves Object.prototype untouched', async () => {
    const routes = createApp(t.platform.deps)
      .routes.filter((r) => r.method !== 'ALL')
      .map((r) => ({ method: r.method, path: r.path.replace(/:(\w+)(\{[^}]*\})?/g, 'x').replace(/\*/g, 'x') }));
    const unique = [...new Map(routes.map((r) => [`${r.method} ${r.path}`, r])).values()];
    assert.ok(unique.length > 80, `only ${unique.length} routes found`);
    const query = [
      `__proto__[${MARK}_q1]=1`,
      `constructor[prototype][${MARK}_q2]=1`,
      `a[__proto__][${MARK}_q3]=1`,
      `params[__proto__][${MARK}_q4]=1`,
      `a[constructor][prototype][${MARK}_q5]=1`,
    ].join('&');
    const json = `{"__proto__":{"${MARK}_b1":1},"constructor":{"prototype":{"${MARK}_b2":1}},"a":{"__proto__":{"${MARK}_b3":1}}}`;
    const form = new URLSearchParams({
      [`__proto__[${MARK}_f1]`]: '1',
      [`constructor[prototype][${MARK}_f2]`]: '1',
      '__proto__.zz': '1',
    }).toString();
    let sent = 0;
    for (const { method, path } of unique) {
      for (const key of [undefined, null] as const) {
        const bodies: [string | undefined, string | undefined][] =
          method === 'GET' || method === 'HEAD'
            ? [[undefined, undefined]]
            : [
                [json, 'application/json'],
                [form, 'application/x-www-form-urlencoded'],
              ];
        for (const [body, type] of bodies) {
          const res = await t.api(`${path}?${query}`, { method, key, ...(body !== undefined && { body, headers: { 'content-type': type! } }) });
          await res.arrayBuffer();
          sent++;
        }
      }
    }
    assert.ok(sent > 160);
    assert.deepEqual(pollutionSince(), [], 'Object.prototype gained keys');
    assert.equal(({} as Record<string, unknown>)[`${MARK}_q1`], undefined);
  });
});
