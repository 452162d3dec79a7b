import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProxyConfig, ScriptResponse } from '../../sdk/types.js';
import { paginate, withPaginateDefaults } from './paginate.js';

async function all<T>(gen: AsyncGenerator<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of gen) out.push(...page);
  return out;
}

test("a provider's paginate defaults apply where the script says nothing; the script's own settings win", () => {
  const defaults = { type: 'cursor' as const, cursor_name_in_request: 'page_token', cursor_path_in_response: 'meta.next', limit: 50 };
  assert.deepEqual(withPaginateDefaults(undefined, defaults), defaults);
  assert.deepEqual(withPaginateDefaults({ limit: 10 }, defaults), { ...defaults, limit: 10 });
  assert.deepEqual(withPaginateDefaults({ type: 'offset' }, defaults), { type: 'offset' });
  assert.equal(withPaginateDefaults(undefined, undefined), undefined);
});

test('link pagination from the Link response header', async () => {
  const seen: ProxyConfig[] = [];
  const send = async (c: ProxyConfig): Promise<ScriptResponse> => {
    seen.push(c);
    const page = Number((c.params as Record<string, unknown> | undefined)?.page ?? 1);
    const headers: Record<string, string> =
      page < 3 ? { link: `<https://api.test/items?page=${page + 1}>; rel="next", <https://api.test/items?page=3>; rel="last"` } : {};
    return { status: 200, headers, data: [{ id: page }] };
  };
  const items = await all(paginate<{ id: number }>(send, { endpoint: '/items', paginate: { type: 'link', link_rel_in_response_header: 'next' } }));
  assert.deepEqual(items, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  assert.deepEqual(
    seen.map((c) => (c.params as Record<string, unknown> | undefined)?.page ?? null),
    [null, '2', '3'],
  );
});

test('offset pagination by page number from a start value', async () => {
  const pages: unknown[] = [];
  const send = async (c: ProxyConfig): Promise<ScriptResponse> => {
    pages.push((c.params as Record<string, unknown> | undefined)?.page);
    const n = Number((c.params as Record<string, unknown> | undefined)?.page);
    return { status: 200, headers: {}, data: { results: n <= 2 ? [{ n }, { n }] : [] } };
  };
  const items = await all(
    paginate(send, {
      endpoint: '/x',
      paginate: { type: 'offset', offset_name_in_request: 'page', offset_start_value: 1, offset_calculation_method: 'per-page', response_path: 'results' },
    }),
  );
  assert.equal(items.length, 4);
  assert.deepEqual(pages, [1, 2, 3]);
});

test('page pagination: page numbers from page_start_value, a string query kept, on_page sees each raw page, a short page ends it', async () => {
  const sent: unknown[] = [];
  const send = async (c: ProxyConfig): Promise<ScriptResponse> => {
    const q = c.params as Record<string, unknown>;
    sent.push(q);
    const n = Number(q.p);
    return { status: 200, headers: {}, data: { data: { rows: n < 2 ? [{ n }, { n }] : [{ n }] } } };
  };
  const seen: unknown[] = [];
  const items = await all(
    paginate(send, {
      endpoint: '/rows',
      params: 'status=all&sort=id',
      paginate: {
        type: 'page',
        page_name_in_request: 'p',
        page_start_value: 0,
        limit: '2',
        limit_name_in_request: 'size',
        response_path: 'data.rows',
        on_page: async ({ nextPageParam, response }) => void seen.push([nextPageParam, response.status]),
      },
    }),
  );
  assert.deepEqual(
    items.map((i) => (i as { n: number }).n),
    [0, 0, 1, 1, 2],
  );
  assert.deepEqual(sent, [
    { status: 'all', sort: 'id', size: 2, p: 0 },
    { status: 'all', sort: 'id', size: 2, p: 1 },
    { status: 'all', sort: 'id', size: 2, p: 2 },
  ]);
  assert.deepEqual(seen, [
    [1, 200],
    [2, 200],
    [undefined, 200],
  ]);
});

test('the next page is requested while the caller handles this one; its position is saved only when the caller asks for it', async () => {
  const events: string[] = [];
  const send = async (c: ProxyConfig): Promise<ScriptResponse> => {
    const cursor = String((c.params as Record<string, unknown>).cursor ?? '0');
    events.push(`request ${cursor}`);
    const n = Number(cursor);
    return { status: 200, headers: {}, data: { items: [{ n }], next_cursor: n < 2 ? String(n + 1) : null } };
  };
  const resume = { start: null, save: async (pos: unknown) => void events.push(`save ${JSON.stringify(pos)}`) };
  for await (const page of paginate<{ n: number }>(send, { endpoint: '/x', paginate: { type: 'cursor', response_path: 'items' } }, resume)) {
    // The caller saving its page: the next request is already on its way.
    await new Promise((r) => setTimeout(r, 5));
    events.push(`saved page ${page[0]!.n}`);
  }
  assert.deepEqual(events, [
    'request 0',
    'request 1',
    'saved page 0',
    'save {"cursor":"1"}',
    'request 2',
    'saved page 1',
    'save {"cursor":"2"}',
    'saved page 2',
  ]);
});

test('a request made ahead that fails surfaces when its page is asked for, after the page before it was handled', async () => {
  let calls = 0;
  const send = async (): Promise<ScriptResponse> => {
    if (++calls === 2) throw new Error('upstream down');
    return { status: 200, headers: {}, data: { items: [{ n: calls }], next_cursor: 'more' } };
  };
  const handled: number[] = [];
  await assert.rejects(async () => {
    for await (const page of paginate<{ n: number }>(send, { endpoint: '/x', paginate: { type: 'cursor', response_path: 'items' } })) {
      await new Promise((r) => setTimeout(r, 5));
      handled.push(page[0]!.n);
    }
  }, /upstream down/);
  assert.deepEqual(handled, [1]);
});

test('a POST paginate sends each request only when its page is asked for (a search-style POST may not be safe to send early)', async () => {
  const events: string[] = [];
  const send = async (c: ProxyConfig): Promise<ScriptResponse> => {
    const cursor = String((c.params as Record<string, unknown>).cursor ?? '0');
    events.push(`${c.method} ${cursor}`);
    const n = Number(cursor);
    return { status: 200, headers: {}, data: { items: [{ n }], next_cursor: n < 2 ? String(n + 1) : null } };
  };
  for await (const page of paginate<{ n: number }>(send, { endpoint: '/search', method: 'POST', paginate: { type: 'cursor', response_path: 'items' } })) {
    events.push(`handled ${page[0]!.n}`);
  }
  assert.deepEqual(events, ['POST 0', 'handled 0', 'POST 1', 'handled 1', 'POST 2', 'handled 2']);

  // Offset and link paging too.
  const offsets: string[] = [];
  const byOffset = async (c: ProxyConfig): Promise<ScriptResponse> => {
    const at = Number((c.params as Record<string, unknown>).offset);
    offsets.push(`request ${at}`);
    return { status: 200, headers: {}, data: at < 2 ? [{ at }] : [] };
  };
  for await (const page of paginate<{ at: number }>(byOffset, { endpoint: '/q', method: 'post', paginate: { type: 'offset' } }))
    offsets.push(`handled ${page[0]!.at}`);
  assert.deepEqual(offsets, ['request 0', 'handled 0', 'request 1', 'handled 1', 'request 2']);
  const links: string[] = [];
  const byLink = async (c: ProxyConfig): Promise<ScriptResponse> => {
    const page = Number((c.params as Record<string, unknown> | undefined)?.page ?? 1);
    links.push(`request ${page}`);
    return { status: 200, headers: {}, data: { results: [{ page }], next: page < 2 ? `/q?page=${page + 1}` : null } };
  };
  const config = { endpoint: '/q', method: 'POST' as const, paginate: { type: 'link' as const, response_path: 'results' } };
  for await (const page of paginate<{ page: number }>(byLink, config)) links.push(`handled ${page[0]!.page}`);
  assert.deepEqual(links, ['request 1', 'handled 1', 'request 2', 'handled 2']);
});

test('a caller that stops after the first page caused at most one extra GET, and its failure is reported nowhere', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    let calls = 0;
    let failed!: () => void;
    const secondFailed = new Promise<void>((resolve) => (failed = resolve));
    const send = async (): Promise<ScriptResponse> => {
      if (++calls === 2) {
        failed();
        throw new Error('upstream down');
      }
      return { status: 200, headers: {}, data: { items: [{ n: calls }], next_cursor: String(calls) } };
    };
    for await (const page of paginate<{ n: number }>(send, { endpoint: '/x', paginate: { type: 'cursor', response_path: 'items' } })) {
      assert.deepEqual(page, [{ n: 1 }]);
      break;
    }
    await secondFailed;
    // Unhandled rejections are reported after the microtask queue drains: give it a macrotask turn.
    await new Promise((r) => setImmediate(r));
    assert.equal(calls, 2);
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
