/**
 * @module Fake Metabase (modern /api/user behaviour, FACTS.md §1 and §5.1).
 */
import { BodyParseError, Router, isRecord, isoMicros, parseBody, parseIntParam, randomHex, startFakeServer, text } from './server.js';
import type { Body, FakeServer, Reply, RequestContext } from './server.js';

export const ALL_USERS_GROUP_ID = 1;
export const ADMIN_GROUP_ID = 2;

export interface GroupMembership {
  id: number;
  is_group_manager?: boolean;
}

/** Stored user; rendered per endpoint (list / single / reactivate views differ). */
export interface MetabaseUser {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  is_active: boolean;
  is_superuser: boolean;
  is_qbnewb: boolean;
  date_joined: string;
  updated_at: string;
  last_login: string | null;
  locale: string | null;
  login_attributes: Record<string, string> | null;
  sso_source: string | null;
  memberships: GroupMembership[];
  personal_collection_id: number;
  /** API-key users are 'api-key' and never appear in GET /api/user. */
  type: 'personal' | 'api-key';
}

export interface MetabaseState {
  users: MetabaseUser[];
  nextId: number;
  /** The user the API key acts as (GET /api/user/current). */
  apiKeyUserId: number;
}

export interface MetabaseUserSeed {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  is_active?: boolean;
  is_superuser?: boolean;
  locale?: string | null;
  sso_source?: string | null;
  last_login?: string | null;
  login_attributes?: Record<string, string> | null;
}

export interface MetabaseFakeOptions {
  apiKey: string;
  /** When false the key is not in the Administrators group: user management answers 403. */
  keyIsAdmin?: boolean;
  users?: MetabaseUserSeed[];
}

export interface MetabaseFake extends FakeServer<MetabaseState> {
  addUser(seed: MetabaseUserSeed): MetabaseUser;
  findUser(id: number): MetabaseUser | undefined;
}

const METABASE_JSON = 'application/json;charset=utf-8';
const NOT_FOUND = 'Not found.';
const FORBIDDEN = "You don't have permissions to do that.";
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LOCALE_RE = /^[a-z]{2}(_[A-Z]{2})?$/;

function mbJson(status: number, value: unknown): Reply {
  return { status, headers: { 'content-type': METABASE_JSON }, body: JSON.stringify(value) };
}

/** Metabase serialises ExceptionInfo thrown with a status + data map as a Throwable map. */
function throwableMap(status: number, message: string): Reply {
  const data = { message, 'status-code': status };
  return mbJson(status, {
    via: [{ type: 'clojure.lang.ExceptionInfo', message, data, at: ['metabase.api.common$check', 'invokeStatic', 'common.clj', 120] }],
    trace: [],
    cause: message,
    data,
    message,
  });
}

function schemaError(field: string, message: string, received: unknown): Reply {
  return mbJson(400, {
    errors: { [field]: message },
    'specific-errors': { [field]: [`${message.replace(/\.$/, '')}, received: ${JSON.stringify(received)}`] },
  });
}

export function renderUser(user: MetabaseUser): Record<string, unknown> {
  return {
    id: user.id,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    common_name: commonName(user),
    is_active: user.is_active,
    is_superuser: user.is_superuser,
    is_qbnewb: user.is_qbnewb,
    date_joined: user.date_joined,
    updated_at: user.updated_at,
    last_login: user.last_login,
    locale: user.locale,
    login_attributes: user.login_attributes,
    sso_source: user.sso_source,
  };
}

function commonName(user: MetabaseUser): string {
  const name = `${user.first_name ?? ''} ${user.last_name ?? ''}`.trim();
  return name || user.email;
}

function withMemberships(user: MetabaseUser): Record<string, unknown> {
  return { ...renderUser(user), user_group_memberships: user.memberships.map((m) => ({ ...m })) };
}

function listView(user: MetabaseUser): Record<string, unknown> {
  return {
    ...renderUser(user),
    group_ids: user.memberships.map((m) => m.id),
    personal_collection_id: user.personal_collection_id,
  };
}

export async function startMetabaseFake(options: MetabaseFakeOptions): Promise<MetabaseFake> {
  const state: MetabaseState = { users: [], nextId: 1, apiKeyUserId: 0 };
  const addUser = (seed: MetabaseUserSeed, type: MetabaseUser['type'] = 'personal'): MetabaseUser => {
    const now = isoMicros();
    const user: MetabaseUser = {
      id: state.nextId++,
      email: seed.email.toLowerCase(),
      first_name: seed.first_name ?? null,
      last_name: seed.last_name ?? null,
      is_active: seed.is_active ?? true,
      is_superuser: seed.is_superuser ?? false,
      is_qbnewb: true,
      date_joined: now,
      updated_at: now,
      last_login: seed.last_login ?? null,
      locale: seed.locale ?? null,
      login_attributes: seed.login_attributes ?? null,
      sso_source: seed.sso_source ?? null,
      memberships: membershipsFor(seed.is_superuser ?? false),
      personal_collection_id: 0,
      type,
    };
    user.personal_collection_id = user.id + 100;
    state.users.push(user);
    return user;
  };

  const keyUser = addUser(
    { email: `api-key-user-${randomHex(4)}@api-key.invalid`, first_name: 'Switchyard', last_name: 'API Key', is_superuser: options.keyIsAdmin ?? true },
    'api-key',
  );
  state.apiKeyUserId = keyUser.id;
  for (const seed of options.users ?? []) addUser(seed);

  const api = new MetabaseApi(state, options, addUser);
  const fake = await startFakeServer(state, (ctx) => api.handle(ctx));
  return { ...fake, addUser: (seed) => addUser(seed), findUser: (id) => state.users.find((u) => u.id === id) };
}

function membershipsFor(isSuperuser: boolean): GroupMembership[] {
  return isSuperuser ? [{ id: ALL_USERS_GROUP_ID }, { id: ADMIN_GROUP_ID }] : [{ id: ALL_USERS_GROUP_ID }];
}

class MetabaseApi {
  private readonly router = new Router();

  constructor(
    private readonly state: MetabaseState,
    private readonly options: MetabaseFakeOptions,
    private readonly addUser: (seed: MetabaseUserSeed) => MetabaseUser,
  ) {
    this.router
      .get('/api/user', (ctx) => this.admin(() => this.list(ctx)))
      .get('/api/user/current', () => this.current())
      .get('/api/user/:id', (ctx) => this.admin(() => this.withId(ctx, (id) => this.getOne(id))))
      .post('/api/user', (ctx) => this.admin(() => this.withBody(ctx, (body) => this.create(body))))
      .put('/api/user/:id/reactivate', (ctx) => this.admin(() => this.withId(ctx, (id) => this.reactivate(id))))
      .put('/api/user/:id', (ctx) => this.admin(() => this.withId(ctx, (id) => this.withBody(ctx, (body) => this.update(id, body)))))
      .delete('/api/user/:id', (ctx) => this.admin(() => this.withId(ctx, (id) => this.deactivate(id))))
      .get('/api/database', () => mbJson(200, { data: [], total: 0 }));
  }

  async handle(ctx: RequestContext): Promise<Reply> {
    if (ctx.path.startsWith('/api/') && ctx.headers['x-api-key'] !== this.options.apiKey) {
      return text(401, 'Unauthenticated');
    }
    return (await this.router.dispatch(ctx)) ?? text(404, 'API endpoint does not exist.');
  }

  private admin(run: () => Reply): Reply {
    return this.options.keyIsAdmin === false ? text(403, FORBIDDEN) : run();
  }

  private withId(ctx: RequestContext, run: (id: number) => Reply): Reply {
    const raw = ctx.params['id'] ?? '';
    const id = parseIntParam(raw);
    if (id === undefined || id <= 0) return schemaError('id', 'value must be an integer greater than zero.', raw);
    return run(id);
  }

  private withBody(ctx: RequestContext, run: (body: Body) => Reply): Reply {
    try {
      return run(parseBody(ctx));
    } catch (err) {
      if (err instanceof BodyParseError) return throwableMap(400, 'Malformed JSON in request body.');
      throw err;
    }
  }

  private find(id: number): MetabaseUser | undefined {
    return this.state.users.find((u) => u.id === id);
  }

  private emailTaken(email: string, exceptId?: number): boolean {
    const lower = email.toLowerCase();
    return this.state.users.some((u) => u.email === lower && u.id !== exceptId);
  }

  // ------------------------------------------------------------------------------------------

  private list(ctx: RequestContext): Reply {
    const q = ctx.query;
    const statusFilter = statusFromQuery(q.get('status'), q.get('include_deactivated'));
    const search = q.get('query')?.toLowerCase();
    const groupId = parseIntParam(q.get('group_id'));
    const matches = this.state.users
      .filter((u) => u.type === 'personal')
      .filter((u) => statusFilter === 'all' || u.is_active === (statusFilter === 'active'))
      .filter((u) => !search || [u.first_name, u.last_name, u.email].some((v) => v?.toLowerCase().includes(search)))
      .filter((u) => groupId === undefined || u.memberships.some((m) => m.id === groupId))
      .sort(compareUsers);

    const paging = pagingFromQuery(q.get('limit'), q.get('offset'));
    const page = paging ? matches.slice(paging.offset, paging.offset + paging.limit) : matches;
    return mbJson(200, {
      data: page.map(listView),
      total: matches.length,
      limit: paging?.limit ?? null,
      offset: paging?.offset ?? null,
    });
  }

  private current(): Reply {
    const user = this.find(this.state.apiKeyUserId) as MetabaseUser;
    return mbJson(200, {
      ...listView(user),
      is_installer: false,
      has_invited_second_user: this.state.users.filter((u) => u.type === 'personal').length > 1,
      has_question_and_dashboard: false,
      has_model: false,
      first_login: user.date_joined,
      custom_homepage: null,
    });
  }

  private getOne(id: number): Reply {
    const user = this.find(id);
    return user ? mbJson(200, withMemberships(user)) : text(404, NOT_FOUND);
  }

  private create(body: Body): Reply {
    const email = body['email'];
    if (typeof email !== 'string' || !EMAIL_RE.test(email)) {
      return schemaError('email', 'value must be a valid email address.', email ?? null);
    }
    const nameError = blankNameError(body, ['first_name', 'last_name']);
    if (nameError) return nameError;
    if (this.emailTaken(email)) return mbJson(400, { errors: { email: 'Email address already in use.' } });

    const user = this.addUser({
      email,
      first_name: optionalString(body['first_name']),
      last_name: optionalString(body['last_name']),
      login_attributes: isRecord(body['login_attributes']) ? (body['login_attributes'] as Record<string, string>) : null,
    });
    const requested = parseMemberships(body['user_group_memberships']);
    if (requested) setMemberships(user, requested);
    return mbJson(200, withMemberships(user));
  }

  private update(id: number, body: Body): Reply {
    const user = this.find(id);
    if (!user || !user.is_active) return text(404, NOT_FOUND);

    const email = body['email'];
    if (email != null && (typeof email !== 'string' || !EMAIL_RE.test(email))) {
      return schemaError('email', 'value must be a valid email address.', email);
    }
    if (typeof email === 'string' && this.emailTaken(email, id)) {
      return mbJson(400, { errors: { email: 'Email address already associated to another user.' } });
    }
    const nameError = blankNameError(body, ['first_name', 'last_name']);
    if (nameError) return nameError;
    const locale = body['locale'];
    if (locale != null && (typeof locale !== 'string' || !LOCALE_RE.test(locale))) {
      return schemaError('locale', "String must be a valid two-letter ISO language or language-country code e.g. 'en' or 'en_US'.", locale);
    }
    const memberships = parseMemberships(body['user_group_memberships']);
    const superuser = body['is_superuser'];
    if (typeof superuser === 'boolean' && memberships && memberships.some((m) => m.id === ADMIN_GROUP_ID) !== superuser) {
      return mbJson(400, {
        errors: { is_superuser: 'Value of is_superuser must correspond to presence of Admin group ID in group_ids.' },
      });
    }
    if (user.sso_source && ('first_name' in body || 'last_name' in body) && namesChange(user, body)) {
      const message = 'Editing first name is not allowed for SSO users.';
      return mbJson(400, { errors: { first_name: message, last_name: message.replace('first', 'last') } });
    }

    applyUpdate(user, body, memberships);
    return mbJson(200, withMemberships(user));
  }

  private deactivate(id: number): Reply {
    const user = this.find(id);
    // Metabase checks the UPDATE row count with check-500, so an unknown id is a 500, not a 404.
    if (!user) return throwableMap(500, 'Internal server error.');
    if (user.is_active) {
      user.is_active = false;
      user.updated_at = isoMicros();
    }
    return mbJson(200, { success: true });
  }

  private reactivate(id: number): Reply {
    const user = this.find(id);
    if (!user) return text(404, NOT_FOUND);
    if (user.is_active) return throwableMap(400, 'Not able to reactivate an active user');
    user.is_active = true;
    user.is_superuser = false;
    user.memberships = user.memberships.filter((m) => m.id !== ADMIN_GROUP_ID);
    user.updated_at = isoMicros();
    return mbJson(200, renderUser(user));
  }
}

// ---------------------------------------------------------------------------------------------

function statusFromQuery(status: string | null, includeDeactivated: string | null): 'active' | 'deactivated' | 'all' {
  if (status === 'active' || status === 'deactivated' || status === 'all') return status;
  if (status === null && includeDeactivated === 'true') return 'all';
  return 'active';
}

/** Offset-paging middleware: none given → everything; one given → the other defaults. */
function pagingFromQuery(limitRaw: string | null, offsetRaw: string | null): { limit: number; offset: number } | undefined {
  const limit = parseIntParam(limitRaw);
  const offset = parseIntParam(offsetRaw);
  if (limit === undefined && offset === undefined) return undefined;
  return { limit: limit ?? 50, offset: offset ?? 0 };
}

function compareUsers(a: MetabaseUser, b: MetabaseUser): number {
  return compareNullableLower(a.first_name, b.first_name) || compareNullableLower(a.last_name, b.last_name) || a.id - b.id;
}

/** Postgres ascending order: NULLs last. */
function compareNullableLower(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  return left < right ? -1 : left > right ? 1 : 0;
}

function blankNameError(body: Body, fields: string[]): Reply | undefined {
  for (const field of fields) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.trim() === '') {
      return schemaError(field, 'nullable value must be a non-blank string.', value);
    }
  }
  return undefined;
}

function optionalString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function parseMemberships(value: unknown): GroupMembership[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter((m): m is Record<string, unknown> => isRecord(m) && typeof m['id'] === 'number')
    .map((m) => ({
      id: m['id'] as number,
      ...(typeof m['is_group_manager'] === 'boolean' ? { is_group_manager: m['is_group_manager'] } : {}),
    }));
}

/** The All Users group is implicit and can't be left. */
function setMemberships(user: MetabaseUser, memberships: GroupMembership[]): void {
  const rest = memberships.filter((m) => m.id !== ALL_USERS_GROUP_ID);
  user.memberships = [{ id: ALL_USERS_GROUP_ID }, ...rest];
  user.is_superuser = user.memberships.some((m) => m.id === ADMIN_GROUP_ID);
}

function namesChange(user: MetabaseUser, body: Body): boolean {
  return ('first_name' in body && body['first_name'] !== user.first_name) || ('last_name' in body && body['last_name'] !== user.last_name);
}

/** first_name/last_name/locale apply when present (null clears); email/is_superuser only when non-null. */
function applyUpdate(user: MetabaseUser, body: Body, memberships: GroupMembership[] | undefined): void {
  if ('first_name' in body) user.first_name = optionalString(body['first_name']);
  if ('last_name' in body) user.last_name = optionalString(body['last_name']);
  if ('locale' in body) user.locale = optionalString(body['locale']);
  if (typeof body['email'] === 'string') user.email = body['email'].toLowerCase();
  if (isRecord(body['login_attributes'])) user.login_attributes = body['login_attributes'] as Record<string, string>;
  if (memberships) setMemberships(user, memberships);
  if (typeof body['is_superuser'] === 'boolean') {
    user.is_superuser = body['is_superuser'];
    const others = user.memberships.filter((m) => m.id !== ADMIN_GROUP_ID);
    user.memberships = user.is_superuser ? [...others, { id: ADMIN_GROUP_ID }] : others;
  }
  user.updated_at = isoMicros();
}
