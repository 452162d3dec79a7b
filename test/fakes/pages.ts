/**
 * @module fakes/pages — a paged list API whose `next` link may point at another host: run two of
 * them, a provider (`next` set to the other's origin) and a foreign host, and read from each one's
 * recorded requests which credentials it received. Also answers Metabase's credential check.
 */
import { Router, json, startFakeServer, type FakeServer } from './server.js';

export interface PagesFakeOptions {
  /** Origin the first page's `next` link points to (absolute); none: a single page. */
  nextOrigin?: string;
}

export async function startPagesFake(options: PagesFakeOptions = {}): Promise<FakeServer<Record<string, never>>> {
  const router = new Router()
    .get('/api/user/current', () => json(200, { id: 1, email: 'key@example.com' }))
    .get('/pages', (ctx) => {
      const page = Number(ctx.query.get('page') ?? '1');
      const next = page === 1 && options.nextOrigin ? `${options.nextOrigin}/pages?page=2` : null;
      return json(200, { items: [{ id: `${ctx.origin}#${page}` }], next });
    });
  return startFakeServer({}, (ctx) => router.dispatch(ctx) ?? json(404, { error: 'not_found' }));
}
