/**
 * Auth is enforced by the declaration (issue 33): every route of the running app's route table
 * declares an auth kind, every kind but `none` is middleware the declaration attaches, and each
 * route refuses a request without its credential and with a wrong one, whatever its handler does.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { AUTH_KINDS, authenticate, type Auth } from '../api/middleware/authenticate.js';
import { servedPaths } from '../api/route.js';
import { routeTable } from '../api/routes/index.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const hex = (n: number) => randomBytes(n).toString('hex');
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Requests that carry no credential of the kind, or a wrong one: [label, headers, query]. */
function refusedAttempts(kind: Auth): [string, Record<string, string>, string][] {
  const none: [string, Record<string, string>, string] = ['no credential', {}, ''];
  const wrongKey: [string, Record<string, string>, string] = ['an unknown secret key', bearer(randomUUID()), ''];
  const wrongSession: [string, Record<string, string>, string] = ['an unknown connect session', bearer(`nango_connect_session_${hex(32)}`), ''];
  const wrongSessionQuery: [string, Record<string, string>, string] = [
    'an unknown connect session in the query',
    {},
    `?connect_session_token=nango_connect_session_${hex(32)}`,
  ];
  switch (kind) {
    case 'secret_key':
      return [none, wrongKey, ['a malformed header', { authorization: 'Basic x' }, '']];
    case 'connect_session':
      return [none, wrongSession, wrongSessionQuery, ['a secret key', bearer(randomUUID()), '']];
    case 'secret_key_or_connect_session':
      return [none, wrongKey, wrongSession, wrongSessionQuery];
    case 'secret_key_or_agent_session':
      return [none, wrongKey, ['an unknown agent session', bearer(`switchyard_agent_session_${hex(32)}`), '']];
    case 'agent_session':
      return [none, ['an unknown agent session', bearer(`switchyard_agent_session_${hex(32)}`), ''], ['a secret key', bearer(randomUUID()), '']];
    case 'webhook_secret':
      return [none, ['a wrong signature', { 'x-switchyard-signature': `sha256=${hex(32)}`, 'x-checkr-signature': hex(32) }, '']];
    case 'none':
      return [];
  }
}

describe('auth enforced by the declaration', () => {
  let t: TestPlatform;
  let webhookPath = '';

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    const created = await t.api('/integrations', {
      method: 'POST',
      json: { provider: 'checkr-partner', unique_key: 'checkr', credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret' } },
    });
    assert.equal(created.status, 200, await created.clone().text());
    const got = (await (await t.api('/integrations/checkr?include=webhook')).json()) as Json;
    webhookPath = new URL(got.data.webhook_url as string).pathname;
  });
  after(async () => {
    await t?.stop();
  });

  test('every route of the table declares an auth kind, and every kind but none has its middleware', () => {
    assert.ok(routeTable.length > 80, `only ${routeTable.length} routes`);
    for (const { spec } of routeTable) {
      assert.ok((AUTH_KINDS as readonly string[]).includes(spec.auth), `${spec.operationId}: auth ${String(spec.auth)}`);
      assert.equal(authenticate(spec.auth, t.platform.deps) === null, spec.auth === 'none', `${spec.operationId}: ${spec.auth}`);
    }
  });

  test('every route that declares a credential refuses a request without it and with a wrong one', async () => {
    const checked = new Map<Auth, number>();
    for (const { spec } of routeTable) {
      for (const path of servedPaths(spec)) {
        const attempts = refusedAttempts(spec.auth);
        if (attempts.length === 0) continue;
        const concrete = spec.auth === 'webhook_secret' ? path.replace('/webhook/:environmentUuid/:providerConfigKey', webhookPath) : path;
        const url = concrete.replace(/:(\w+)(\{[^}]*\})?/g, 'x').replace(/\*/g, 'x');
        const method = spec.method === 'all' ? 'POST' : spec.method.toUpperCase();
        for (const [label, headers, query] of attempts) {
          const withBody = method !== 'GET' && method !== 'DELETE';
          const res = await fetch(`${t.url}${url}${query}`, {
            method,
            headers: { ...headers, ...(withBody && { 'content-type': 'application/json' }) },
            ...(withBody && { body: '{"id":"evt_1","type":"report.completed","data":{"object":{}}}' }),
          });
          const text = await res.text();
          const what = `${spec.operationId} ${method} ${url}${query} with ${label}: ${res.status} ${text.slice(0, 200)}`;
          if (spec.refuse) {
            // Its refusal is the page that reports to the opener, naming the auth error.
            assert.equal(res.status, 400, what);
            assert.match(text, /missing_auth_header|malformed_auth_header|invalid_connect_session_token_format|unknown_connect_session_token/, what);
          } else {
            assert.equal(res.status, 401, what);
            assert.match((JSON.parse(text) as Json).error.code as string, /auth|secret_key|unknown_account|session|signature/, what);
          }
        }
        checked.set(spec.auth, (checked.get(spec.auth) ?? 0) + 1);
      }
    }
    assert.deepEqual([...checked.keys()].sort(), AUTH_KINDS.filter((k) => k !== 'none').sort(), 'every kind was tried');
  });
});
