/**
 * @module Generic records API for sync and proxy tests: paged /items, /echo, /echo-binary,
 * /files/big and /slow.
 */
import { BodyParseError, Router, bearerToken, bigFileHandler, json, parseBody, parseIntParam, slowHandler, startFakeServer } from './server.js';
import type { Body, FakeServer, Handler, Reply, RequestContext } from './server.js';

export interface GenericItem {
  id: string;
  name: string;
  /** ISO timestamp, bumped by updateItem / PUT / PATCH. */
  updated_at: string;
  [key: string]: unknown;
}

export interface GenericState {
  items: GenericItem[];
  nextId: number;
}

export interface GenericApiFakeOptions {
  /** Require `Authorization: Bearer <bearer>` (either credential is enough when both are set). */
  bearer?: string;
  /** Require `x-api-key: <apiKey>`. */
  apiKey?: string;
  items?: Array<Partial<GenericItem> & { name: string }>;
  /** per_page / limit when the request gives none; default 50. Max 1000. */
  defaultPageSize?: number;
}

export interface GenericApiFake extends FakeServer<GenericState> {
  addItem(item: Partial<GenericItem> & { name: string }): GenericItem;
  updateItem(id: string, patch: Partial<GenericItem>): GenericItem;
  deleteItem(id: string): void;
}

const MAX_PAGE_SIZE = 1000;

export async function startGenericApiFake(options: GenericApiFakeOptions = {}): Promise<GenericApiFake> {
  const state: GenericState = { items: [], nextId: 1 };
  const store = new ItemStore(state);
  for (const item of options.items ?? []) store.add(item);

  const router = new Router()
    .get('/items', (ctx) => listItems(ctx, state, options.defaultPageSize ?? 50))
    .get('/items/:id', (ctx) => withItem(state, ctx, (item) => json(200, item)))
    .post('/items', (ctx) => withBody(ctx, (body) => createItem(store, body)))
    .put('/items/:id', (ctx) => withBody(ctx, (body) => patchItem(store, ctx, body)))
    .patch('/items/:id', (ctx) => withBody(ctx, (body) => patchItem(store, ctx, body)))
    .delete('/items/:id', (ctx) => withItem(state, ctx, (item) => deleteItem(store, item)))
    .on('*', '/echo', echo)
    .post('/echo-binary', echoBinary)
    .get('/files/big', bigFileHandler)
    .get('/slow', slowHandler);

  const fake = await startFakeServer(state, (ctx) => {
    if (!authorized(ctx, options)) return json(401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
    return router.dispatch(ctx) ?? json(404, { error: 'not_found' });
  });
  return {
    ...fake,
    addItem: (item) => store.add(item),
    updateItem: (id, patch) => store.update(id, patch),
    deleteItem: (id) => store.remove(id),
  };
}

class ItemStore {
  constructor(private readonly state: GenericState) {}

  add(item: Partial<GenericItem> & { name: string }): GenericItem {
    const created: GenericItem = {
      ...item,
      id: item.id ?? String(this.state.nextId++),
      name: item.name,
      updated_at: item.updated_at ?? new Date().toISOString(),
    };
    this.state.items.push(created);
    return created;
  }

  update(id: string, patch: Partial<GenericItem>): GenericItem {
    const item = this.state.items.find((i) => i.id === id);
    if (!item) throw new Error(`unknown item ${id}`);
    Object.assign(item, patch, { id, updated_at: patch.updated_at ?? laterThan(item.updated_at) });
    return item;
  }

  has(id: string): boolean {
    return this.state.items.some((i) => i.id === id);
  }

  remove(id: string): void {
    const index = this.state.items.findIndex((i) => i.id === id);
    if (index >= 0) this.state.items.splice(index, 1);
  }
}

/** Now, but strictly after `previous`, so incremental syncs always see the change. */
function laterThan(previous: string): string {
  const now = Date.now();
  const before = Date.parse(previous);
  return new Date(Number.isNaN(before) || now > before ? now : before + 1).toISOString();
}

function authorized(ctx: RequestContext, options: GenericApiFakeOptions): boolean {
  if (!options.bearer && !options.apiKey) return true;
  return (
    (options.bearer !== undefined && bearerToken(ctx.headers) === options.bearer) ||
    (options.apiKey !== undefined && ctx.headers['x-api-key'] === options.apiKey)
  );
}

function withBody(ctx: RequestContext, run: (body: Body) => Reply): Reply {
  try {
    return run(parseBody(ctx));
  } catch (err) {
    if (err instanceof BodyParseError) return json(400, { error: err.message });
    throw err;
  }
}

function withItem(state: GenericState, ctx: RequestContext, run: (item: GenericItem) => Reply): Reply {
  const item = state.items.find((i) => i.id === ctx.params['id']);
  return item ? run(item) : json(404, { error: 'not_found' });
}

/**
 * Page mode: ?page=N&per_page=M → {items, next_page}. Cursor mode: ?cursor=C&limit=M (cursor may be
 * empty for the first page) → {items, next_cursor}. Optional ?updated_after=ISO filter.
 */
function listItems(ctx: RequestContext, state: GenericState, defaultPageSize: number): Reply {
  const q = ctx.query;
  const updatedAfter = q.get('updated_after');
  const after = updatedAfter ? Date.parse(updatedAfter) : undefined;
  if (after !== undefined && Number.isNaN(after)) return json(400, { error: 'updated_after must be an ISO date' });
  const items = state.items.filter((i) => after === undefined || Date.parse(i.updated_at) > after);

  if (q.has('cursor') || q.has('limit')) {
    const limit = clampSize(parseIntParam(q.get('limit')) ?? defaultPageSize);
    const offset = q.get('cursor') ? decodeCursor(q.get('cursor') ?? '') : 0;
    if (offset === undefined) return json(400, { error: 'invalid cursor' });
    const end = offset + limit;
    return json(200, { items: items.slice(offset, end), next_cursor: end < items.length ? encodeCursor(end) : null });
  }
  const perPage = clampSize(parseIntParam(q.get('per_page')) ?? defaultPageSize);
  const page = Math.max(1, parseIntParam(q.get('page')) ?? 1);
  const start = (page - 1) * perPage;
  return json(200, {
    items: items.slice(start, start + perPage),
    next_page: start + perPage < items.length ? page + 1 : null,
  });
}

function clampSize(size: number): number {
  return Math.min(MAX_PAGE_SIZE, Math.max(1, size));
}

function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

/** Client-supplied fields, minus the server-owned id and updated_at. */
function clientFields(body: Body): Body {
  return Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'id' && key !== 'updated_at'));
}

function createItem(store: ItemStore, body: Body): Reply {
  const name = body['name'];
  if (typeof name !== 'string' || name === '') return json(400, { error: 'name is required' });
  return json(201, store.add({ ...clientFields(body), name }));
}

function patchItem(store: ItemStore, ctx: RequestContext, body: Body): Reply {
  const id = ctx.params['id'] ?? '';
  if (!store.has(id)) return json(404, { error: 'not_found' });
  return json(200, store.update(id, clientFields(body) as Partial<GenericItem>));
}

function deleteItem(store: ItemStore, item: GenericItem): Reply {
  store.remove(item.id);
  return { status: 204 };
}

const echo: Handler = (ctx) =>
  json(200, {
    method: ctx.method,
    path: ctx.path,
    query: Object.fromEntries(ctx.query),
    headers: ctx.headers,
    body: ctx.body,
  });

const echoBinary: Handler = (ctx) => ({
  status: 200,
  headers: { 'content-type': 'application/octet-stream' },
  body: ctx.rawBody,
});
