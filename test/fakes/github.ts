/**
 * @module GitHub REST API fake (https://docs.github.com/en/rest): the authenticated user's
 * repositories, a repository's issues (list, create, get, update, set labels) and labels. Pages as GitHub does: `page` / `per_page`
 * (default 30, at most 100) with a `Link` header naming `next`, `last`, `first` and `prev`.
 * Errors as GitHub's: 401 Bad credentials, 404 Not Found, 422 Validation Failed with `errors[]`,
 * and `throttleNext` answers the documented secondary-rate-limit 429 with `retry-after`.
 */
import {
  BodyParseError,
  Router,
  bearerToken,
  json,
  parseBody,
  parseIntParam,
  startFakeServer,
  type Body,
  type FakeServer,
  type Reply,
  type RequestContext,
} from './server.js';

export interface GitHubUser {
  login: string;
  id: number;
  node_id: string;
  avatar_url: string;
  gravatar_id: string;
  url: string;
  html_url: string;
  type: 'User' | 'Organization' | 'Bot';
  site_admin: boolean;
}

export interface GitHubRepo {
  id: number;
  node_id: string;
  name: string;
  full_name: string;
  owner: GitHubUser;
  private: boolean;
  visibility: 'public' | 'private';
  html_url: string;
  description: string | null;
  fork: boolean;
  url: string;
  created_at: string;
  updated_at: string;
  pushed_at: string;
  homepage: string | null;
  size: number;
  stargazers_count: number;
  watchers_count: number;
  language: string | null;
  forks_count: number;
  open_issues_count: number;
  default_branch: string;
  archived: boolean;
  disabled: boolean;
}

export interface GitHubLabel {
  id: number;
  node_id: string;
  url: string;
  name: string;
  description: string | null;
  color: string;
  default: boolean;
}

export interface GitHubIssue {
  id: number;
  node_id: string;
  url: string;
  repository_url: string;
  labels_url: string;
  comments_url: string;
  events_url: string;
  html_url: string;
  number: number;
  state: 'open' | 'closed';
  state_reason: 'completed' | 'not_planned' | 'reopened' | null;
  title: string;
  body: string | null;
  user: GitHubUser;
  labels: GitHubLabel[];
  assignee: GitHubUser | null;
  assignees: GitHubUser[];
  milestone: null;
  locked: boolean;
  active_lock_reason: string | null;
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  closed_by: GitHubUser | null;
  author_association: 'OWNER' | 'MEMBER' | 'CONTRIBUTOR' | 'NONE';
}

export interface GitHubState {
  viewer: GitHubUser;
  users: GitHubUser[];
  repos: GitHubRepo[];
  /** Issues and labels by repository full name. */
  issues: Map<string, GitHubIssue[]>;
  labels: Map<string, GitHubLabel[]>;
  nextId: number;
}

export interface GitHubFakeOptions {
  token: string;
  login?: string;
  /** Names of the viewer's repositories; default three. */
  repos?: string[];
}

export interface GitHubFake extends FakeServer<GitHubState> {
  addRepo(name: string, fields?: Partial<GitHubRepo>): GitHubRepo;
  removeRepo(fullName: string): void;
  /** The next `times` API requests answer GitHub's secondary rate limit: 429 with `retry-after: seconds`. */
  throttleNext(times?: number, seconds?: number): void;
}

const API = 'https://api.github.com';
const WEB = 'https://github.com';
const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;
const DOCS = 'https://docs.github.com/rest';

function ghError(status: number, message: string, extra: Body = {}): Reply {
  return json(status, { message, documentation_url: DOCS, status: String(status), ...extra });
}

export async function startGitHubFake(options: GitHubFakeOptions): Promise<GitHubFake> {
  const state: GitHubState = { viewer: undefined as unknown as GitHubUser, users: [], repos: [], issues: new Map(), labels: new Map(), nextId: 1000 };
  const makeUser = (login: string): GitHubUser => {
    const user: GitHubUser = {
      login,
      id: state.nextId++,
      node_id: nodeId('U', state.nextId),
      avatar_url: `https://avatars.githubusercontent.com/u/${state.nextId}?v=4`,
      gravatar_id: '',
      url: `${API}/users/${login}`,
      html_url: `${WEB}/${login}`,
      type: 'User',
      site_admin: false,
    };
    state.users.push(user);
    return user;
  };
  state.viewer = makeUser(options.login ?? 'octocat');

  const addRepo = (name: string, fields: Partial<GitHubRepo> = {}): GitHubRepo => {
    const id = state.nextId++;
    const now = new Date(Date.UTC(2026, 0, 1) + id * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const fullName = `${state.viewer.login}/${name}`;
    const repo: GitHubRepo = {
      id,
      node_id: nodeId('R', id),
      name,
      full_name: fullName,
      owner: state.viewer,
      private: false,
      visibility: 'public',
      html_url: `${WEB}/${fullName}`,
      description: `The ${name} repository`,
      fork: false,
      url: `${API}/repos/${fullName}`,
      created_at: now,
      updated_at: now,
      pushed_at: now,
      homepage: null,
      size: 100 + id,
      stargazers_count: 0,
      watchers_count: 0,
      language: 'TypeScript',
      forks_count: 0,
      open_issues_count: 0,
      default_branch: 'main',
      archived: false,
      disabled: false,
      ...fields,
    };
    state.repos.push(repo);
    state.issues.set(fullName, []);
    state.labels.set(
      fullName,
      ['bug', 'enhancement'].map((label) => ({
        id: state.nextId++,
        node_id: nodeId('LA', state.nextId),
        url: `${API}/repos/${fullName}/labels/${label}`,
        name: label,
        description: null,
        color: label === 'bug' ? 'd73a4a' : 'a2eeef',
        default: true,
      })),
    );
    return repo;
  };
  for (const name of options.repos ?? ['hello-world', 'spoon-knife', 'linguist']) addRepo(name);

  const router = new Router()
    .get('/user', () => json(200, state.viewer))
    .get('/user/repos', (ctx) => paged(ctx, sortRepos(state.repos, ctx.query)))
    .get('/repos/:owner/:repo', (ctx) => withRepo(state, ctx, (repo) => json(200, repo)))
    .get('/repos/:owner/:repo/issues', (ctx) => withRepo(state, ctx, (repo) => paged(ctx, filterIssues(state.issues.get(repo.full_name)!, ctx.query))))
    .post('/repos/:owner/:repo/issues', (ctx) => withRepo(state, ctx, (repo) => withBody(ctx, (body) => createIssue(state, repo, body))))
    .get('/repos/:owner/:repo/issues/:number', (ctx) => withIssue(state, ctx, (issue) => json(200, issue)))
    .patch('/repos/:owner/:repo/issues/:number', (ctx) => withIssue(state, ctx, (issue) => withBody(ctx, (body) => updateIssue(state, issue, body))))
    .put('/repos/:owner/:repo/issues/:number/labels', (ctx) =>
      withIssue(state, ctx, (issue) =>
        withBody(ctx, (body) => {
          if (!Array.isArray(body['labels'])) return invalid('Label', 'labels', 'missing_field');
          const repo = state.repos.find((r) => r.url === issue.repository_url)!;
          issue.labels = resolveLabels(state, repo, body['labels'])!;
          issue.updated_at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
          return json(200, issue.labels);
        }),
      ),
    )
    .get('/repos/:owner/:repo/labels', (ctx) => withRepo(state, ctx, (repo) => paged(ctx, state.labels.get(repo.full_name)!)));

  const fake = await startFakeServer(state, (ctx) => {
    const token = bearerToken(ctx.headers) ?? /^token\s+(.+)$/i.exec(ctx.headers['authorization'] ?? '')?.[1];
    if (token !== options.token) return ghError(401, 'Bad credentials');
    return router.dispatch(ctx) ?? ghError(404, 'Not Found');
  });
  return {
    ...fake,
    addRepo,
    removeRepo(fullName) {
      state.repos = state.repos.filter((r) => r.full_name !== fullName);
    },
    throttleNext(times = 1, seconds = 1) {
      fake.failNext({
        status: 429,
        times,
        headers: { 'retry-after': String(seconds), 'x-ratelimit-remaining': '4999' },
        body: JSON.stringify({ message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: DOCS }),
      });
    },
  };
}

function nodeId(prefix: string, id: number): string {
  return `${prefix}_kgDO${Buffer.from(String(id)).toString('base64url')}`;
}

/** GitHub's page / per_page, with the Link header its docs describe (absolute URLs on the request's origin). */
function paged<T>(ctx: RequestContext, all: T[]): Reply {
  const perPage = Math.min(Math.max(parseIntParam(ctx.query.get('per_page')) ?? DEFAULT_PER_PAGE, 1), MAX_PER_PAGE);
  const page = Math.max(parseIntParam(ctx.query.get('page')) ?? 1, 1);
  const last = Math.max(Math.ceil(all.length / perPage), 1);
  const link = (p: number, rel: string) => {
    const params = new URLSearchParams(ctx.query);
    params.set('page', String(p));
    params.set('per_page', String(perPage));
    return `<${ctx.origin}${ctx.path}?${params.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(page - 1, 'prev'));
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'));
  return json(200, all.slice((page - 1) * perPage, page * perPage), links.length ? { link: links.join(', ') } : {});
}

function sortRepos(repos: GitHubRepo[], query: URLSearchParams): GitHubRepo[] {
  const sort = query.get('sort') ?? 'full_name';
  const key = (r: GitHubRepo) => (sort === 'created' ? r.created_at : sort === 'updated' ? r.updated_at : sort === 'pushed' ? r.pushed_at : r.full_name);
  const direction = query.get('direction') ?? (sort === 'full_name' ? 'asc' : 'desc');
  const sorted = [...repos].sort((a, b) => key(a).localeCompare(key(b)));
  return direction === 'desc' ? sorted.reverse() : sorted;
}

function filterIssues(issues: GitHubIssue[], query: URLSearchParams): GitHubIssue[] {
  const wanted = query.get('state') ?? 'open';
  const since = query.get('since');
  return issues
    .filter((i) => wanted === 'all' || i.state === wanted)
    .filter((i) => !since || i.updated_at >= since)
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
}

function withRepo(state: GitHubState, ctx: RequestContext, fn: (repo: GitHubRepo) => Reply): Reply {
  const repo = state.repos.find((r) => r.full_name.toLowerCase() === `${ctx.params.owner}/${ctx.params.repo}`.toLowerCase());
  return repo ? fn(repo) : ghError(404, 'Not Found');
}

function withIssue(state: GitHubState, ctx: RequestContext, fn: (issue: GitHubIssue) => Reply): Reply {
  return withRepo(state, ctx, (repo) => {
    const issue = state.issues.get(repo.full_name)!.find((i) => String(i.number) === ctx.params.number);
    return issue ? fn(issue) : ghError(404, 'Not Found');
  });
}

function withBody(ctx: RequestContext, fn: (body: Body) => Reply): Reply {
  try {
    return fn(parseBody(ctx));
  } catch (err) {
    if (err instanceof BodyParseError) return ghError(400, 'Problems parsing JSON');
    throw err;
  }
}

function invalid(resource: string, field: string, code: 'missing_field' | 'invalid'): Reply {
  return ghError(422, 'Validation Failed', { errors: [{ resource, code, field }] });
}

function resolveLabels(state: GitHubState, repo: GitHubRepo, names: unknown): GitHubLabel[] | undefined {
  if (!Array.isArray(names)) return undefined;
  const known = state.labels.get(repo.full_name)!;
  return names.map((name) => {
    const label = known.find((l) => l.name === String(name));
    if (label) return label;
    // GitHub creates labels it does not know yet.
    const created: GitHubLabel = {
      id: state.nextId++,
      node_id: nodeId('LA', state.nextId),
      url: `${API}/repos/${repo.full_name}/labels/${encodeURIComponent(String(name))}`,
      name: String(name),
      description: null,
      color: 'ededed',
      default: false,
    };
    known.push(created);
    return created;
  });
}

function resolveAssignees(state: GitHubState, names: unknown): GitHubUser[] | 'invalid' | undefined {
  if (!Array.isArray(names)) return undefined;
  const users = names.map((n) => state.users.find((u) => u.login === String(n)));
  return users.every((u) => u) ? (users as GitHubUser[]) : 'invalid';
}

function createIssue(state: GitHubState, repo: GitHubRepo, body: Body): Reply {
  if (typeof body['title'] !== 'string' || body['title'].trim() === '') return invalid('Issue', 'title', 'missing_field');
  const assignees = resolveAssignees(state, body['assignees']);
  if (assignees === 'invalid') return invalid('Issue', 'assignees', 'invalid');
  const issues = state.issues.get(repo.full_name)!;
  const number = issues.length + 1;
  const id = state.nextId++;
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const url = `${API}/repos/${repo.full_name}/issues/${number}`;
  const issue: GitHubIssue = {
    id,
    node_id: nodeId('I', id),
    url,
    repository_url: repo.url,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${repo.html_url}/issues/${number}`,
    number,
    state: 'open',
    state_reason: null,
    title: body['title'],
    body: typeof body['body'] === 'string' ? body['body'] : null,
    user: state.viewer,
    labels: resolveLabels(state, repo, body['labels']) ?? [],
    assignee: assignees?.[0] ?? null,
    assignees: assignees ?? [],
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments: 0,
    created_at: now,
    updated_at: now,
    closed_at: null,
    closed_by: null,
    author_association: 'OWNER',
  };
  issues.push(issue);
  repo.open_issues_count += 1;
  return json(201, issue, { location: url });
}

function updateIssue(state: GitHubState, issue: GitHubIssue, body: Body): Reply {
  const repo = state.repos.find((r) => r.url === issue.repository_url)!;
  if ('title' in body && (typeof body['title'] !== 'string' || body['title'] === '')) return invalid('Issue', 'title', 'invalid');
  if ('state' in body && body['state'] !== 'open' && body['state'] !== 'closed') return invalid('Issue', 'state', 'invalid');
  const assignees = resolveAssignees(state, body['assignees']);
  if (assignees === 'invalid') return invalid('Issue', 'assignees', 'invalid');
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (typeof body['title'] === 'string') issue.title = body['title'];
  if ('body' in body) issue.body = typeof body['body'] === 'string' ? body['body'] : null;
  const labels = resolveLabels(state, repo, body['labels']);
  if (labels) issue.labels = labels;
  if (assignees) {
    issue.assignees = assignees;
    issue.assignee = assignees[0] ?? null;
  }
  if (body['state'] === 'closed' && issue.state === 'open') {
    Object.assign(issue, { state: 'closed', closed_at: now, closed_by: state.viewer, state_reason: body['state_reason'] ?? 'completed' });
    repo.open_issues_count -= 1;
  } else if (body['state'] === 'open' && issue.state === 'closed') {
    Object.assign(issue, { state: 'open', closed_at: null, closed_by: null, state_reason: 'reopened' });
    repo.open_issues_count += 1;
  }
  issue.updated_at = now;
  return json(200, issue);
}
