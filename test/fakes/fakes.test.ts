/**
 * @module Self-tests for the fake third-party servers.
 * Run: node --import tsx --test test/fakes/fakes.test.ts
 */
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  FOLDER_MIME,
  GOOGLE_DOC_MIME,
  deterministicBytes,
  deterministicSha256,
  pkceChallenge,
  startCheckrFake,
  startGenericApiFake,
  startGoogleDriveFake,
  startMetabaseFake,
  startOAuthProviderFake,
  startSlackFake,
} from './index.js';
import type { FakeServer } from './index.js';

// ---------------------------------------------------------------------------------------------
// Helpers

interface Answer<T> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

async function call<T = Record<string, unknown>>(url: string, init: RequestInit = {}): Promise<Answer<T>> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: parseJson(text) as T };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function jsonInit(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

function formInit(body: Record<string, string>, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body).toString(),
  };
}

function basic(user: string, pass = ''): string {
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

async function started<F extends FakeServer<unknown>>(t: TestContext, fake: Promise<F>): Promise<F> {
  const server = await fake;
  t.after(() => server.close());
  return server;
}

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver answering with a fixed status. */
async function startReceiver(t: TestContext, status = 200): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"status":"success"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/checkr`, received };
}

// ---------------------------------------------------------------------------------------------
// Generic

test('generic: page and cursor pagination, updated_after, CRUD', async (t) => {
  const fake = await started(t, startGenericApiFake());
  for (let i = 1; i <= 5; i++) fake.addItem({ name: `item ${i}`, updated_at: `2024-01-0${i}T00:00:00.000Z` });

  const p1 = await call<{ items: Array<{ id: string }>; next_page: number | null }>(`${fake.url}/items?page=1&per_page=2`);
  assert.deepEqual(
    p1.body.items.map((i) => i.id),
    ['1', '2'],
  );
  assert.equal(p1.body.next_page, 2);
  const p3 = await call<{ items: unknown[]; next_page: number | null }>(`${fake.url}/items?page=3&per_page=2`);
  assert.equal(p3.body.items.length, 1);
  assert.equal(p3.body.next_page, null);

  const ids: string[] = [];
  let cursor = '';
  for (;;) {
    const page = await call<{ items: Array<{ id: string }>; next_cursor: string | null }>(`${fake.url}/items?limit=2&cursor=${cursor}`);
    ids.push(...page.body.items.map((i) => i.id));
    if (!page.body.next_cursor) break;
    cursor = page.body.next_cursor;
  }
  assert.deepEqual(ids, ['1', '2', '3', '4', '5']);

  fake.updateItem('2', { name: 'renamed' });
  fake.deleteItem('5');
  const changed = await call<{ items: Array<{ id: string; name: string }> }>(`${fake.url}/items?updated_after=2024-01-03T12:00:00.000Z`);
  assert.deepEqual(
    changed.body.items.map((i) => i.id),
    ['2', '4'],
  );

  const created = await call<{ id: string; name: string }>(`${fake.url}/items`, jsonInit('POST', { name: 'new', extra: 1 }));
  assert.equal(created.status, 201);
  assert.equal(fake.state.items.at(-1)?.['extra'], 1);
  assert.equal((await call(`${fake.url}/items/${created.body.id}`, { method: 'DELETE' })).status, 204);
  assert.equal((await call(`${fake.url}/items/${created.body.id}`)).status, 404);
});

test('generic: optional auth, echo, echo-binary, requests log', async (t) => {
  const fake = await started(t, startGenericApiFake({ bearer: 'tok', apiKey: 'key' }));
  assert.equal((await call(`${fake.url}/items`)).status, 401);
  assert.equal((await call(`${fake.url}/items`, { headers: { authorization: 'Bearer tok' } })).status, 200);
  assert.equal((await call(`${fake.url}/items`, { headers: { 'x-api-key': 'key' } })).status, 200);

  const echo = await call<{ method: string; path: string; query: Record<string, string>; headers: Record<string, string>; body: string }>(
    `${fake.url}/echo?a=1`,
    jsonInit('PATCH', { hello: 'world' }, { 'x-api-key': 'key', 'x-custom': 'yes' }),
  );
  assert.equal(echo.body.method, 'PATCH');
  assert.equal(echo.body.path, '/echo');
  assert.deepEqual(echo.body.query, { a: '1' });
  assert.equal(echo.body.headers['x-custom'], 'yes');
  assert.equal(echo.body.body, '{"hello":"world"}');

  const binary = deterministicBytes(1000);
  const res = await fetch(`${fake.url}/echo-binary`, { method: 'POST', headers: { 'x-api-key': 'key' }, body: new Uint8Array(binary) });
  assert.equal(res.headers.get('content-type'), 'application/octet-stream');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(binary));

  const last = fake.requests.at(-1);
  assert.equal(last?.method, 'POST');
  assert.equal(last?.path, '/echo-binary');
  assert.equal(last?.status, 200);
  assert.equal(fake.requests[0]?.status, 401);
});

test('generic: failNext injects 429/503 bursts with headers and matching', async (t) => {
  const fake = await started(t, startGenericApiFake());
  fake.failNext({ status: 503, times: 2, match: (r) => r.path === '/items' });
  fake.failNext({ status: 429, headers: { 'retry-after': '2' }, body: '{"error":"slow down"}' });

  const echo = await call(`${fake.url}/echo`);
  assert.equal(echo.status, 429, 'unmatched spec applies to the first non-/items request');
  assert.equal(echo.headers.get('retry-after'), '2');
  assert.deepEqual(echo.body, { error: 'slow down' });
  assert.equal((await call(`${fake.url}/items`)).status, 503);
  assert.equal((await call(`${fake.url}/items`)).status, 503);
  assert.equal((await call(`${fake.url}/items`)).status, 200);
  assert.deepEqual(
    fake.requests.map((r) => r.status),
    [429, 503, 503, 200],
  );
});

test('generic: /files/big streams deterministic bytes, /slow waits', async (t) => {
  const fake = await started(t, startGenericApiFake());
  const bytes = 50 * 1024 * 1024;
  const res = await fetch(`${fake.url}/files/big?bytes=${bytes}`);
  assert.equal(res.headers.get('content-type'), 'application/octet-stream');
  assert.equal(res.headers.get('content-length'), String(bytes));
  const hash = createHash('sha256');
  let received = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    received += chunk.length;
  }
  assert.equal(received, bytes);
  assert.equal(hash.digest('hex'), deterministicSha256(bytes));

  const before = Date.now();
  const slow = await call<{ waited_ms: number }>(`${fake.url}/slow?ms=150`);
  assert.ok(Date.now() - before >= 140);
  assert.equal(slow.body.waited_ms, 150);

  // A pending /slow must not keep close() waiting.
  const pending = fetch(`${fake.url}/slow?ms=60000`).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 50));
  await fake.close();
  await pending;
});

// ---------------------------------------------------------------------------------------------
// Metabase

interface MbUser {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  common_name: string;
  is_active: boolean;
  is_superuser: boolean;
  date_joined: string;
  updated_at: string;
  group_ids?: number[];
  user_group_memberships?: Array<{ id: number }>;
  locale: string | null;
}
interface MbList {
  data: MbUser[];
  total: number;
  limit: number | null;
  offset: number | null;
}

const MB_KEY = 'mb_dGVzdGtleQ==';

async function metabase(t: TestContext) {
  const fake = await started(
    t,
    startMetabaseFake({
      apiKey: MB_KEY,
      users: [
        { email: 'zoe@example.com', first_name: 'Zoe', last_name: 'Adams' },
        { email: 'adam@example.com', first_name: 'adam', last_name: 'Young', is_superuser: true },
        { email: 'gone@example.com', first_name: 'Gone', last_name: 'User', is_active: false },
        { email: 'bob@example.com', first_name: 'Bob', last_name: 'Brown' },
      ],
    }),
  );
  const headers = { 'x-api-key': MB_KEY };
  const get = <T = MbUser>(path: string) => call<T>(`${fake.url}${path}`, { headers });
  const send = <T = MbUser>(method: string, path: string, body?: unknown) =>
    call<T>(`${fake.url}${path}`, body === undefined ? { method, headers } : jsonInit(method, body, headers));
  return { fake, get, send };
}

test('metabase: auth, envelope, paging defaults, filters, ordering', async (t) => {
  const { fake, get } = await metabase(t);
  const unauth = await call(`${fake.url}/api/user`);
  assert.equal(unauth.status, 401);
  assert.equal(unauth.text, 'Unauthenticated');
  assert.equal((await call(`${fake.url}/api/user`, { headers: { 'x-api-key': 'wrong' } })).status, 401);

  const all = await get<MbList>('/api/user');
  assert.equal(all.headers.get('content-type'), 'application/json;charset=utf-8');
  assert.deepEqual(
    all.body.data.map((u) => u.first_name),
    ['adam', 'Bob', 'Zoe'],
    'active only, by lower(first_name)',
  );
  assert.equal(all.body.total, 3);
  assert.equal(all.body.limit, null);
  assert.equal(all.body.offset, null);
  assert.match(all.body.data[0]?.date_joined ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.deepEqual(all.body.data[0]?.group_ids, [1, 2]);

  const limited = await get<MbList>('/api/user?limit=2');
  assert.deepEqual([limited.body.limit, limited.body.offset, limited.body.data.length, limited.body.total], [2, 0, 2, 3]);
  const offset = await get<MbList>('/api/user?offset=2');
  assert.deepEqual([offset.body.limit, offset.body.offset, offset.body.data.length], [50, 2, 1]);
  assert.equal((await get<MbList>('/api/user?limit=abc')).body.limit, null, 'non-numeric is absent');

  assert.deepEqual(
    (await get<MbList>('/api/user?status=deactivated')).body.data.map((u) => u.email),
    ['gone@example.com'],
  );
  assert.equal((await get<MbList>('/api/user?status=all')).body.total, 4);
  assert.equal((await get<MbList>('/api/user?include_deactivated=true')).body.total, 4);
  assert.equal((await get<MbList>('/api/user?status=active&include_deactivated=true')).body.total, 3);
  assert.equal((await get<MbList>('/api/user?status=bogus')).body.total, 3);
  assert.deepEqual(
    (await get<MbList>('/api/user?query=BROWN')).body.data.map((u) => u.first_name),
    ['Bob'],
  );

  const current = await get('/api/user/current');
  assert.equal(current.status, 200);
  assert.ok(!all.body.data.some((u) => u.id === current.body.id), 'API-key user is not listed');
  assert.deepEqual((await get('/api/database')).body, { data: [], total: 0 });
});

test('metabase: get by id, create, duplicate and invalid email', async (t) => {
  const { fake, get, send } = await metabase(t);
  const gone = fake.state.users.find((u) => u.email === 'gone@example.com');
  const inactive = await get(`/api/user/${gone?.id}`);
  assert.equal(inactive.status, 200);
  assert.equal(inactive.body.is_active, false);
  assert.deepEqual(inactive.body.user_group_memberships, [{ id: 1 }]);

  const missing = await get('/api/user/9999');
  assert.equal(missing.status, 404);
  assert.equal(missing.text, 'Not found.');
  const bad = await get<{ errors: Record<string, string> }>('/api/user/abc');
  assert.equal(bad.status, 400);
  assert.ok(bad.body.errors['id']);

  const created = await send('POST', '/api/user', { first_name: 'New', last_name: 'Person', email: 'New@Example.com' });
  assert.equal(created.status, 200);
  assert.equal(created.body.email, 'new@example.com');
  assert.equal(created.body.common_name, 'New Person');
  assert.deepEqual(created.body.user_group_memberships, [{ id: 1 }]);

  const dup = await send<{ errors: Record<string, string> }>('POST', '/api/user', { email: 'ZOE@example.com' });
  assert.equal(dup.status, 400);
  assert.deepEqual(dup.body, { errors: { email: 'Email address already in use.' } });
  const dupInactive = await send('POST', '/api/user', { email: 'gone@example.com' });
  assert.equal(dupInactive.status, 400, 'deactivated users still own their email');

  const invalid = await send<{ errors: Record<string, string>; 'specific-errors': Record<string, string[]> }>('POST', '/api/user', {
    email: 'not-an-email',
  });
  assert.equal(invalid.status, 400);
  assert.equal(invalid.body.errors['email'], 'value must be a valid email address.');
  assert.ok(invalid.body['specific-errors']['email']);
  assert.equal((await send('POST', '/api/user', { first_name: 'x' })).status, 400, 'email is required');
});

test('metabase: update, deactivate, reactivate state machine', async (t) => {
  const { fake, send } = await metabase(t);
  const idOf = (email: string) => fake.state.users.find((u) => u.email === email)?.id ?? 0;
  const zoe = idOf('zoe@example.com');
  const gone = idOf('gone@example.com');

  const updated = await send('PUT', `/api/user/${zoe}`, {
    email: null,
    first_name: 'Zoé',
    last_name: null,
    locale: 'fr',
    is_superuser: null,
    is_group_manager: null,
  });
  assert.equal(updated.status, 200);
  assert.equal(updated.body.email, 'zoe@example.com', 'null email is ignored');
  assert.equal(updated.body.last_name, null, 'explicit null clears the name');
  assert.equal(updated.body.locale, 'fr');
  assert.equal(updated.body.is_superuser, false);

  const taken = await send<{ errors: Record<string, string> }>('PUT', `/api/user/${zoe}`, { email: 'BOB@example.com' });
  assert.equal(taken.status, 400);
  assert.equal(taken.body.errors['email'], 'Email address already associated to another user.');
  const inactiveUpdate = await send('PUT', `/api/user/${gone}`, { first_name: 'x' });
  assert.equal(inactiveUpdate.status, 404);
  assert.equal(inactiveUpdate.text, 'Not found.');

  assert.deepEqual((await send('DELETE', `/api/user/${zoe}`)).body, { success: true });
  assert.deepEqual((await send('DELETE', `/api/user/${zoe}`)).body, { success: true }, 'idempotent');
  const unknownDelete = await send<{ message: string }>('DELETE', '/api/user/9999');
  assert.equal(unknownDelete.status, 500);
  assert.ok(unknownDelete.body.message);

  const reactivated = await send('PUT', `/api/user/${zoe}/reactivate`);
  assert.equal(reactivated.status, 200);
  assert.equal(reactivated.body.is_active, true);
  assert.equal(reactivated.body.user_group_memberships, undefined);
  const again = await send<{ message: string; data: { message: string; 'status-code': number }; cause: string }>('PUT', `/api/user/${zoe}/reactivate`);
  assert.equal(again.status, 400);
  assert.equal(again.body.message, 'Not able to reactivate an active user');
  assert.deepEqual(again.body.data, { message: 'Not able to reactivate an active user', 'status-code': 400 });
  assert.equal((await send('PUT', '/api/user/9999/reactivate')).status, 404);
});

test('metabase: non-admin key gets 403', async (t) => {
  const fake = await started(t, startMetabaseFake({ apiKey: MB_KEY, keyIsAdmin: false }));
  const res = await call(`${fake.url}/api/user`, { headers: { 'x-api-key': MB_KEY } });
  assert.equal(res.status, 403);
  assert.equal(res.text, "You don't have permissions to do that.");
});

// ---------------------------------------------------------------------------------------------
// Checkr

interface CheckrList<T> {
  object: string;
  data: T[];
  count: number;
  next_href: string | null;
  previous_href: string | null;
}

const CHECKR = { clientId: 'checkr-client', clientSecret: 'checkr-secret' };

test('checkr: OAuth authorize page, code exchange (JSON and form), errors', async (t) => {
  const fake = await started(t, startCheckrFake({ ...CHECKR, accounts: [{ id: 'acct_main', name: 'Main Co' }] }));
  const redirectUri = 'http://127.0.0.1:1/callback';
  const page = await call(`${fake.url}/authorize/${CHECKR.clientId}?redirect_uri=${encodeURIComponent(redirectUri)}&state=xyz`);
  assert.equal(page.status, 200);
  const href = /id="authorize" href="([^"]+)"/.exec(page.text)?.[1]?.replace(/&amp;/g, '&');
  assert.ok(href);
  const approved = await call(`${fake.url}${href}`);
  assert.equal(approved.status, 302);
  const location = new URL(approved.headers.get('location') ?? '');
  assert.equal(location.origin + location.pathname, redirectUri);
  assert.equal(location.searchParams.get('state'), 'xyz');
  const code = location.searchParams.get('code') ?? '';

  const token = await call<{ access_token: string; checkr_account_id: string }>(
    `${fake.url}/oauth/tokens`,
    jsonInit('POST', { ...{ client_id: CHECKR.clientId, client_secret: CHECKR.clientSecret }, code }),
  );
  assert.equal(token.status, 200);
  assert.equal(token.body.checkr_account_id, 'acct_main');
  assert.deepEqual(Object.keys(token.body).sort(), ['access_token', 'checkr_account_id']);

  const reused = await call<{ errors: string[] }>(
    `${fake.url}/oauth/tokens`,
    jsonInit('POST', { client_id: CHECKR.clientId, client_secret: CHECKR.clientSecret, code }),
  );
  assert.equal(reused.status, 401);
  assert.ok(Array.isArray(reused.body.errors));

  const auto = await call(`${fake.url}/authorize/${CHECKR.clientId}?redirect_uri=${encodeURIComponent(redirectUri)}&state=s2&auto=1`);
  const code2 = new URL(auto.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const badSecret = await call(`${fake.url}/oauth/tokens`, formInit({ client_id: CHECKR.clientId, client_secret: 'nope', code: code2 }));
  assert.equal(badSecret.status, 401);
  const form = await call<{ access_token: string }>(
    `${fake.url}/oauth/tokens`,
    formInit({ grant_type: 'authorization_code', client_id: CHECKR.clientId, client_secret: CHECKR.clientSecret, code: code2, redirect_uri: redirectUri }),
  );
  assert.equal(form.status, 200);

  const account = await call<{ id: string; object: string }>(`${fake.url}/v1/account`, { headers: { authorization: basic(form.body.access_token) } });
  assert.equal(account.body.id, 'acct_main');
  const bearer = await call<{ error: string }>(`${fake.url}/v1/account`, { headers: { authorization: `Bearer ${form.body.access_token}` } });
  assert.equal(bearer.status, 401);
  assert.equal(typeof bearer.body.error, 'string');
});

test('checkr: list envelope, link pagination, nodes for hierarchy / non-hierarchy accounts', async (t) => {
  const packages = Array.from({ length: 30 }, (_, i) => ({ slug: `pkg_${i}`, name: `Package ${i}` }));
  const fake = await started(
    t,
    startCheckrFake({
      ...CHECKR,
      accounts: [
        { id: 'flat', accessToken: 'tok-flat', packages },
        { id: 'tree', accessToken: 'tok-tree', hierarchyEnabled: true },
      ],
    }),
  );
  const auth = { authorization: basic('tok-flat') };
  const first = await call<CheckrList<{ slug: string; object: string }>>(`${fake.url}/v1/packages`, { headers: auth });
  assert.equal(first.body.object, 'list');
  assert.equal(first.body.data.length, 25);
  assert.equal(first.body.count, 30);
  assert.equal(first.body.previous_href, null);
  assert.equal(first.body.next_href, `${fake.url}/v1/packages?page=2&per_page=25`);
  assert.equal(first.body.data[0]?.object, 'package');
  const second = await call<CheckrList<{ slug: string }>>(first.body.next_href ?? '', { headers: auth });
  assert.equal(second.body.data.length, 5);
  assert.equal(second.body.next_href, null);
  assert.ok(second.body.previous_href);
  assert.equal((await call<CheckrList<unknown>>(`${fake.url}/v1/packages?per_page=500`, { headers: auth })).body.data.length, 30);

  const flatNodes = await call<{ error: string }>(`${fake.url}/v1/nodes?page=1&per_page=1`, { headers: auth });
  assert.ok(flatNodes.status >= 400 && flatNodes.status < 500);
  assert.equal(typeof flatNodes.body.error, 'string');

  const nodes = await call<CheckrList<{ custom_id: string; packages: string[] }>>(`${fake.url}/v1/nodes?include=packages`, {
    headers: { authorization: basic('tok-tree') },
  });
  assert.equal(nodes.status, 200);
  const west = nodes.body.data.find((n) => n.custom_id === 'acme-west');
  assert.deepEqual(west?.packages.sort(), ['driver_pro', 'tasker_standard'], 'inherits ancestor packages');
});

test('checkr: candidates and invitations lifecycle and validation', async (t) => {
  const fake = await started(
    t,
    startCheckrFake({
      ...CHECKR,
      accounts: [
        { id: 'flat', accessToken: 'tf' },
        { id: 'tree', accessToken: 'tt', hierarchyEnabled: true },
      ],
    }),
  );
  const flat = { authorization: basic('tf') };
  const candidate = await call<{ id: string; object: string; ssn: string }>(
    `${fake.url}/v1/candidates`,
    jsonInit('POST', { email: 'cand@example.com', first_name: 'Cand', no_middle_name: true, ssn: '111-22-3333' }, flat),
  );
  assert.equal(candidate.status, 201);
  assert.equal(candidate.body.object, 'candidate');
  assert.equal(candidate.body.ssn, 'XXX-XX-3333');
  assert.match(candidate.body.id, /^[0-9a-f]{24}$/);

  const formCandidate = await call<{ work_locations: unknown[] }>(`${fake.url}/v1/candidates`, {
    method: 'POST',
    headers: { ...flat, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'email=f%40example.com&work_locations[][country]=US&work_locations[][state]=CA',
  });
  assert.equal(formCandidate.status, 201);
  assert.deepEqual(formCandidate.body.work_locations, [{ country: 'US', state: 'CA' }]);

  const missing = await call<{ error: string }>(`${fake.url}/v1/invitations`, jsonInit('POST', { candidate_id: candidate.body.id }, flat));
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /package/);

  const invitation = await call<{ id: string; object: string; status: string; package: string; uri: string; report_id: null; expires_at: string }>(
    `${fake.url}/v1/invitations`,
    jsonInit('POST', { candidate_id: candidate.body.id, package: 'tasker_standard', tags: ['a'] }, flat),
  );
  assert.equal(invitation.status, 201);
  assert.equal(invitation.body.object, 'invitation');
  assert.equal(invitation.body.status, 'pending');
  assert.equal(invitation.body.uri, `/v1/invitations/${invitation.body.id}`);

  assert.equal((await call(`${fake.url}/v1/invitations?status=bogus`, { headers: flat })).status, 400);
  const pending = await call<CheckrList<{ id: string }>>(`${fake.url}/v1/invitations?status=pending`, { headers: flat });
  assert.deepEqual(
    pending.body.data.map((i) => i.id),
    [invitation.body.id],
  );
  assert.equal((await call<CheckrList<unknown>>(`${fake.url}/v1/invitations?status=completed`, { headers: flat })).body.count, 0);
  assert.equal((await call(`${fake.url}/v1/invitations/${invitation.body.id}`, { headers: flat })).status, 200);
  assert.equal((await call(`${fake.url}/v1/candidates/${candidate.body.id}`, { headers: flat })).status, 200);

  const cancelled = await call<{ deleted_at: string | null }>(`${fake.url}/v1/invitations/${invitation.body.id}`, { method: 'DELETE', headers: flat });
  assert.equal(cancelled.status, 200);
  assert.ok(cancelled.body.deleted_at);

  // Hierarchy accounts need node and work_locations.
  const tree = { authorization: basic('tt') };
  const treeCandidate = await call<{ id: string }>(`${fake.url}/v1/candidates`, jsonInit('POST', { email: 'x@example.com' }, tree));
  const noNode = await call(`${fake.url}/v1/invitations`, jsonInit('POST', { candidate_id: treeCandidate.body.id, package: 'driver_pro' }, tree));
  assert.equal(noNode.status, 400);
  const noLocations = await call(
    `${fake.url}/v1/invitations`,
    jsonInit('POST', { candidate_id: treeCandidate.body.id, package: 'driver_pro', node: 'acme-west' }, tree),
  );
  assert.equal(noLocations.status, 400);
  const ok = await call(
    `${fake.url}/v1/invitations`,
    jsonInit('POST', { candidate_id: treeCandidate.body.id, package: 'driver_pro', node: 'acme-west', work_locations: [{ country: 'US', state: 'CA' }] }, tree),
  );
  assert.equal(ok.status, 201);
  // Accounts don't see each other's data.
  assert.equal((await call(`${fake.url}/v1/candidates/${candidate.body.id}`, { headers: tree })).status, 404);
});

test('checkr: rate limit headers, 429 with Retry-After, failNext', async (t) => {
  const fake = await started(t, startCheckrFake({ ...CHECKR, accounts: [{ accessToken: 'tok' }], rateLimit: { limit: 3, windowMs: 60_000 } }));
  const headers = { authorization: basic('tok') };
  const first = await call(`${fake.url}/v1/packages`, { headers });
  assert.equal(first.headers.get('x-ratelimit-limit'), '3');
  assert.equal(first.headers.get('x-ratelimit-remaining'), '2');
  const reset = Number(first.headers.get('x-ratelimit-reset'));
  assert.ok(reset > Date.now() / 1000 && reset < Date.now() / 1000 + 120, 'reset is future epoch seconds');
  await call(`${fake.url}/v1/packages`, { headers });
  await call(`${fake.url}/v1/packages`, { headers });
  const limited = await call<{ error: string }>(`${fake.url}/v1/packages`, { headers });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.equal(typeof limited.body.error, 'string');

  fake.state.rateLimit = { limit: 1000, windowMs: 60_000 };
  fake.failNext({ status: 503, body: '{"error":"Service Unavailable"}' });
  assert.equal((await call(`${fake.url}/v1/packages`, { headers })).status, 503);
  assert.equal((await call(`${fake.url}/v1/packages`, { headers })).status, 200);
});

test('checkr: completeInvitation sends signed webhooks; sendWebhook returns the answer', async (t) => {
  const fake = await started(t, startCheckrFake({ ...CHECKR, accounts: [{ id: 'acct_hooks', accessToken: 'tok' }] }));
  const receiver = await startReceiver(t);
  const headers = { authorization: basic('tok') };
  const candidate = await call<{ id: string }>(`${fake.url}/v1/candidates`, jsonInit('POST', { email: 'w@example.com' }, headers));
  const invitation = await call<{ id: string }>(
    `${fake.url}/v1/invitations`,
    jsonInit('POST', { candidate_id: candidate.body.id, package: 'driver_pro' }, headers),
  );

  const result = await fake.completeInvitation(invitation.body.id, { webhookUrl: receiver.url });
  assert.deepEqual(
    result.deliveries.map((d) => d.status),
    [200, 200],
  );
  assert.equal(receiver.received.length, 2);
  const types: string[] = [];
  for (const hook of receiver.received) {
    const expected = createHmac('sha256', CHECKR.clientSecret).update(hook.body).digest('hex');
    assert.equal(hook.headers['x-checkr-signature'], expected);
    assert.match(hook.headers['user-agent'] ?? '', /^Checkr-Webhook\//);
    const event = JSON.parse(hook.body) as { object: string; type: string; account_id: string; webhook_url: string; data: { object: { id: string } } };
    assert.equal(hook.body, JSON.stringify(event), 'compact JSON');
    assert.equal(event.object, 'event');
    assert.equal(event.account_id, 'acct_hooks');
    assert.equal(event.webhook_url, receiver.url);
    types.push(event.type);
  }
  assert.deepEqual(types, ['invitation.completed', 'report.completed']);

  const inv = await call<{ status: string; report_id: string; completed_at: string }>(`${fake.url}/v1/invitations/${invitation.body.id}`, { headers });
  assert.equal(inv.body.status, 'completed');
  assert.ok(inv.body.completed_at);
  const report = await call<{ status: string; result: string; package: string }>(`${fake.url}/v1/reports/${inv.body.report_id}`, { headers });
  assert.deepEqual([report.body.status, report.body.result, report.body.package], ['complete', 'clear', 'driver_pro']);

  const failing = await startReceiver(t, 404);
  const answer = await fake.sendWebhook(failing.url, 'candidate.created', { id: 'c1', object: 'candidate' }, 'acct_hooks');
  assert.deepEqual(answer, { status: 404, body: '{"status":"success"}' });
  assert.equal(fake.state.webhookDeliveries.length, 3);
});

// ---------------------------------------------------------------------------------------------
// OAuth provider

const OAUTH = { clientId: 'client-1', clientSecret: 'secret-1' };
const OAUTH_BODY = { client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret };
const REDIRECT = 'http://127.0.0.1:1/oauth/callback';

function authorizeUrl(base: string, path: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ client_id: OAUTH.clientId, redirect_uri: REDIRECT, response_type: 'code', state: 'st8', scope: 'read', ...extra });
  return `${base}${path}?${query}`;
}

function codeFrom(answer: Answer<unknown>): string {
  const location = new URL(answer.headers.get('location') ?? '');
  assert.equal(location.searchParams.get('state'), 'st8');
  return location.searchParams.get('code') ?? '';
}

test('oauth: consent page with #approve, PKCE S256, single-use codes, client auth', async (t) => {
  const fake = await started(t, startOAuthProviderFake(OAUTH));
  const verifier = 'v'.repeat(50);
  const challenge = pkceChallenge(verifier, 'S256');
  const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };

  const page = await call(authorizeUrl(fake.url, '/oauth/authorize', pkce));
  assert.equal(page.status, 200);
  assert.match(page.text, /id="approve"/);
  const action = /action="([^"]+)"/.exec(page.text)?.[1] ?? '';
  const requestId = /name="request" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  const approved = await call(`${fake.url}${action}?request=${requestId}&decision=approve`);
  assert.equal(approved.status, 302);
  const code = codeFrom(approved);

  const token = (body: Record<string, string>, headers: Record<string, string> = {}) =>
    call<{ access_token: string; refresh_token?: string; token_type: string; expires_in: number; scope: string; error?: string }>(
      `${fake.url}/oauth/token`,
      formInit(body, headers),
    );
  const noVerifier = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...OAUTH_BODY });
  assert.equal(noVerifier.status, 400);
  assert.equal(noVerifier.body.error, 'invalid_grant');

  const code2 = codeFrom(await call(authorizeUrl(fake.url, '/oauth/authorize', { ...pkce, auto: '1' })));
  const wrong = await token({ grant_type: 'authorization_code', code: code2, redirect_uri: REDIRECT, code_verifier: 'w'.repeat(50), ...OAUTH_BODY });
  assert.equal(wrong.body.error, 'invalid_grant');

  const code3 = codeFrom(await call(authorizeUrl(fake.url, '/oauth/authorize', { ...pkce, auto: '1' })));
  const badClient = await token(
    { grant_type: 'authorization_code', code: code3, redirect_uri: REDIRECT, code_verifier: verifier },
    { authorization: basic(OAUTH.clientId, 'wrong') },
  );
  assert.equal(badClient.status, 401);
  assert.equal(badClient.body.error, 'invalid_client');
  const good = await token(
    { grant_type: 'authorization_code', code: code3, redirect_uri: REDIRECT, code_verifier: verifier },
    { authorization: basic(OAUTH.clientId, OAUTH.clientSecret) },
  );
  assert.equal(good.status, 200);
  assert.equal(good.body.token_type, 'bearer');
  assert.equal(good.body.expires_in, 3600);
  assert.equal(good.body.scope, 'read');
  assert.ok(good.body.refresh_token);

  const reused = await token({ grant_type: 'authorization_code', code: code3, redirect_uri: REDIRECT, code_verifier: verifier, ...OAUTH_BODY });
  assert.equal(reused.body.error, 'invalid_grant', 'codes are single-use');

  const unknownClient = await call(authorizeUrl(fake.url, '/oauth/authorize', { client_id: 'nope' }));
  assert.equal(unknownClient.status, 400);
  const badType = await call(authorizeUrl(fake.url, '/oauth/authorize', { response_type: 'token' }));
  assert.equal(new URL(badType.headers.get('location') ?? '').searchParams.get('error'), 'unsupported_response_type');
});

test('oauth: refresh with rotation, refreshCount, userinfo and expiry', async (t) => {
  const fake = await started(t, startOAuthProviderFake({ ...OAUTH, rotateRefreshTokens: true, accessTokenTtlSeconds: 60 }));
  const code = codeFrom(await call(authorizeUrl(fake.url, '/oauth/authorize', { auto: '1' })));
  type Tok = { access_token: string; refresh_token: string; expires_in: number; error?: string };
  const first = await call<Tok>(`${fake.url}/oauth/token`, jsonInit('POST', { grant_type: 'authorization_code', code, ...OAUTH_BODY }));
  assert.equal(first.body.expires_in, 60);

  const me = await call<{ sub: string }>(`${fake.url}/userinfo`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
  assert.equal(me.status, 200);
  fake.expireToken(first.body.access_token);
  const expired = await call(`${fake.url}/userinfo`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
  assert.equal(expired.status, 401);

  const refreshed = await call<Tok>(
    `${fake.url}/oauth/token`,
    formInit({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, ...OAUTH_BODY }),
  );
  assert.equal(refreshed.status, 200);
  assert.notEqual(refreshed.body.refresh_token, first.body.refresh_token);
  assert.equal(fake.state.refreshCount, 1);
  assert.equal((await call(`${fake.url}/userinfo`, { headers: { authorization: `Bearer ${refreshed.body.access_token}` } })).status, 200);

  const old = await call<Tok>(`${fake.url}/oauth/token`, formInit({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, ...OAUTH_BODY }));
  assert.equal(old.status, 400);
  assert.equal(old.body.error, 'invalid_grant');
  assert.equal(fake.state.refreshCount, 1);
});

test('oauth: slack token shape and HTTP 200 errors', async (t) => {
  const fake = await started(t, startOAuthProviderFake({ ...OAUTH, tokenShape: 'slack' }));
  const code = codeFrom(await call(authorizeUrl(fake.url, '/oauth/authorize', { auto: '1' })));
  const ok = await call<{ ok: boolean; access_token: string; token_type: string; team: { id: string }; bot_user_id: string; authed_user: { id: string } }>(
    `${fake.url}/oauth/token`,
    formInit({ code, redirect_uri: REDIRECT, ...OAUTH_BODY }),
  );
  assert.equal(ok.body.ok, true);
  assert.match(ok.body.access_token, /^xoxb-/);
  assert.equal(ok.body.token_type, 'bot');
  assert.ok(ok.body.team.id && ok.body.bot_user_id && ok.body.authed_user.id);
  const bad = await call<{ ok: boolean; error: string }>(`${fake.url}/oauth/token`, formInit({ code: 'bogus', ...OAUTH_BODY }));
  assert.equal(bad.status, 200);
  assert.deepEqual(bad.body, { ok: false, error: 'invalid_code' });
});

// ---------------------------------------------------------------------------------------------
// Slack

interface SlackUsers {
  ok: boolean;
  members: Array<{ id: string; deleted: boolean; is_bot: boolean; profile: { email?: string } }>;
  response_metadata: { next_cursor: string };
}

test('slack: auth errors, users.list cursor pagination, auth.test', async (t) => {
  const fake = await started(t, startSlackFake({ token: 'xoxb-static' }));
  const headers = { authorization: 'Bearer xoxb-static' };
  const wrong = await call<{ ok: boolean; error: string }>(`${fake.url}/api/users.list`, { headers: { authorization: 'Bearer nope' } });
  assert.equal(wrong.status, 200);
  assert.deepEqual(wrong.body, { ok: false, error: 'invalid_auth' });
  assert.equal((await call<{ error: string }>(`${fake.url}/api/users.list`)).body.error, 'not_authed');

  const seen: SlackUsers['members'] = [];
  let cursor = '';
  let pages = 0;
  do {
    const page = await call<SlackUsers>(`${fake.url}/api/users.list?limit=2&cursor=${encodeURIComponent(cursor)}`, { headers });
    assert.equal(page.body.ok, true);
    seen.push(...page.body.members);
    cursor = page.body.response_metadata.next_cursor;
    pages++;
  } while (cursor !== '');
  assert.equal(pages, 3);
  assert.equal(seen.length, 5);
  assert.ok(seen.some((m) => m.deleted) && seen.some((m) => m.is_bot));
  assert.equal(seen.filter((m) => !m.deleted && !m.is_bot).length, 3);
  assert.equal((await call<{ error: string }>(`${fake.url}/api/users.list?cursor=garbage`, { headers })).body.error, 'invalid_cursor');

  const who = await call<{ ok: boolean; team_id: string; user_id: string }>(`${fake.url}/api/auth.test`, { method: 'POST', headers });
  assert.equal(who.body.ok, true);
  assert.ok(who.body.team_id && who.body.user_id);
});

test('slack: chat.postMessage success, errors, 429 via failNext', async (t) => {
  const fake = await started(t, startSlackFake({ token: 'xoxb-static' }));
  const headers = { authorization: 'Bearer xoxb-static', 'content-type': 'application/json; charset=utf-8' };
  const post = (body: unknown) =>
    call<{ ok: boolean; channel?: string; ts?: string; message?: { text: string }; error?: string }>(`${fake.url}/api/chat.postMessage`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });

  const ok = await post({ channel: 'C0GENERAL1', text: 'hello' });
  assert.equal(ok.body.ok, true);
  assert.equal(ok.body.channel, 'C0GENERAL1');
  assert.match(ok.body.ts ?? '', /^\d+\.\d{6}$/);
  assert.equal(ok.body.message?.text, 'hello');
  assert.equal(fake.state.messages[0]?.text, 'hello');
  assert.equal((await post({ channel: '#random', text: 'by name' })).body.channel, 'C0RANDOM01');

  for (const [body, error] of [
    [{ channel: 'C0NOPE', text: 'x' }, 'channel_not_found'],
    [{ channel: 'C0GENERAL1' }, 'no_text'],
    [{ channel: 'C0PRIVATE1', text: 'x' }, 'not_in_channel'],
  ] as const) {
    const res = await post(body);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: false, error });
  }

  fake.failNext({ status: 429, headers: { 'retry-after': '1' }, body: '{"ok":false,"error":"ratelimited"}' });
  const limited = await post({ channel: 'C0GENERAL1', text: 'x' });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '1');
  assert.equal((await post({ channel: 'C0GENERAL1', text: 'x' })).body.ok, true);
});

test('slack: OAuth v2 on the same origin issues a usable bot token', async (t) => {
  const fake = await started(t, startSlackFake({ token: 'xoxb-static', oauth: { clientId: 'sc', clientSecret: 'ss' } }));
  const query = new URLSearchParams({ client_id: 'sc', redirect_uri: REDIRECT, state: 'st8', scope: 'users:read,chat:write', auto: '1' });
  const code = codeFrom(await call(`${fake.url}/oauth/v2/authorize?${query}`));
  const access = await call<{ ok: boolean; access_token: string; team: { id: string } }>(
    `${fake.url}/api/oauth.v2.access`,
    formInit({ code, redirect_uri: REDIRECT }, { authorization: basic('sc', 'ss') }),
  );
  assert.equal(access.body.ok, true);
  assert.equal(access.body.team.id, fake.state.teamId);
  const who = await call<{ ok: boolean }>(`${fake.url}/api/auth.test`, { headers: { authorization: `Bearer ${access.body.access_token}` } });
  assert.equal(who.body.ok, true);
  fake.expireToken(access.body.access_token);
  assert.equal(
    (await call<{ error: string }>(`${fake.url}/api/auth.test`, { headers: { authorization: `Bearer ${access.body.access_token}` } })).body.error,
    'invalid_auth',
  );
});

// ---------------------------------------------------------------------------------------------
// Google Drive

interface FileList {
  kind?: string;
  nextPageToken?: string;
  files: Array<Record<string, unknown>>;
}

test('google drive: auth errors, q filtering, fields, pageSize and pageToken', async (t) => {
  const fake = await started(t, startGoogleDriveFake({ token: 'ya29.static' }));
  const projects = fake.addFolder('Projects');
  const sub = fake.addFolder('Sub', projects.id);
  for (let i = 0; i < 5; i++) fake.addFile({ name: `doc ${i}`, mimeType: GOOGLE_DOC_MIME, parentId: projects.id, content: `text ${i}` });
  fake.addFile({ name: 'trashed.pdf', mimeType: 'application/pdf', parentId: projects.id, content: 'x', trashed: true });
  fake.addFile({ name: 'deep.txt', mimeType: 'text/plain', parentId: sub.id, content: 'deep' });

  const unauth = await call<{ error: { code: number; status: string; errors: Array<{ reason: string }> } }>(`${fake.url}/drive/v3/files`, {
    headers: { authorization: 'Bearer wrong' },
  });
  assert.equal(unauth.status, 401);
  assert.equal(unauth.body.error.code, 401);
  assert.equal(unauth.body.error.status, 'UNAUTHENTICATED');
  assert.equal(unauth.body.error.errors[0]?.reason, 'authError');

  const headers = { authorization: 'Bearer ya29.static' };
  const q = encodeURIComponent(`('${projects.id}' in parents) and trashed = false`);
  const fields = encodeURIComponent('files(id, name, mimeType, webViewLink, parents, modifiedTime), nextPageToken');
  const names: string[] = [];
  let pageToken = '';
  let pages = 0;
  do {
    const page = await call<FileList>(`${fake.url}/drive/v3/files?q=${q}&fields=${fields}&pageSize=4${pageToken ? `&pageToken=${pageToken}` : ''}`, {
      headers,
    });
    assert.equal(page.status, 200);
    assert.equal(page.body.kind, undefined, 'only requested fields');
    assert.deepEqual(Object.keys(page.body.files[0] ?? {}).sort(), ['id', 'mimeType', 'modifiedTime', 'name', 'parents', 'webViewLink']);
    names.push(...page.body.files.map((f) => String(f['name'])));
    pageToken = page.body.nextPageToken ?? '';
    pages++;
  } while (pageToken);
  assert.equal(pages, 2);
  assert.deepEqual(names.sort(), ['Sub', 'doc 0', 'doc 1', 'doc 2', 'doc 3', 'doc 4']);

  const folders = await call<FileList>(`${fake.url}/drive/v3/files?q=${encodeURIComponent(`mimeType = '${FOLDER_MIME}'`)}`, { headers });
  assert.deepEqual(folders.body.files.map((f) => f['name']).sort(), ['Projects', 'Sub']);
  assert.deepEqual(Object.keys(folders.body.files[0] ?? {}).sort(), ['id', 'kind', 'mimeType', 'name'], 'default file fields');
  assert.equal(folders.body.kind, 'drive#fileList');
  assert.equal(folders.body.nextPageToken, undefined);
  const inRoot = await call<FileList>(`${fake.url}/drive/v3/files?q=${encodeURIComponent(`'root' in parents`)}`, { headers });
  assert.deepEqual(
    inRoot.body.files.map((f) => f['name']),
    ['Projects'],
  );

  assert.equal((await call(`${fake.url}/drive/v3/files?q=${encodeURIComponent('bogus ~ 1')}`, { headers })).status, 400);
  assert.equal((await call(`${fake.url}/drive/v3/files?fields=files(nope)`, { headers })).status, 400);
  assert.equal((await call(`${fake.url}/drive/v3/files?pageToken=garbage`, { headers })).status, 400);
  assert.equal((await call<FileList>(`${fake.url}/drive/v3/files?pageSize=5000`, { headers })).status, 200);

  fake.expireToken('ya29.static');
  assert.equal((await call(`${fake.url}/drive/v3/files`, { headers })).status, 401);
});

test('google drive: files.get, alt=media streaming, export', async (t) => {
  const fake = await started(t, startGoogleDriveFake({ token: 'tok' }));
  const headers = { authorization: 'Bearer tok' };
  const doc = fake.addFile({ name: 'Notes', mimeType: GOOGLE_DOC_MIME, content: 'Hello doc' });
  const big = fake.addFile({ name: 'big.bin', mimeType: 'application/zip', generatedSize: 5 * 1024 * 1024 });

  const meta = await call<Record<string, unknown>>(`${fake.url}/drive/v3/files/${doc.id}?fields=id,name,webViewLink&supportsAllDrives=true`, { headers });
  assert.deepEqual(meta.body, { id: doc.id, name: 'Notes', webViewLink: doc.webViewLink });
  const missing = await call<{ error: { code: number; errors: Array<{ reason: string }> } }>(`${fake.url}/drive/v3/files/nope`, { headers });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.errors[0]?.reason, 'notFound');

  const res = await fetch(`${fake.url}/drive/v3/files/${big.id}?alt=media`, { headers });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-length'), String(5 * 1024 * 1024));
  const body = Buffer.from(await res.arrayBuffer());
  assert.equal(createHash('sha256').update(body).digest('hex'), deterministicSha256(5 * 1024 * 1024));

  // fetch's text() strips a BOM, so look at the bytes: Docs plain-text exports start with one.
  const exported = await fetch(`${fake.url}/drive/v3/files/${doc.id}/export?mimeType=text/plain`, { headers });
  assert.equal(exported.status, 200);
  assert.equal(Buffer.from(await exported.arrayBuffer()).toString('utf8'), '\ufeffHello doc');
  assert.equal((await call(`${fake.url}/drive/v3/files/${doc.id}?alt=media`, { headers })).status, 403);
  assert.equal((await call(`${fake.url}/drive/v3/files/${big.id}/export?mimeType=text/plain`, { headers })).status, 403);
  assert.equal((await call(`${fake.url}/drive/v3/files/${doc.id}/export?mimeType=image/gif`, { headers })).status, 400);
});

test('google drive: OAuth with offline access issues refresh tokens usable against the API', async (t) => {
  const fake = await started(t, startGoogleDriveFake({ token: 'tok', oauth: { clientId: 'gid', clientSecret: 'gsecret' } }));
  const authorize = (extra: Record<string, string>) => {
    const query = new URLSearchParams({ client_id: 'gid', redirect_uri: REDIRECT, response_type: 'code', state: 'st8', auto: '1', ...extra });
    return call(`${fake.url}/o/oauth2/v2/auth?${query}`);
  };
  type Tok = { access_token: string; refresh_token?: string };
  const exchange = (code: string) =>
    call<Tok>(`${fake.url}/token`, formInit({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'gid', client_secret: 'gsecret' }));

  const online = await exchange(codeFrom(await authorize({})));
  assert.equal(online.body.refresh_token, undefined, 'no refresh token without access_type=offline');
  const offline = await exchange(codeFrom(await authorize({ access_type: 'offline', prompt: 'consent' })));
  assert.ok(offline.body.refresh_token);

  const refreshed = await call<Tok>(
    `${fake.url}/token`,
    formInit({ grant_type: 'refresh_token', refresh_token: offline.body.refresh_token ?? '', client_id: 'gid', client_secret: 'gsecret' }),
  );
  assert.equal(refreshed.status, 200);
  assert.equal(fake.state.oauth.refreshCount, 1);
  const list = await call(`${fake.url}/drive/v3/files`, { headers: { authorization: `Bearer ${refreshed.body.access_token}` } });
  assert.equal(list.status, 200);
});
