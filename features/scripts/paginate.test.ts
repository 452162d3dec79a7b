import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProxyConfig, ScriptResponse } from '../../integrations/sdk/types.js';
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
