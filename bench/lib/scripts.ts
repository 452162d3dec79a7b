/**
 * @module bench/lib/scripts — the scripts the benchmarks run, registered in-process as the pre-built
 * scripts of the `metabase` provider (whose base URL is the connection's `hostname`, or the
 * integration's `base_url` once patched): a no-op action making one HTTP call, a sync of ~1 KB
 * records paged 1000 at a time, and a small sync on a 1-minute schedule.
 */
import { z } from 'zod';
import { registerPrebuiltScripts } from '../../features/scripts/prebuilt.js';
import { createAction, createSync } from '../../sdk/index.js';

export const BENCH_PROVIDER = 'metabase';
/** The one upstream call of the no-op action (and of the floor's activity, and of the proxy benchmark). */
export const NOOP_UPSTREAM_PATH = '/items/1';

export const BenchItem = z.object({
  id: z.string(),
  name: z.string(),
  updated_at: z.string(),
  email: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  address: z.object({ street: z.string(), city: z.string(), zip: z.string(), country: z.string() }),
  score: z.number(),
  active: z.boolean(),
});

export const BenchTick = z.object({ id: z.string(), email: z.string() });

export const noopAction = createAction({
  description: 'one GET upstream, nothing else',
  endpoint: { method: 'POST', path: '/bench/noop' },
  input: z.object({}),
  output: z.object({ status: z.number() }),
  async exec(ctx) {
    const res = await ctx.get({ endpoint: NOOP_UPSTREAM_PATH });
    return { status: res.status };
  },
});

export const itemsSync = createSync({
  description: 'every item, 1000 per page (cursor paging)',
  frequency: 'every day',
  autoStart: false,
  syncType: 'full',
  endpoints: [{ method: 'GET', path: '/bench/items' }],
  models: { BenchItem },
  async exec(ctx) {
    for await (const page of ctx.paginate<z.infer<typeof BenchItem>>({
      endpoint: '/items',
      paginate: {
        type: 'cursor',
        response_path: 'items',
        limit: 1000,
        limit_name_in_request: 'limit',
        cursor_name_in_request: 'cursor',
        cursor_path_in_response: 'next_cursor',
      },
    })) {
      await ctx.batchSave(page, 'BenchItem');
    }
  },
});

export const tickSync = createSync({
  description: 'a few users, every minute',
  frequency: 'every minute',
  autoStart: true,
  syncType: 'full',
  endpoints: [{ method: 'GET', path: '/bench/ticks' }],
  models: { BenchTick },
  async exec(ctx) {
    for await (const page of ctx.paginate<{ id: number; email: string }>({
      endpoint: '/api/user',
      params: { status: 'all' },
      paginate: { type: 'offset', response_path: 'data', limit: 100, limit_name_in_request: 'limit', offset_name_in_request: 'offset' },
    })) {
      await ctx.batchSave(
        page.map((u) => ({ id: String(u.id), email: u.email })),
        'BenchTick',
      );
    }
  },
});

/** In place of the provider's own pre-built scripts; called after start/platform.ts has registered those (at its load). */
export function registerBenchScripts(): void {
  registerPrebuiltScripts(BENCH_PROVIDER, { 'bench-noop': noopAction, 'bench-items': itemsSync, 'bench-ticks': tickSync });
}
