/**
 * @module Notion API fake (https://developers.notion.com/reference): users, pages and search.
 * Requires `Notion-Version` (400 missing_version without it). Lists page as Notion does:
 * `page_size` (at most 100) and `start_cursor`, in the query for GETs and in the body for
 * POST /v1/search, answered as `{ object: 'list', results, next_cursor, has_more }`. Errors are
 * Notion's `{ object: 'error', status, code, message }`: unauthorized, object_not_found,
 * validation_error; `throttleNext` answers 429 rate_limited with `Retry-After`.
 */
import { randomUUID } from 'node:crypto';
import {
  BodyParseError,
  Router,
  bearerToken,
  isRecord,
  json,
  parseBody,
  parseIntParam,
  startFakeServer,
  type Body,
  type FakeServer,
  type Reply,
  type RequestContext,
} from './server.js';

export interface NotionUser {
  object: 'user';
  id: string;
  type: 'person' | 'bot';
  name: string | null;
  avatar_url: string | null;
  person?: { email: string };
  bot?: { owner: { type: 'workspace'; workspace: true }; workspace_name: string };
}

export interface NotionPage {
  object: 'page';
  id: string;
  created_time: string;
  last_edited_time: string;
  created_by: { object: 'user'; id: string };
  last_edited_by: { object: 'user'; id: string };
  cover: null;
  icon: Body | null;
  parent: Body;
  archived: boolean;
  in_trash: boolean;
  is_archived: boolean;
  is_locked: boolean;
  properties: Record<string, Body>;
  url: string;
  public_url: string | null;
}

export interface NotionState {
  bot: NotionUser;
  users: NotionUser[];
  pages: NotionPage[];
  /** Block children appended when a page is created, by page id. */
  children: Map<string, Body[]>;
}

export interface NotionFakeOptions {
  token: string;
  /** People of the workspace; default three. */
  people?: Array<{ name: string; email: string }>;
  /** Titles of top-level pages shared with the integration; default two. */
  pages?: string[];
}

export interface NotionFake extends FakeServer<NotionState> {
  addPerson(name: string, email: string): NotionUser;
  removeUser(id: string): void;
  /** The next `times` API requests answer Notion's 429 rate_limited with `Retry-After: seconds`. */
  throttleNext(times?: number, seconds?: number): void;
}

const MAX_PAGE_SIZE = 100;

function notionError(status: number, code: string, message: string): Reply {
  return json(status, { object: 'error', status, code, message, request_id: randomUUID() });
}

export async function startNotionFake(options: NotionFakeOptions): Promise<NotionFake> {
  const bot: NotionUser = {
    object: 'user',
    id: randomUUID(),
    type: 'bot',
    name: 'Switchyard',
    avatar_url: null,
    bot: { owner: { type: 'workspace', workspace: true }, workspace_name: 'Fake Workspace' },
  };
  const state: NotionState = { bot, users: [bot], pages: [], children: new Map() };
  const addPerson = (name: string, email: string): NotionUser => {
    const user: NotionUser = {
      object: 'user',
      id: randomUUID(),
      type: 'person',
      name,
      avatar_url: `https://s3.example.com/${encodeURIComponent(name)}.png`,
      person: { email },
    };
    state.users.push(user);
    return user;
  };
  for (const p of options.people ?? [
    { name: 'Ada Lovelace', email: 'ada@example.com' },
    { name: 'Alan Turing', email: 'alan@example.com' },
    { name: 'Grace Hopper', email: 'grace@example.com' },
  ])
    addPerson(p.name, p.email);
  for (const title of options.pages ?? ['Roadmap', 'Meeting notes']) createPage(state, { type: 'workspace', workspace: true }, titleProperty(title), null);

  const router = new Router()
    .get('/v1/users', (ctx) => list(ctx, state.users, queryPaging(ctx)))
    .get('/v1/users/me', () => json(200, state.bot))
    .get('/v1/users/:id', (ctx) => {
      const user = state.users.find((u) => u.id === ctx.params.id);
      return user ? json(200, user) : notionError(404, 'object_not_found', `Could not find user with ID: ${ctx.params.id}.`);
    })
    .post('/v1/search', (ctx) =>
      withBody(ctx, (body) => {
        const query = typeof body['query'] === 'string' ? body['query'].toLowerCase() : '';
        const filter = isRecord(body['filter']) ? body['filter'] : undefined;
        if (filter && filter['value'] !== 'page') return list(ctx, [], bodyPaging(body));
        const hits = state.pages.filter((p) => !p.in_trash && titleOf(p).toLowerCase().includes(query));
        return list(
          ctx,
          [...hits].sort((a, b) => b.last_edited_time.localeCompare(a.last_edited_time)),
          bodyPaging(body),
        );
      }),
    )
    .post('/v1/pages', (ctx) => withBody(ctx, (body) => postPage(state, body)))
    .get('/v1/pages/:id', (ctx) => withPage(state, ctx, (page) => json(200, page)))
    .patch('/v1/pages/:id', (ctx) => withPage(state, ctx, (page) => withBody(ctx, (body) => patchPage(state, page, body))));

  const fake = await startFakeServer(state, (ctx) => {
    if (bearerToken(ctx.headers) !== options.token) return notionError(401, 'unauthorized', 'API token is invalid.');
    if (!ctx.headers['notion-version'])
      return notionError(400, 'missing_version', 'Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.');
    return router.dispatch(ctx) ?? notionError(400, 'invalid_request_url', 'Invalid request URL.');
  });
  return {
    ...fake,
    addPerson,
    removeUser(id) {
      state.users = state.users.filter((u) => u.id !== id);
    },
    throttleNext(times = 1, seconds = 1) {
      fake.failNext({
        status: 429,
        times,
        headers: { 'retry-after': String(seconds) },
        body: JSON.stringify({ object: 'error', status: 429, code: 'rate_limited', message: 'You have been rate limited. Please try again in a few minutes.' }),
      });
    },
  };
}

type Paging = { size: number | undefined; cursor: string | undefined } | Reply;

function queryPaging(ctx: RequestContext): Paging {
  return checkPaging(ctx.query.get('page_size') ?? undefined, ctx.query.get('start_cursor') ?? undefined);
}

function bodyPaging(body: Body): Paging {
  const size = body['page_size'];
  return checkPaging(size === undefined ? undefined : String(size), typeof body['start_cursor'] === 'string' ? body['start_cursor'] : undefined);
}

function checkPaging(sizeParam: string | undefined, cursor: string | undefined): Paging {
  const size = sizeParam === undefined ? MAX_PAGE_SIZE : parseIntParam(sizeParam);
  if (size === undefined || size < 1 || size > MAX_PAGE_SIZE)
    return notionError(
      400,
      'validation_error',
      `body failed validation: body.page_size should be a number between 1 and ${MAX_PAGE_SIZE}, instead was \`${sizeParam}\`.`,
    );
  return { size, cursor };
}

/** Notion's cursors are the id of the first item of the next page. */
function list<T extends { id: string }>(ctx: RequestContext, all: T[], paging: Paging): Reply {
  if ('status' in paging) return paging;
  const start = paging.cursor ? all.findIndex((x) => x.id === paging.cursor) : 0;
  if (start < 0) return notionError(400, 'validation_error', `start_cursor provided is invalid: ${paging.cursor}`);
  const size = paging.size ?? MAX_PAGE_SIZE;
  const results = all.slice(start, start + size);
  const next = all[start + size];
  const type = ctx.path === '/v1/search' ? 'page_or_database' : 'user';
  return json(200, { object: 'list', results, next_cursor: next ? next.id : null, has_more: Boolean(next), type, [type]: {} });
}

function withBody(ctx: RequestContext, fn: (body: Body) => Reply): Reply {
  try {
    return fn(parseBody(ctx));
  } catch (err) {
    if (err instanceof BodyParseError) return notionError(400, 'invalid_json', 'Error parsing JSON body.');
    throw err;
  }
}

function withPage(state: NotionState, ctx: RequestContext, fn: (page: NotionPage) => Reply): Reply {
  const wanted = ctx.params.id!.replace(/-/g, '');
  const page = state.pages.find((p) => p.id.replace(/-/g, '') === wanted);
  return page
    ? fn(page)
    : notionError(
        404,
        'object_not_found',
        `Could not find page with ID: ${ctx.params.id}. Make sure the relevant pages and databases are shared with your integration.`,
      );
}

function titleProperty(title: string): Record<string, Body> {
  return { title: { id: 'title', type: 'title', title: [richText(title)] } };
}

function richText(content: string): Body {
  return {
    type: 'text',
    text: { content, link: null },
    annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' },
    plain_text: content,
    href: null,
  };
}

function titleOf(page: NotionPage): string {
  const title = Object.values(page.properties).find((p) => p['type'] === 'title');
  return ((title?.['title'] as Body[] | undefined) ?? []).map((t) => String(t['plain_text'] ?? '')).join('');
}

function createPage(state: NotionState, parent: Body, properties: Record<string, Body>, icon: Body | null): NotionPage {
  const id = randomUUID();
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, '.000Z');
  const page: NotionPage = {
    object: 'page',
    id,
    created_time: now,
    last_edited_time: now,
    created_by: { object: 'user', id: state.bot.id },
    last_edited_by: { object: 'user', id: state.bot.id },
    cover: null,
    icon,
    parent,
    archived: false,
    in_trash: false,
    is_archived: false,
    is_locked: false,
    properties,
    url: '',
    public_url: null,
  };
  page.url = `https://www.notion.so/${titleOf(page).replace(/\W+/g, '-')}-${id.replace(/-/g, '')}`;
  state.pages.push(page);
  return page;
}

/** Title properties as Notion reads them: `{ title: [{ text: { content } }] }` under any key. */
function readProperties(input: unknown): Record<string, Body> | string {
  if (!isRecord(input)) return 'body.properties should be an object';
  const out: Record<string, Body> = {};
  for (const [key, value] of Object.entries(input)) {
    if (!isRecord(value) || !Array.isArray(value['title'])) return `body.properties.${key} should be a title property`;
    const parts = (value['title'] as unknown[]).map((t) => (isRecord(t) && isRecord(t['text']) ? String(t['text']['content'] ?? '') : undefined));
    if (parts.some((p) => p === undefined)) return `body.properties.${key}.title should be an array of text rich text objects`;
    out[key] = { id: key === 'title' ? 'title' : key, type: 'title', title: (parts as string[]).map(richText) };
  }
  return out;
}

function postPage(state: NotionState, body: Body): Reply {
  const parent = body['parent'];
  if (!isRecord(parent)) return notionError(400, 'validation_error', 'body failed validation: body.parent should be defined, instead was `undefined`.');
  let resolved: Body;
  if (typeof parent['page_id'] === 'string') {
    const wanted = parent['page_id'].replace(/-/g, '');
    const target = state.pages.find((p) => p.id.replace(/-/g, '') === wanted);
    if (!target)
      return notionError(
        404,
        'object_not_found',
        `Could not find page with ID: ${parent['page_id']}. Make sure the relevant pages and databases are shared with your integration.`,
      );
    resolved = { type: 'page_id', page_id: target.id };
  } else if (parent['workspace'] === true) {
    resolved = { type: 'workspace', workspace: true };
  } else {
    return notionError(400, 'validation_error', 'body failed validation: body.parent.page_id should be defined, instead was `undefined`.');
  }
  const properties = readProperties(body['properties'] ?? {});
  if (typeof properties === 'string') return notionError(400, 'validation_error', `body failed validation: ${properties}.`);
  const page = createPage(state, resolved, properties, isRecord(body['icon']) ? body['icon'] : null);
  if (Array.isArray(body['children'])) state.children.set(page.id, body['children'] as Body[]);
  return json(200, page);
}

function patchPage(state: NotionState, page: NotionPage, body: Body): Reply {
  if (page.in_trash && body['in_trash'] !== false && body['archived'] !== false)
    return notionError(400, 'validation_error', "Can't edit block that is archived. You must unarchive the block before editing.");
  if (body['properties'] !== undefined) {
    const properties = readProperties(body['properties']);
    if (typeof properties === 'string') return notionError(400, 'validation_error', `body failed validation: ${properties}.`);
    Object.assign(page.properties, properties);
  }
  const trash = body['in_trash'] ?? body['archived'];
  if (typeof trash === 'boolean') page.in_trash = page.archived = page.is_archived = trash;
  page.last_edited_time = new Date().toISOString().replace(/\.\d{3}Z$/, '.000Z');
  page.last_edited_by = { object: 'user', id: state.bot.id };
  return json(200, page);
}
