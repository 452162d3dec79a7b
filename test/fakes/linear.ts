/**
 * @module Linear GraphQL API fake (https://linear.app/developers/graphql): POST /graphql with
 * `viewer`, `teams`, `issues`, `issue(id)`, `issueCreate` and `issueUpdate`, answering only the
 * fields selected. Connections page as Linear's Relay-style API does: `first` (default 50, at most
 * 250) and `after`, answered with `nodes` and `pageInfo { hasNextPage endCursor }`; `filter:
 * { updatedAt: { gte } }` narrows by last update. A missing entity is a GraphQL error with HTTP
 * 200 (`Entity not found: Issue`); bad credentials answer AUTHENTICATION_ERROR; `throttleNext`
 * answers 429 RATELIMITED with `Retry-After`. Personal API keys come bare in `Authorization`,
 * OAuth tokens as `Bearer`.
 */
import { randomUUID } from 'node:crypto';
import { execute, GraphQLFieldError, type GqlValue, type Resolver } from './graphql.js';
import { BodyParseError, Router, json, parseBody, startFakeServer, type FakeServer, type RequestContext } from './server.js';

export interface LinearUser {
  id: string;
  name: string;
  displayName: string;
  email: string;
  active: boolean;
}

export interface LinearTeam {
  id: string;
  name: string;
  key: string;
  description: string | null;
  color: string;
  icon: string | null;
  private: boolean;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
}

export interface LinearState {
  id: string;
  name: string;
  color: string;
  type: 'backlog' | 'unstarted' | 'started' | 'completed' | 'canceled';
  teamId: string;
}

export interface LinearIssue {
  id: string;
  identifier: string;
  number: number;
  title: string;
  description: string | null;
  priority: number;
  estimate: number | null;
  dueDate: string | null;
  url: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  teamId: string;
  stateId: string;
  assigneeId: string | null;
}

export interface LinearFakeState {
  viewer: LinearUser;
  users: LinearUser[];
  teams: LinearTeam[];
  states: LinearState[];
  issues: LinearIssue[];
}

export interface LinearFakeOptions {
  token: string;
  /** Team names; default two. */
  teams?: string[];
}

export interface LinearFake extends FakeServer<LinearFakeState> {
  addTeam(name: string): LinearTeam;
  /** The next `times` requests answer 429 RATELIMITED with `Retry-After: seconds`. */
  throttleNext(times?: number, seconds?: number): void;
}

const DEFAULT_FIRST = 50;
const MAX_FIRST = 250;

export async function startLinearFake(options: LinearFakeOptions): Promise<LinearFake> {
  let clock = Date.UTC(2026, 0, 1);
  const stamp = () => new Date((clock += 60_000)).toISOString();
  const viewer: LinearUser = { id: randomUUID(), name: 'Ada Lovelace', displayName: 'ada', email: 'ada@example.com', active: true };
  const state: LinearFakeState = { viewer, users: [viewer], teams: [], states: [], issues: [] };
  const addTeam = (name: string): LinearTeam => {
    const at = stamp();
    const team: LinearTeam = {
      id: randomUUID(),
      name,
      key: name
        .replace(/[^A-Za-z]/g, '')
        .slice(0, 3)
        .toUpperCase(),
      description: null,
      color: '#5e6ad2',
      icon: null,
      private: false,
      createdAt: at,
      updatedAt: at,
      archivedAt: null,
    };
    state.teams.push(team);
    for (const [stateName, type] of [
      ['Todo', 'unstarted'],
      ['In Progress', 'started'],
      ['Done', 'completed'],
    ] as const)
      state.states.push({ id: randomUUID(), name: stateName, color: '#e2e2e2', type, teamId: team.id });
    return team;
  };
  for (const name of options.teams ?? ['Engineering', 'Design']) addTeam(name);

  const view = new Views(state);
  const query: Record<string, Resolver> = {
    viewer: () => view.user(state.viewer),
    teams: (args) => connection(filtered(state.teams, args), args, (t) => view.team(t)),
    team: (args) => view.team(find(state.teams, args['id'], 'Team')),
    issues: (args) => connection(filtered(state.issues, args), args, (i) => view.issue(i)),
    issue: (args) => view.issue(find(state.issues, args['id'], 'Issue', (i) => i.identifier === args['id'])),
  };
  const mutation: Record<string, Resolver> = {
    issueCreate: (args) => ({ success: true, lastSyncId: clock, issue: view.issue(createIssue(state, record(args['input']), stamp)) }),
    issueUpdate: (args) => {
      const issue = find(state.issues, args['id'], 'Issue', (i) => i.identifier === args['id']);
      updateIssue(state, issue, record(args['input']), stamp);
      return { success: true, lastSyncId: clock, issue: view.issue(issue) };
    },
  };

  const router = new Router().post('/graphql', (ctx) => {
    let body;
    try {
      body = parseBody(ctx);
    } catch (err) {
      if (err instanceof BodyParseError) return json(400, { errors: [{ message: 'Invalid JSON body', extensions: { code: 'BAD_USER_INPUT' } }] });
      throw err;
    }
    const result = execute({ query, mutation }, body['query'], body['variables']);
    return json(result.status, result.body);
  });

  const fake = await startFakeServer(state, (ctx) => {
    if (!authorized(ctx, options.token))
      return json(400, {
        errors: [
          {
            message: 'Authentication required, not authenticated',
            extensions: {
              type: 'authentication error',
              code: 'AUTHENTICATION_ERROR',
              userPresentableMessage: 'You need to authenticate to access this operation.',
            },
          },
        ],
      });
    return router.dispatch(ctx) ?? json(404, { errors: [{ message: 'Not found' }] });
  });
  return {
    ...fake,
    addTeam,
    throttleNext(times = 1, seconds = 1) {
      fake.failNext({
        status: 429,
        times,
        headers: { 'retry-after': String(seconds), 'x-ratelimit-requests-remaining': '0' },
        body: JSON.stringify({ errors: [{ message: 'Rate limit exceeded', extensions: { code: 'RATELIMITED', type: 'ratelimited' } }] }),
      });
    },
  };
}

function authorized(ctx: RequestContext, token: string): boolean {
  const header = ctx.headers['authorization'] ?? '';
  return header === token || header === `Bearer ${token}`;
}

function record(value: GqlValue | undefined): Record<string, GqlValue> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GraphQLFieldError('Argument Validation Error', { code: 'INVALID_INPUT' });
  return value;
}

function find<T extends { id: string }>(all: T[], id: GqlValue | undefined, type: string, alt?: (x: T) => boolean): T {
  const found = all.find((x) => x.id === id || (alt?.(x) ?? false));
  if (!found)
    throw new GraphQLFieldError(`Entity not found: ${type}`, {
      type: 'invalid input',
      code: 'INVALID_INPUT',
      userPresentableMessage: `Could not find referenced ${type}.`,
    });
  return found;
}

function filtered<T extends { updatedAt: string }>(all: T[], args: Record<string, GqlValue>): T[] {
  const filter = args['filter'] as { updatedAt?: { gte?: string; gt?: string } } | undefined;
  const gte = filter?.updatedAt?.gte;
  const gt = filter?.updatedAt?.gt;
  const kept = all.filter((x) => (!gte || x.updatedAt >= gte) && (!gt || x.updatedAt > gt));
  // orderBy: createdAt is Linear's default; updatedAt puts the most recently updated first.
  return args['orderBy'] === 'updatedAt' ? [...kept].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)) : kept;
}

/** Cursors are the id of the last item of a page (opaque to clients, as Linear's are). */
function connection<T extends { id: string }>(all: T[], args: Record<string, GqlValue>, render: (x: T) => unknown): unknown {
  const first = typeof args['first'] === 'number' ? args['first'] : DEFAULT_FIRST;
  if (first < 0 || first > MAX_FIRST) throw new GraphQLFieldError(`first must be between 0 and ${MAX_FIRST}`, { code: 'INVALID_INPUT' });
  const after = args['after'];
  const start = typeof after === 'string' ? all.findIndex((x) => x.id === after) + 1 : 0;
  if (typeof after === 'string' && start === 0) throw new GraphQLFieldError('Invalid cursor', { code: 'INVALID_INPUT' });
  const page = all.slice(start, start + first);
  return {
    nodes: page.map(render),
    pageInfo: {
      hasNextPage: start + first < all.length,
      hasPreviousPage: start > 0,
      startCursor: page[0]?.id ?? null,
      endCursor: page[page.length - 1]?.id ?? null,
    },
  };
}

function createIssue(state: LinearFakeState, input: Record<string, GqlValue>, stamp: () => string): LinearIssue {
  const team = find(state.teams, input['teamId'], 'Team');
  if (typeof input['title'] !== 'string' || input['title'] === '')
    throw new GraphQLFieldError('Argument Validation Error: title should not be empty', { code: 'INVALID_INPUT' });
  const number = state.issues.filter((i) => i.teamId === team.id).length + 1;
  const stateId =
    typeof input['stateId'] === 'string' ? find(state.states, input['stateId'], 'WorkflowState').id : state.states.find((s) => s.teamId === team.id)!.id;
  const assigneeId = typeof input['assigneeId'] === 'string' ? find(state.users, input['assigneeId'], 'User').id : null;
  const at = stamp();
  const identifier = `${team.key}-${number}`;
  const issue: LinearIssue = {
    id: randomUUID(),
    identifier,
    number,
    title: input['title'],
    description: typeof input['description'] === 'string' ? input['description'] : null,
    priority: typeof input['priority'] === 'number' ? input['priority'] : 0,
    estimate: null,
    dueDate: null,
    url: `https://linear.app/fake/issue/${identifier}`,
    createdAt: at,
    updatedAt: at,
    archivedAt: null,
    teamId: team.id,
    stateId,
    assigneeId,
  };
  state.issues.push(issue);
  return issue;
}

function updateIssue(state: LinearFakeState, issue: LinearIssue, input: Record<string, GqlValue>, stamp: () => string): void {
  if (typeof input['title'] === 'string') issue.title = input['title'];
  if ('description' in input) issue.description = typeof input['description'] === 'string' ? input['description'] : null;
  if (typeof input['priority'] === 'number') issue.priority = input['priority'];
  if (typeof input['stateId'] === 'string') issue.stateId = find(state.states, input['stateId'], 'WorkflowState').id;
  if ('assigneeId' in input) issue.assigneeId = typeof input['assigneeId'] === 'string' ? find(state.users, input['assigneeId'], 'User').id : null;
  issue.updatedAt = stamp();
}

/** The GraphQL objects: plain fields plus relations, resolved lazily so cycles stay finite. */
class Views {
  constructor(private readonly state: LinearFakeState) {}

  user(u: LinearUser): Record<string, unknown> {
    return { __typename: 'User', ...u };
  }

  team(t: LinearTeam): Record<string, unknown> {
    return {
      __typename: 'Team',
      ...t,
      states: () => ({ nodes: this.state.states.filter((s) => s.teamId === t.id).map((s) => this.workflowState(s)) }),
      issues: (args: Record<string, GqlValue>) =>
        connection(
          filtered(
            this.state.issues.filter((i) => i.teamId === t.id),
            args,
          ),
          args,
          (i) => this.issue(i),
        ),
    };
  }

  workflowState(s: LinearState): Record<string, unknown> {
    return {
      __typename: 'WorkflowState',
      id: s.id,
      name: s.name,
      color: s.color,
      type: s.type,
      team: () => this.team(this.state.teams.find((t) => t.id === s.teamId)!),
    };
  }

  issue(i: LinearIssue): Record<string, unknown> {
    const assignee = this.state.users.find((u) => u.id === i.assigneeId);
    return {
      __typename: 'Issue',
      ...i,
      team: () => this.team(this.state.teams.find((t) => t.id === i.teamId)!),
      state: () => this.workflowState(this.state.states.find((s) => s.id === i.stateId)!),
      assignee: () => (assignee ? this.user(assignee) : null),
      labels: () => ({ nodes: [] }),
      project: null,
      cycle: null,
      parent: null,
    };
  }
}
