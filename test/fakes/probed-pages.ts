/**
 * @module fakes/probed-pages — a cursor-paged list (`GET /pages`, and the same as a search,
 * `POST /search`) of `pages` pages, and `GET /probe?page=N`, which answers whether the request for
 * page N of the latest listing has reached it yet (true for a page past the last) and records the answer. A script that
 * probes between pages shows, with no timing, whether its paginate asked for the next page before
 * its work on the current one ended. A list request with `fail_at=N` for page N is answered 400 (an error no retry repairs).
 */
import { Router, json, startFakeServer, type FakeServer, type RequestContext } from './server.js';

export interface ProbedPagesState {
  /** Each probe's answer, in order: `<page> arrived` or `<page> missing`. */
  probes: string[];
}

const LISTS = ['/pages', '/search'];

/** The page a list request asks for: its `cursor`, 0 without one. */
export const pageOf = (query: Record<string, string>) => Number(query.cursor ?? '0');

export async function startProbedPagesFake(options: { pages: number }): Promise<FakeServer<ProbedPagesState>> {
  const state: ProbedPagesState = { probes: [] };
  const list = (ctx: RequestContext) => {
    const page = pageOf(Object.fromEntries(ctx.query));
    if (ctx.query.get('fail_at') === String(page)) return json(400, { error: 'page unavailable' });
    const next = page + 1 < options.pages ? String(page + 1) : null;
    return json(200, { items: [0, 1].map((i) => ({ id: `${ctx.path.slice(1)}-${page}-${i}`, page })), next_cursor: next });
  };
  const router = new Router()
    .get('/api/user/current', () => json(200, { id: 1, email: 'key@example.com' }))
    .get('/pages', list)
    .post('/search', list)
    .get('/probe', (ctx) => {
      const page = Number(ctx.query.get('page'));
      // Since the latest listing began (its page 0): runs list one after the other.
      const lists = fake.requests.filter((r) => LISTS.includes(r.path));
      const since = lists.slice(lists.findLastIndex((r) => pageOf(r.query) === 0));
      const arrived = page >= options.pages || since.some((r) => pageOf(r.query) === page);
      state.probes.push(`${page} ${arrived ? 'arrived' : 'missing'}`);
      return json(200, { arrived });
    });
  const fake: FakeServer<ProbedPagesState> = await startFakeServer(state, (ctx) => router.dispatch(ctx) ?? json(404, { error: 'not_found' }));
  return fake;
}
