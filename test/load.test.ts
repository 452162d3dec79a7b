/**
 * A short load test on loopback: read routes and the action route at concurrency 16, bounded in
 * request count. Reports error rate and latency; expects 0 errors. Latency is printed, never asserted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Agent, request } from 'undici';
import { z } from 'zod';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { createAction } from '../sdk/index.js';
import { startMetabaseFake } from './fakes/index.js';
import { connectMetabase, startTestPlatform, type TestPlatform } from './harness.js';

registerPrebuiltScripts('metabase', {
  ...metabaseScripts,
  whoami: createAction({
    description: 'reads the current user',
    endpoint: { method: 'GET', path: '/whoami' },
    input: z.object({}),
    output: z.object({ email: z.string() }),
    async exec(ctx) {
      return { email: (await ctx.get<{ email: string }>({ endpoint: '/api/user/current' })).data.email };
    },
  }),
});

interface LoadResult {
  route: string;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  perSecond: number;
}

// `npm run test:soak` runs ten times as many requests.
const SCALE = process.env.SWITCHYARD_SOAK ? 10 : 1;

async function load(route: string, count: number, concurrency: number, send: () => Promise<number>): Promise<LoadResult> {
  const total = count * SCALE;
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        const status = await send().catch(() => 0);
        latencies.push(performance.now() - t0);
        if (status < 200 || status >= 300) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]! * 10) / 10;
  return { route, requests: latencies.length, errors, p50: pct(0.5), p99: pct(0.99), perSecond: Math.round(latencies.length / seconds) };
}

describe('load', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  const agent = new Agent({ connections: 32 });

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: 'mb_load=' });
    await connectMetabase(t, metabase.url, 'mb_load=', { endpoints: ['GET /whoami'] });
  });
  after(async () => {
    await agent.close();
    await t?.stop();
    await metabase?.close();
  });

  test('read routes and the action route under load: 0 errors', async () => {
    const auth = { authorization: `Bearer ${t.devKey}` };
    const conn = { ...auth, 'connection-id': 'acme', 'provider-config-key': 'metabase' };
    const get = (path: string, headers: Record<string, string>) => async () => {
      const res = await request(`${t.url}${path}`, { dispatcher: agent, headers });
      await res.body.dump();
      return res.statusCode;
    };
    const results = [
      await load('GET /health', 2000, 16, get('/health', {})),
      await load('GET /connections', 2000, 16, get('/connections', auth)),
      await load('GET /records', 2000, 16, get('/records?model=User&limit=100', conn)),
      await load('GET /connections/:id', 1000, 16, get('/connections/acme?provider_config_key=metabase', auth)),
      await load('action GET /whoami', 300, 16, get('/whoami', conn)),
    ];
    console.table(results);
    console.log(JSON.stringify({ load: results }));
    for (const r of results) assert.equal(r.errors, 0, `${r.route}: ${r.errors} errors`);
  });
});
