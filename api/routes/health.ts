import { Hono } from 'hono';
import { z } from 'zod';
import type { AppDeps, AppEnv } from '../context.js';
import { describeRoute } from '../openapi.js';

const healthResponse = z.object({
  result: z.enum(['ok', 'degraded']),
  database: z.object({ ok: z.boolean(), error: z.string().optional() }),
  temporal: z.object({ ok: z.boolean(), error: z.string().optional() }),
});

async function probe(fn: () => Promise<unknown>, timeoutMs: number): Promise<{ ok: boolean; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([fn(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)))]);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(deps: AppDeps) {
  describeRoute({
    method: 'get',
    path: '/health',
    summary: 'Liveness with database and Temporal reachability',
    tag: 'health',
    auth: 'none',
    response: healthResponse,
  });
  return new Hono<AppEnv>().get('/health', async (c) => {
    const [database, temporal] = await Promise.all([
      probe(() => deps.db.query('SELECT 1'), 2000),
      probe(() => deps.temporal.workflowService.getSystemInfo({}), 2000),
    ]);
    const ok = database.ok && temporal.ok;
    return c.json({ result: ok ? 'ok' : 'degraded', database, temporal } satisfies z.infer<typeof healthResponse>, ok ? 200 : 503);
  });
}
