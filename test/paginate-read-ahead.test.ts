/**
 * paginate's read-ahead (features/scripts/paginate.ts), through the platform, for a deployed script
 * (its paginate runs on the host, behind the sandbox's bridge): once a GET page is handed to the
 * script, the next page's request reaches the provider while the script still works on the current
 * page; a POST paginate sends each page's request only when the script asks for it; an error of a
 * page requested ahead fails the run only when the script asks for that page; a script that stops
 * after its first page caused one request it did not use, and the run succeeds. The script's "work"
 * on each page asks the fake whether the next page's request has arrived, so nothing depends on time.
 * A pre-built script runs on the platform's own thread: there the next page's request has reached the
 * provider by the time the page is handed over, though the script then works without waiting on I/O.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { z } from 'zod';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { createSync } from '../sdk/index.js';
import { deployScripts } from './deploy-scripts.js';
import { startMetabaseFake, type FakeServer } from './fakes/index.js';
import { pageOf, startProbedPagesFake, type ProbedPagesState } from './fakes/probed-pages.js';
import { addItemsApiIntegration, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const API_KEY = 'mb_read_ahead=';
const KEY = 'read-ahead';
/** The integration of the pre-built script (its provider's pre-built scripts, none deployed). */
const HOST_KEY = 'read-ahead-host';
/** Probes of one page before the script goes on: enough for a request already sent to arrive. */
const PROBES = 20;

/**
 * A sync over `endpoint` that probes for the next page between pages; `stopAfter`: it breaks after
 * that many pages; `failAt`: the provider answers that page 400.
 */
function pagedSync(opts: { model: string; endpoint: string; method: 'GET' | 'POST'; stopAfter?: number; failAt?: number }): string {
  return `import { z } from 'zod';
import { createSync } from 'switchyard/sdk';

export default createSync({
  description: 'pages of ${opts.method} ${opts.endpoint}, probing between them',
  frequency: 'every day',
  autoStart: false,
  syncType: 'full',
  endpoints: [{ method: 'GET', path: '/${opts.model.toLowerCase()}' }],
  models: { ${opts.model}: z.object({ id: z.string(), page: z.number() }) },
  exec: async (nango) => {
    let pages = 0;
    for await (const rows of nango.paginate<{ id: string; page: number }>({
      endpoint: '${opts.endpoint}',
      method: '${opts.method}',${opts.failAt === undefined ? '' : `\n      params: { fail_at: '${opts.failAt}' },`}
      paginate: { type: 'cursor', cursor_name_in_request: 'cursor', cursor_path_in_response: 'next_cursor', response_path: 'items' },
    })) {
      pages++;
      for (let i = 0; i < ${PROBES}; i++) {
        const res = await nango.get<{ arrived: boolean }>({ endpoint: '/probe', params: { page: String(rows[0]!.page + 1) } });
        if (res.data.arrived) break;
      }
      await nango.batchSave(rows, '${opts.model}');
      if (pages === ${opts.stopAfter ?? 0}) break;
    }
  },
});
`;
}

let provider: FakeServer<ProbedPagesState>;
/** Per page handed to the pre-built script: whether the provider had the next page's request (since `listedFrom`) at that moment. */
const atHandover: string[] = [];
let listedFrom = 0;

registerPrebuiltScripts('metabase', {
  ...metabaseScripts,
  'host-rows': createSync({
    description: 'pages of GET /pages, checked on the spot',
    frequency: 'every day',
    autoStart: false,
    syncType: 'full',
    endpoints: [{ method: 'GET', path: '/host-rows' }],
    models: { HostRow: z.object({ id: z.string(), page: z.number() }) },
    async exec(ctx) {
      const pages = ctx.paginate<{ id: string; page: number }>({
        endpoint: '/pages',
        paginate: { type: 'cursor', cursor_name_in_request: 'cursor', cursor_path_in_response: 'next_cursor', response_path: 'items' },
      });
      for await (const rows of pages) {
        // Synchronously, before anything that waits: the provider's requests as they stand now.
        const next = rows[0]!.page + 1;
        const arrived = provider.requests.slice(listedFrom).some((r) => r.path === '/pages' && pageOf(r.query) === next);
        atHandover.push(`${next} ${arrived ? 'arrived' : 'missing'}`);
        await ctx.batchSave(rows, 'HostRow');
      }
    },
  }),
});

describe('paginate reads one GET page ahead, through the platform', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;

  const q = async (sql: string, args: unknown[] = []) => (await t.platform.deps.db.query(sql, args)).rows as Json[];
  async function run(sync: string, key = KEY): Promise<Json> {
    const runs = () => q(`SELECT status, results, error FROM sync_runs WHERE sync_name = $1 ORDER BY started_at`, [sync]);
    const n = (await runs()).length;
    await nango.triggerSync(key, [sync], 'acme');
    return waitFor(`the ${sync} run to finish`, async () => {
      const r = (await runs())[n];
      return r && r.status !== 'RUNNING' ? r : null;
    });
  }
  const stored = async (model: string) =>
    (await q(`SELECT external_id FROM records WHERE model = $1 ORDER BY external_id`, [model])).map((r) => r.external_id as string);
  /** The provider's requests of `path` (and the probes), in arrival order, from `from` on. */
  const arrivals = (from: number, path: string) =>
    provider.requests
      .slice(from)
      .filter((r) => r.path === path || r.path === '/probe')
      .map((r) => (r.path === '/probe' ? `probe ${r.query.page}` : `${r.method} ${pageOf(r.query)}`));

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    provider = await startProbedPagesFake({ pages: 3 });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    await addItemsApiIntegration(t, { key: KEY, connectionId: 'acme', apiKey: API_KEY, metabaseUrl: metabase.url, itemsUrl: provider.url });
    await deployScripts(t, KEY, {
      'syncs/get-rows.ts': pagedSync({ model: 'GetRow', endpoint: '/pages', method: 'GET' }),
      'syncs/search-rows.ts': pagedSync({ model: 'SearchRow', endpoint: '/search', method: 'POST' }),
      'syncs/failing-rows.ts': pagedSync({ model: 'FailingRow', endpoint: '/pages', method: 'GET', failAt: 2 }),
      'syncs/first-rows.ts': pagedSync({ model: 'FirstRow', endpoint: '/pages', method: 'GET', failAt: 1, stopAfter: 1 }),
    });
    await addItemsApiIntegration(t, { key: HOST_KEY, connectionId: 'acme', apiKey: API_KEY, metabaseUrl: metabase.url, itemsUrl: provider.url });
    const enabled = await t.api(`/integrations/${HOST_KEY}/endpoints`, {
      method: 'PATCH',
      json: { endpoints: [{ method: 'GET', path: '/host-rows', enabled: true }] },
    });
    assert.equal(enabled.status, 200, await enabled.clone().text());
  });
  after(async () => {
    await t?.stop();
    await provider?.close();
    await metabase?.close();
  });

  test("a GET page's next page reaches the provider while the script still works on this one", async () => {
    const from = provider.requests.length;
    const probes = provider.state.probes.length;
    const done = await run('get-rows');
    assert.equal(done.status, 'SUCCESS', JSON.stringify(done));
    assert.deepEqual(await stored('GetRow'), ['pages-0-0', 'pages-0-1', 'pages-1-0', 'pages-1-1', 'pages-2-0', 'pages-2-1']);
    const seen = arrivals(from, '/pages');
    // Each page's last probe (the end of the script's work on the page before) found the page's request arrived.
    for (const page of ['1', '2'])
      assert.equal(
        provider.state.probes.slice(probes).findLast((p) => p.startsWith(`${page} `)),
        `${page} arrived`,
        seen.join(', '),
      );
    assert.deepEqual(
      seen.filter((s) => s.startsWith('GET')),
      ['GET 0', 'GET 1', 'GET 2'],
      'each page requested once',
    );
  });

  test("a pre-built script's next page has reached the provider when its page is handed over, though the script does not wait on I/O", async () => {
    atHandover.length = 0;
    listedFrom = provider.requests.length;
    const done = await run('host-rows', HOST_KEY);
    assert.equal(done.status, 'SUCCESS', JSON.stringify(done));
    assert.deepEqual(await stored('HostRow'), ['pages-0-0', 'pages-0-1', 'pages-1-0', 'pages-1-1', 'pages-2-0', 'pages-2-1']);
    // Page 3 does not exist: the last page's check finds nothing to have arrived.
    assert.deepEqual(atHandover, ['1 arrived', '2 arrived', '3 missing']);
  });

  test('a POST paginate sends each request only when the script asks for its page', async () => {
    const from = provider.requests.length;
    const done = await run('search-rows');
    assert.equal(done.status, 'SUCCESS', JSON.stringify(done));
    assert.deepEqual(await stored('SearchRow'), ['search-0-0', 'search-0-1', 'search-1-0', 'search-1-1', 'search-2-0', 'search-2-1']);
    const probesOf = (page: number) => Array.from({ length: PROBES }, () => `probe ${page}`);
    assert.deepEqual(arrivals(from, '/search'), ['POST 0', ...probesOf(1), 'POST 1', ...probesOf(2), 'POST 2', 'probe 3']);
  });

  test('an error of the page requested ahead fails the run when the script asks for that page, after the page before it was saved', async () => {
    const from = provider.requests.length;
    const done = await run('failing-rows');
    assert.equal(done.status, 'ERROR', JSON.stringify(done));
    assert.match(done.error.description, /answered 400 .*cursor=2/);
    // Page 2 failed while the script still worked on page 1 (it was asked for ahead), yet page 1 was saved.
    const seen = arrivals(from, '/pages');
    assert.ok(seen.indexOf('GET 2') < seen.lastIndexOf('probe 2'), seen.join(', '));
    assert.deepEqual(await stored('FailingRow'), ['pages-0-0', 'pages-0-1', 'pages-1-0', 'pages-1-1']);
  });

  test('a script that stops after its first page caused one request it did not use; its failure is reported nowhere and the run succeeds', async () => {
    const from = provider.requests.length;
    const done = await run('first-rows');
    assert.equal(done.status, 'SUCCESS', JSON.stringify(done));
    assert.deepEqual(await stored('FirstRow'), ['pages-0-0', 'pages-0-1']);
    assert.deepEqual(
      arrivals(from, '/pages').filter((s) => s.startsWith('GET')),
      ['GET 0', 'GET 1'],
    );
  });
});
