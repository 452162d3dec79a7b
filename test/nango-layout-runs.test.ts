/**
 * Nango's function library runs, not only compiles: our own zero-yaml project written the way
 * Nango's template library is (test/fixtures/nango-layout: GitHub, HubSpot, Slack, Notion and
 * Linear, one sync and two actions each) is compiled and deployed with the real `switchyard` CLI to
 * a running platform, each provider pointed at its fake through the integration's base URL
 * override, each connection imported with an OAuth token. Every sync fills its model (GET
 * /records), through its provider's own pagination and after a 429 with Retry-After, and every
 * action runs through POST /action/trigger, its writes visible at the fake; ActionErrors reach the
 * caller with their payload.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  startGitHubFake,
  startHubSpotFake,
  startLinearFake,
  startNotionFake,
  startSlackFake,
  type FakeServer,
  type GitHubFake,
  type HubSpotFake,
  type LinearFake,
  type NotionFake,
  type SlackFake,
} from './fakes/index.js';
import { startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { prepareNangoProject, ROOT, runCli } from './nango-cli.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'nango-layout');
const CONN = 'acme';
const TOKENS = { github: 'gho_layout', hubspot: 'pat-na1-layout', slack: 'xoxb-layout', notion: 'secret_layout', linear: 'lin_oauth_layout' } as const;
type Provider = keyof typeof TOKENS;

/**
 * The members of the `nango` object that functions of Nango's template library
 * (NangoHQ/integration-templates, integrations/ at 3196dff2) use, by how many files use them. The
 * fixture must use each one Switchyard supports; the rest are refused at compile time or exercised
 * in test/nango-runtime.test.ts (uncontrolledFetch, getIntegration, listRecords) and
 * lib/sandbox/prelude.test.ts (provider).
 */
const CORPUS_MEMBERS = [
  'ActionError',
  'get',
  'post',
  'batchSave',
  'trackDeletesStart',
  'trackDeletesEnd',
  'paginate',
  'saveCheckpoint',
  'getCheckpoint',
  'getMetadata',
  'delete',
  'getConnection',
  'put',
  'patch',
  'clearCheckpoint',
  'log',
  'batchDelete',
  'updateMetadata',
  'zodValidateInput',
  'getToken',
  'proxy',
  'connectionId',
];

describe("a Nango-layout project (Nango's template style) deploys and runs against five provider fakes", () => {
  let t: TestPlatform;
  let github: GitHubFake;
  let hubspot: HubSpotFake;
  let slack: SlackFake;
  let notion: NotionFake;
  let linear: LinearFake;
  let work = '';
  let proj = '';
  const cli = (...args: string[]) => runCli([...args, '--dir', proj]);
  const headers = (provider: Provider) => ({ 'connection-id': CONN, 'provider-config-key': provider });

  async function records(provider: Provider, model: string): Promise<Json[]> {
    const out: Json[] = [];
    let cursor = '';
    do {
      const res = await t.api(`/records?model=${model}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: headers(provider) });
      assert.equal(res.status, 200, await res.clone().text());
      const page = (await res.json()) as Json;
      out.push(...(page.records as Json[]));
      cursor = page.next_cursor ?? '';
    } while (cursor);
    return out;
  }
  const live = (rs: Json[]) => rs.filter((r) => !r._nango_metadata.deleted_at);

  async function filled(provider: Provider, model: string, count: number): Promise<Json[]> {
    return waitFor(`${provider}: ${count} live ${model} record(s)`, async () => {
      const rs = live(await records(provider, model));
      return rs.length === count ? rs : null;
    });
  }

  async function action(provider: Provider, name: string, input: Json): Promise<{ status: number; body: Json }> {
    const res = await t.api('/action/trigger', { method: 'POST', headers: headers(provider), json: { action_name: name, input } });
    return { status: res.status, body: (await res.json()) as Json };
  }

  /** An ActionError's answer: action_script_runtime_error with the function's payload (its status is the runtime's to decide). */
  function assertActionError(answer: { status: number; body: Json }, payload: Json): void {
    assert.ok(answer.status >= 400 && answer.status < 600, JSON.stringify(answer));
    assert.equal(answer.body.error.code, 'action_script_runtime_error', JSON.stringify(answer.body));
    assert.deepEqual(answer.body.error.payload, payload);
  }

  function saw429ThenSuccess(fake: FakeServer<unknown>, pathPrefix: string): void {
    const calls = fake.requests.filter((r) => r.path.startsWith(pathPrefix));
    const throttled = calls.findIndex((r) => r.status === 429);
    assert.ok(throttled >= 0, `a 429 on ${pathPrefix}`);
    assert.ok(
      calls.slice(throttled + 1).some((r) => r.status === 200),
      `a later success on ${pathPrefix}`,
    );
  }

  async function integrate(provider: Provider, baseUrl: string, metadata?: Json): Promise<void> {
    const created = await t.api('/integrations', {
      method: 'POST',
      json: {
        provider,
        unique_key: provider,
        credentials: { type: 'OAUTH2', client_id: `${provider}-client`, client_secret: `${provider}-secret`, scopes: 'read' },
        integration_config: { base_url: baseUrl },
      },
    });
    assert.equal(created.status, 200, await created.clone().text());
    const credentials = { type: 'OAUTH2', access_token: TOKENS[provider], expires_at: new Date(Date.now() + 24 * 3600_000).toISOString() };
    const conn = await t.api('/connections', { method: 'POST', json: { provider_config_key: provider, connection_id: CONN, credentials } });
    assert.equal(conn.status, 201, await conn.clone().text());
    if (metadata) {
      const set = await t.api('/connections/metadata', { method: 'POST', json: { connection_id: CONN, provider_config_key: provider, metadata } });
      assert.ok(set.ok, await set.clone().text());
    }
  }

  before(async () => {
    t = await startTestPlatform();
    github = await startGitHubFake({ token: TOKENS.github, repos: ['hello-world', 'spoon-knife'] });
    hubspot = await startHubSpotFake({
      token: TOKENS.hubspot,
      contacts: ['ada', 'alan', 'grace', 'edsger', 'barbara'].map((n) => ({
        email: `${n}@example.com`,
        firstname: n[0]!.toUpperCase() + n.slice(1),
        lastname: 'Test',
      })),
    });
    slack = await startSlackFake({ token: TOKENS.slack });
    notion = await startNotionFake({ token: TOKENS.notion, pages: ['Roadmap', 'Meeting notes', 'Hiring', 'Runbook', 'Glossary'] });
    linear = await startLinearFake({ token: TOKENS.linear, teams: ['Engineering', 'Design', 'Marketing', 'Support', 'Sales'] });

    // Five issues over two repositories, one of them closed; the sync pages two at a time.
    const seeded = [
      ['hello-world', 'First bug'],
      ['hello-world', 'Second bug'],
      ['hello-world', 'Third bug'],
      ['spoon-knife', 'Docs typo'],
      ['spoon-knife', 'Old request'],
    ];
    for (const [repo, title] of seeded) {
      const res = await fetch(`${github.url}/repos/octocat/${repo}/issues`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.github}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title }),
      });
      assert.equal(res.status, 201);
    }
    github.state.issues.get('octocat/spoon-knife')![1]!.state = 'closed';
    // One archived contact: the sync removes it from the cache.
    hubspot.state.contacts[4]!.archived = true;

    const roadmap = notion.state.pages.find((p) => p.url.includes('Roadmap'))!;
    await integrate('github', github.url, { repos: ['octocat/hello-world', 'octocat/spoon-knife'] });
    await integrate('hubspot', hubspot.url);
    await integrate('slack', `${slack.url}/api`);
    await integrate('notion', notion.url, { defaultParentPageId: roadmap.id });
    await integrate('linear', linear.url);
    ({ work, proj } = await prepareNangoProject(FIXTURE, t));
  });
  after(async () => {
    await t?.stop();
    for (const fake of [github, hubspot, slack, notion, linear]) await fake?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('the project uses every nango member the template library uses that Switchyard supports', async () => {
    const files = (await readdir(FIXTURE, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const source = (await Promise.all(files.map((f) => readFile(path.join(FIXTURE, f), 'utf8')))).join('\n');
    const unused = CORPUS_MEMBERS.filter((m) => !new RegExp(`\\bnango\\.${m}\\b`).test(source));
    assert.deepEqual(unused, []);
  });

  test('compile type-checks and bundles the fifteen functions', async () => {
    const r = await cli('compile');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /compiled 15 of 15 functions/);
  });

  test('deploy --activate; each sync fills its model through its provider, waiting out a 429 with Retry-After', async () => {
    // The first request of GitHub's and HubSpot's syncs is throttled: the run waits and goes on.
    github.throttleNext(1, 1);
    hubspot.throttleNext(1, 1);
    const r = await cli('deploy', 'dev', '--activate');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Deployed version 1 to dev: 15 new/);

    const issues = await filled('github', 'GithubIssue', 5);
    assert.deepEqual(issues.map((i) => i.id).sort(), [
      'octocat/hello-world#1',
      'octocat/hello-world#2',
      'octocat/hello-world#3',
      'octocat/spoon-knife#1',
      'octocat/spoon-knife#2',
    ]);
    assert.equal(issues.find((i) => i.id === 'octocat/spoon-knife#2')!.state, 'closed');
    // Link-header pages of two: hello-world has two pages, the second reached through rel="next".
    const helloPages = github.requests.filter((q) => q.path === '/repos/octocat/hello-world/issues' && q.status === 200);
    assert.deepEqual(
      helloPages.map((q) => q.query.page ?? '1'),
      ['1', '2'],
    );
    saw429ThenSuccess(github, '/repos/');

    const contacts = await filled('hubspot', 'HubspotContact', 4);
    assert.deepEqual(contacts.map((c) => c.name).sort(), ['Ada Test', 'Alan Test', 'Edsger Test', 'Grace Test']);
    assert.deepEqual(
      hubspot.requests.filter((q) => q.path === '/crm/v3/objects/contacts' && q.status === 200 && !q.query.archived).map((q) => q.query.after ?? ''),
      ['', '2'],
    );
    saw429ThenSuccess(hubspot, '/crm/');

    // Slack's defaults: alice, bob and carol stay; dave (deleted) and the bot are not kept.
    const users = await filled('slack', 'SlackUser', 3);
    assert.deepEqual(users.map((u) => u.name).sort(), ['alice', 'bob', 'carol']);
    assert.ok(slack.requests.filter((q) => q.path === '/api/users.list').length >= 2, 'users.list paged with next_cursor');
    assert.deepEqual(((await (await t.api(`/connections/${CONN}?provider_config_key=slack`)).json()) as Json).metadata, { teamId: 'T0FAKETEAM' });

    const pages = await filled('notion', 'NotionPage', 5);
    assert.ok(pages.every((p) => p.parentPageId === null));
    const searches = notion.requests.filter((q) => q.path === '/v1/search').map((q) => JSON.parse(q.body) as Json);
    assert.deepEqual(
      searches.map((b) => Boolean(b.start_cursor)),
      [false, true, true],
    );

    const teams = await filled('linear', 'LinearTeam', 5);
    assert.deepEqual(teams.map((x) => x.key).sort(), ['DES', 'ENG', 'MAR', 'SAL', 'SUP']);
    assert.equal(linear.requests.filter((q) => q.path === '/graphql').length, 3);
  });

  test('GitHub: create-issue and set-issue-labels; a 404 becomes an ActionError', async () => {
    const created = await action('github', 'create-issue', { repo: 'octocat/hello-world', title: 'From a function', labels: ['bug'] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.number, 4);
    assert.equal(created.body.state, 'open');
    const labelled = await action('github', 'set-issue-labels', { repo: 'octocat/hello-world', number: 4, labels: ['triage', 'bug'] });
    assert.equal(labelled.status, 200, JSON.stringify(labelled.body));
    assert.deepEqual(labelled.body, { labels: ['triage', 'bug'], setBy: `github/${CONN}` });
    assert.deepEqual(
      github.state.issues.get('octocat/hello-world')![3]!.labels.map((l) => l.name),
      ['triage', 'bug'],
    );
    assertActionError(await action('github', 'create-issue', { repo: 'octocat/nope', title: 'x' }), {
      type: 'repository_not_found',
      message: 'No repository octocat/nope',
      repo: 'octocat/nope',
    });
  });

  test('HubSpot: create-contact and delete-contact; the next sync run removes the archived contact', async () => {
    const created = await action('hubspot', 'create-contact', { email: 'margaret@example.com', firstname: 'Margaret', lastname: 'Hamilton' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.email, 'margaret@example.com');
    assertActionError(await action('hubspot', 'create-contact', { email: 'ADA@example.com' }), {
      type: 'contact_exists',
      message: `Contact already exists. Existing ID: ${hubspot.state.contacts[0]!.id}`,
      existingId: hubspot.state.contacts[0]!.id,
    });
    const ada = hubspot.state.contacts[0]!.id;
    const deleted = await action('hubspot', 'delete-contact', { id: ada });
    assert.deepEqual(deleted.body, { id: ada, email: 'ada@example.com', archived: true });
    assertActionError(await action('hubspot', 'delete-contact', { id: ada }), { type: 'contact_not_found', message: `No contact ${ada}`, id: ada });
    assert.equal(
      (await t.api('/sync/trigger', { method: 'POST', json: { provider_config_key: 'hubspot', connection_id: CONN, syncs: ['contacts'] } })).status,
      200,
    );
    const names = await waitFor('the second contacts run', async () => {
      const ns = live(await records('hubspot', 'HubspotContact')).map((c) => c.name as string);
      return ns.includes('Margaret Hamilton') && !ns.includes('Ada Test') ? ns : null;
    });
    assert.deepEqual(names.sort(), ['Alan Test', 'Edsger Test', 'Grace Test', 'Margaret Hamilton']);
  });

  test('Slack: post-message and get-user; ok:false becomes an ActionError', async () => {
    const posted = await action('slack', 'post-message', { channel: '#general', text: 'hello from a function' });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.equal(posted.body.channel, 'C0GENERAL1');
    assert.equal(slack.state.messages.at(-1)!.text, 'hello from a function');
    assertActionError(await action('slack', 'post-message', { channel: '#secret', text: 'x' }), {
      type: 'slack_error',
      message: 'not_in_channel',
      channel: '#secret',
    });
    const alice = await action('slack', 'get-user', { id: 'U0ALICE001' });
    assert.equal(alice.status, 200, JSON.stringify(alice.body));
    assert.equal(alice.body.name, 'alice');
    // Built with URLSearchParams iteration and Buffer in the sandbox, as Node builds them.
    assert.equal(alice.body.handle, Buffer.from('U0ALICE001:alice').toString('base64'));
    assert.deepEqual(slack.requests.filter((q) => q.path === '/api/users.info').at(-1)!.query, { include_locale: 'true', user: 'U0ALICE001' });
    assertActionError(await action('slack', 'get-user', { id: 'U0NOBODY00' }), {
      type: 'user_not_found',
      message: 'Slack answered user_not_found',
      id: 'U0NOBODY00',
    });
  });

  test('Notion: create-page under the metadata parent and archive-page; a missing page becomes an ActionError', async () => {
    const roadmap = notion.state.pages.find((p) => p.url.includes('Roadmap'))!;
    const created = await action('notion', 'create-page', { title: 'Q3 plan', paragraphs: ['First'] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.parentPageId, roadmap.id);
    assert.equal(notion.state.children.get(created.body.id)!.length, 1);
    const archived = await action('notion', 'archive-page', { id: created.body.id });
    assert.deepEqual(archived.body, { id: created.body.id, inTrash: true });
    const missing = '00000000-0000-0000-0000-000000000000';
    assertActionError(await action('notion', 'archive-page', { id: missing }), {
      type: 'object_not_found',
      message: `Could not find page with ID: ${missing}. Make sure the relevant pages and databases are shared with your integration.`,
      id: missing,
    });
  });

  test('Linear: create-issue and get-issue through GraphQL; Entity not found becomes an ActionError', async () => {
    const team = linear.state.teams.find((x) => x.key === 'ENG')!;
    const created = await action('linear', 'create-issue', { teamId: team.id, title: 'Wire the fake', priority: 2 });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual([created.body.identifier, created.body.state], ['ENG-1', 'Todo']);
    const got = await action('linear', 'get-issue', { id: 'ENG-1' });
    assert.deepEqual(got.body, { id: created.body.id, identifier: 'ENG-1', title: 'Wire the fake', priority: 2, team: 'ENG', assignee: null });
    assertActionError(await action('linear', 'get-issue', { id: 'ENG-99' }), { type: 'not_found', message: 'Entity not found: Issue', id: 'ENG-99' });
  });
});
