/**
 * @module Self-tests for the GitHub, HubSpot, Notion, Linear and Slack fakes the Nango-layout runs
 * use: each pages, fails and throttles as its provider's docs say.
 * Run: node --import tsx --test test/fakes/api-fakes.test.ts
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { parseOperation } from './graphql.js';
import { startGitHubFake, startHubSpotFake, startLinearFake, startNotionFake, startSlackFake, type FakeServer } from './index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function started<F extends FakeServer<unknown>>(t: TestContext, fake: Promise<F>): Promise<F> {
  const server = await fake;
  t.after(() => server.close());
  return server;
}

async function call(url: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; headers: Headers; body: Json }> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) headers.set('content-type', 'application/json');
  const res = await fetch(url, { ...rest, headers, body: json === undefined ? rest.body : JSON.stringify(json) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Json) : {} };
}

test('github: Link-header pages, issues create/get/update, 401/404/422, 429 with retry-after', async (t) => {
  const gh = await started(t, startGitHubFake({ token: 'gho_x', repos: ['a', 'b', 'c', 'd', 'e'] }));
  const auth = { authorization: 'Bearer gho_x' };
  assert.equal((await call(`${gh.url}/user`, { headers: { authorization: 'token nope' } })).status, 401);
  const first = await call(`${gh.url}/user/repos?per_page=2&sort=full_name&direction=asc`, { headers: auth });
  assert.deepEqual(
    first.body.map((r: Json) => r.name),
    ['a', 'b'],
  );
  const link = first.headers.get('link')!;
  const next = /<([^>]+)>; rel="next"/.exec(link)![1]!;
  assert.match(link, /[?&]page=3>; rel="last"/);
  const last = await call(`${gh.url}/user/repos?per_page=2&page=3&sort=full_name&direction=asc`, { headers: auth });
  assert.deepEqual(
    last.body.map((r: Json) => r.name),
    ['e'],
  );
  assert.doesNotMatch(last.headers.get('link')!, /rel="next"/);
  assert.equal((await call(next, { headers: auth })).body[0].name, 'c');

  const missing = await call(`${gh.url}/repos/octocat/a/issues`, { method: 'POST', headers: auth, json: { body: 'no title' } });
  assert.equal(missing.status, 422);
  assert.deepEqual(missing.body.errors, [{ resource: 'Issue', code: 'missing_field', field: 'title' }]);
  const created = await call(`${gh.url}/repos/octocat/a/issues`, { method: 'POST', headers: auth, json: { title: 'Bug', labels: ['bug', 'new'] } });
  assert.equal(created.status, 201);
  assert.equal(created.body.number, 1);
  assert.deepEqual(
    created.body.labels.map((l: Json) => l.name),
    ['bug', 'new'],
  );
  const closed = await call(`${gh.url}/repos/octocat/a/issues/1`, { method: 'PATCH', headers: auth, json: { state: 'closed' } });
  assert.equal(closed.body.state, 'closed');
  assert.equal((await call(`${gh.url}/repos/octocat/a/issues?state=open`, { headers: auth })).body.length, 0);
  assert.equal((await call(`${gh.url}/repos/octocat/a/issues/2`, { headers: auth })).status, 404);

  gh.throttleNext(1, 2);
  const throttled = await call(`${gh.url}/user`, { headers: auth });
  assert.equal(throttled.status, 429);
  assert.equal(throttled.headers.get('retry-after'), '2');
  assert.equal((await call(`${gh.url}/user`, { headers: auth })).status, 200);
});

test('hubspot: after cursors, properties asked for, 409 on a duplicate email, empty 404, 429', async (t) => {
  const hs = await started(t, startHubSpotFake({ token: 'hs', contacts: [{ email: 'a@x.io', firstname: 'A', phone: '1' }] }));
  const auth = { authorization: 'Bearer hs' };
  const owners = await call(`${hs.url}/crm/v3/owners?limit=1`, { headers: auth });
  assert.equal(owners.body.results.length, 1);
  const after = owners.body.paging.next.after as string;
  const rest = await call(`${hs.url}/crm/v3/owners?limit=1&after=${after}`, { headers: auth });
  assert.equal(rest.body.results.length, 1);
  assert.equal(rest.body.paging, undefined);
  assert.equal((await call(`${hs.url}/crm/v3/owners?limit=501`, { headers: auth })).body.category, 'VALIDATION_ERROR');

  const dup = await call(`${hs.url}/crm/v3/objects/contacts`, { method: 'POST', headers: auth, json: { properties: { email: 'A@x.io' } } });
  assert.equal(dup.status, 409);
  assert.equal(dup.body.category, 'CONFLICT');
  const bad = await call(`${hs.url}/crm/v3/objects/contacts`, { method: 'POST', headers: auth, json: { properties: { email: 'nope' } } });
  assert.equal(bad.status, 400);
  const made = await call(`${hs.url}/crm/v3/objects/contacts`, { method: 'POST', headers: auth, json: { properties: { email: 'b@x.io', lastname: 'B' } } });
  assert.equal(made.status, 201);
  const got = await call(`${hs.url}/crm/v3/objects/contacts/${made.body.id}?properties=email`, { headers: auth });
  assert.deepEqual(Object.keys(got.body.properties).sort(), ['createdate', 'email', 'hs_object_id', 'lastmodifieddate']);
  const gone = await fetch(`${hs.url}/crm/v3/objects/contacts/999999`, { headers: auth });
  assert.equal(gone.status, 404);
  assert.equal(await gone.text(), '');

  hs.throttleNext();
  const throttled = await call(`${hs.url}/crm/v3/owners`, { headers: auth });
  assert.equal(throttled.status, 429);
  assert.equal(throttled.body.errorType, 'RATE_LIMIT');
  assert.equal(throttled.headers.get('retry-after'), '1');
});

test('notion: Notion-Version required, start_cursor / has_more in the query and in the search body, pages, 404, 429', async (t) => {
  const notion = await started(t, startNotionFake({ token: 'secret_n' }));
  const h = { authorization: 'Bearer secret_n', 'notion-version': '2022-06-28' };
  assert.equal((await call(`${notion.url}/v1/users`, { headers: { authorization: 'Bearer secret_n' } })).body.code, 'missing_version');
  const first = await call(`${notion.url}/v1/users?page_size=3`, { headers: h });
  assert.equal(first.body.results.length, 3);
  assert.equal(first.body.has_more, true);
  const second = await call(`${notion.url}/v1/users?page_size=3&start_cursor=${first.body.next_cursor}`, { headers: h });
  assert.deepEqual([second.body.results.length, second.body.has_more, second.body.next_cursor], [1, false, null]);

  const roadmap = (await call(`${notion.url}/v1/search`, { method: 'POST', headers: h, json: { query: 'road', page_size: 10 } })).body.results[0];
  const child = await call(`${notion.url}/v1/pages`, {
    method: 'POST',
    headers: h,
    json: { parent: { page_id: roadmap.id.replace(/-/g, '') }, properties: { title: { title: [{ text: { content: 'Q3' } }] } } },
  });
  assert.equal(child.status, 200);
  assert.deepEqual(child.body.parent, { type: 'page_id', page_id: roadmap.id });
  assert.equal(child.body.properties.title.title[0].plain_text, 'Q3');
  const paged = await call(`${notion.url}/v1/search`, { method: 'POST', headers: h, json: { page_size: 1 } });
  assert.equal(paged.body.has_more, true);
  const rest = await call(`${notion.url}/v1/search`, { method: 'POST', headers: h, json: { page_size: 10, start_cursor: paged.body.next_cursor } });
  assert.equal(rest.body.results.length, 2);
  assert.equal((await call(`${notion.url}/v1/pages/00000000-0000-0000-0000-000000000000`, { headers: h })).body.code, 'object_not_found');
  assert.equal((await call(`${notion.url}/v1/pages`, { method: 'POST', headers: h, json: {} })).body.code, 'validation_error');

  notion.throttleNext();
  const throttled = await call(`${notion.url}/v1/users/me`, { headers: h });
  assert.deepEqual([throttled.status, throttled.body.code, throttled.headers.get('retry-after')], [429, 'rate_limited', '1']);
});

test('linear: only the selected fields, Relay pages with pageInfo, mutations, entity errors, 400 on unknown fields, 429', async (t) => {
  const linear = await started(t, startLinearFake({ token: 'lin_api_x', teams: ['Alpha', 'Beta', 'Gamma'] }));
  const gql = (query: string, variables: Json = {}, authorization = 'lin_api_x') =>
    call(`${linear.url}/graphql`, { method: 'POST', headers: { authorization }, json: { query, variables } });
  assert.equal((await gql('{ viewer { id } }', {}, 'Bearer nope')).body.errors[0].extensions.code, 'AUTHENTICATION_ERROR');
  const q = `query Teams($after: String, $first: Int = 2) { teams(first: $first, after: $after) { nodes { id name } pageInfo { hasNextPage endCursor } } }`;
  const first = await gql(q, {}, 'Bearer lin_api_x');
  assert.deepEqual(Object.keys(first.body.data.teams.nodes[0]), ['id', 'name']);
  assert.equal(first.body.data.teams.pageInfo.hasNextPage, true);
  const second = await gql(q, { after: first.body.data.teams.pageInfo.endCursor });
  assert.deepEqual(
    second.body.data.teams.nodes.map((n: Json) => n.name),
    ['Gamma'],
  );
  assert.equal(second.body.data.teams.pageInfo.hasNextPage, false);

  const teamId = first.body.data.teams.nodes[0].id;
  const created = await gql(
    `mutation Create($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id identifier title state { name } team { key } assignee { id } } } }`,
    { input: { teamId, title: 'Ship it' } },
  );
  assert.deepEqual(created.body.data.issueCreate.issue.state, { name: 'Todo' });
  assert.equal(created.body.data.issueCreate.issue.identifier, 'ALP-1');
  assert.equal(created.body.data.issueCreate.issue.assignee, null);
  const byIdentifier = await gql(`query { issue(id: "ALP-1") { title t: team { name } } }`);
  assert.deepEqual(byIdentifier.body.data.issue, { title: 'Ship it', t: { name: 'Alpha' } });
  const missing = await gql(`query($id: String!) { issue(id: $id) { id } }`, { id: 'nope' });
  assert.equal(missing.status, 200);
  assert.equal(missing.body.data, null);
  assert.equal(missing.body.errors[0].message, 'Entity not found: Issue');
  assert.equal((await gql(`{ issue(id: "ALP-1") { nonsense } }`)).status, 400);
  assert.equal((await gql(`{ issue(id: `)).status, 400);

  linear.throttleNext();
  const throttled = await gql('{ viewer { id } }');
  assert.deepEqual([throttled.status, throttled.body.errors[0].extensions.code, throttled.headers.get('retry-after')], [429, 'RATELIMITED', '1']);
});

test('graphql parser: aliases, inline fragments, literal objects and lists, defaults', () => {
  const op = parseOperation(
    'query Q($f: Int = 5, $l: [String!]) { a: teams(first: $f, filter: { name: { in: ["x", "y"] } }, labels: $l) { ... on TeamConnection { nodes { id } } } }',
    {},
  );
  assert.equal(op.kind, 'query');
  assert.deepEqual(op.fields[0]!.args, { first: 5, filter: { name: { in: ['x', 'y'] } } });
  assert.equal(op.fields[0]!.alias, 'a');
  assert.equal(op.fields[0]!.selections[0]!.name, 'nodes');
});

test('slack: users.info answers the member or user_not_found; throttled as Slack does', async (t) => {
  const slack = await started(t, startSlackFake({ token: 'xoxb-x' }));
  const h = { authorization: 'Bearer xoxb-x' };
  const alice = await call(`${slack.url}/api/users.info?user=U0ALICE001`, { headers: h });
  assert.equal(alice.body.user.name, 'alice');
  assert.deepEqual((await call(`${slack.url}/api/users.info?user=U404`, { headers: h })).body, { ok: false, error: 'user_not_found' });
  slack.throttleNext(1, 3);
  const throttled = await call(`${slack.url}/api/users.info?user=U0ALICE001`, { headers: h });
  assert.deepEqual([throttled.status, throttled.body.error, throttled.headers.get('retry-after')], [429, 'ratelimited', '3']);
});
