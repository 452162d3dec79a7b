/**
 * @module api/routes/health — `GET /health`: liveness with database and Temporal reachability.
 */
import { z } from 'zod';
import { pingDatabase } from '../../lib/db/pool.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';

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

export const health = defineRoute({
  method: 'get',
  path: '/health',
  operationId: 'getHealth',
  summary: 'Liveness with database and Temporal reachability',
  tag: 'health',
  auth: 'none',
  responses: { 200: healthResponse, 503: { description: 'Degraded: the database or Temporal does not answer', schema: healthResponse } },
  errors: [],
}).handle(async ({ deps, reply }) => {
  const { database, temporal } = await probeShared(deps);
  const ok = database.ok && temporal.ok;
  return reply(ok ? 200 : 503, { result: ok ? 'ok' : 'degraded', database, temporal });
});

type Probed = { database: Awaited<ReturnType<typeof probe>>; temporal: Awaited<ReturnType<typeof probe>> };
const inFlight = new WeakMap<AppDeps, Promise<Probed>>();

/** Requests that arrive while a probe runs share its answer: a burst of health checks pings once, not once each. */
function probeShared(deps: AppDeps): Promise<Probed> {
  let pending = inFlight.get(deps);
  if (!pending) {
    pending = Promise.all([probe(() => pingDatabase(deps.db), 2000), probe(() => deps.temporal.workflowService.getSystemInfo({}), 2000)])
      .then(([database, temporal]) => ({ database, temporal }))
      .finally(() => inFlight.delete(deps));
    inFlight.set(deps, pending);
  }
  return pending;
}
