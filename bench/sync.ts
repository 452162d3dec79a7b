/**
 * @module bench/sync — sync ingest, re-sync and records read, on one dataset of ~1 KB records.
 *
 * - sync ingest: one full sync of N records (default 100k) from the generic fake, paged 1000 at a
 *   time, into the records cache. Floor: the same rows (JSON, md5 hash) inserted into an equivalent
 *   table (same columns, unique key and cursor index) with multi-row INSERTs of 1000 rows, measured
 *   before and after the sync. Context: fetching the pages alone, and fetch + insert.
 * - re-sync: the same sync again, nothing changed upstream: time against the first sync, and rows
 *   written in `records` (must be 0; checked three ways: the run's counts, the cursor sequence, and
 *   PostgreSQL's own tuple counters).
 * - records read: `GET /records` of every record, limit 1000, following next_cursor. Floor: a
 *   SELECT of the same rows and columns, keyset-paged the same way, in alternating rounds.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { Agent, request } from 'undici';
import { startGenericApiFake, startMetabaseFake, type GenericItem } from '../test/fakes/index.js';
import { numberFlag, type BenchContext, type BenchGroup } from './lib/context.js';
import { ApiClient, benchDb, platformEnv, spawnPlatform, type PlatformEnv } from './lib/platform.js';
import { baselineTree } from './lib/baseline.js';
import { freePort } from '../lib/embedded/temporal.js';
import { API_KEY, connectionHeaders, createConnection, createIntegration, INTEGRATION } from './lib/setup.js';
import { cpuBreakdown, cpuSnapshot, formatCpu, resetStatements, round, sleep, summarize, topStatements, waitUntil, type BenchResult } from './lib/stats.js';
import { SYNC_INGEST_REVERTS } from './lib/baseline.js';
import type { PlatformProcess } from './lib/platform.js';
import type { Db } from '../lib/db/pool.js';
import { deletionCheck } from './delete-check.js';

const PAGE = 1000;
/**
 * The changes records read's before/after reverts (bench/lib/baseline.ts): issue 32's, so "before" is
 * the read path as issue 20 left it. (Issue 20's own reverts, records-lookup and records-read-text,
 * no longer apply: the route and read.ts changed since.)
 */
const RECORDS_READ_CHANGES = ['records-read-direct', 'records-read-copy', 'records-read-bytes'];
const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');

/** A deterministic record of about 1 KB of JSON. */
export function benchItem(i: number): GenericItem {
  const words: string[] = [];
  for (let k = 0; words.join(' ').length < 745; k++) words.push(WORDS[(i * 7 + k * 13) % WORDS.length]!);
  return {
    id: String(i + 1),
    name: `Item ${i + 1}`,
    updated_at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
    email: `user${i + 1}@example.com`,
    description: words.join(' '),
    tags: [`t${i % 10}`, `g${i % 7}`, `k${i % 3}`],
    address: { street: `${(i % 999) + 1} Main Street`, city: ['Lisbon', 'Paris', 'Berlin', 'Oslo'][i % 4]!, zip: String(10000 + (i % 89999)), country: 'PT' },
    score: (i % 1000) / 10,
    active: i % 5 !== 0,
  };
}

interface SyncRunRow {
  id: string;
  status: string;
  results: Record<string, { added: number; updated: number; deleted: number }>;
  started_at: Date;
  finished_at: Date | null;
  ms: number;
}

export const syncs: BenchGroup = {
  names: ['sync-ingest', 'resync', 'records-read', 'sync-delete-check'],
  async run(ctx: BenchContext): Promise<BenchResult[]> {
    const results: BenchResult[] = [];
    if (ctx.selected.has('sync-delete-check')) results.push(await deletionCheck(ctx));
    if (!['sync-ingest', 'resync', 'records-read'].some((n) => ctx.selected.has(n))) return results;
    const n = numberFlag(ctx, 'records', 100_000);
    ctx.say(`sync: generating ${n} records`);
    const items = Array.from({ length: n }, (_, i) => benchItem(i));
    const avgBytes = Math.round(items.slice(0, 1000).reduce((a, it) => a + Buffer.byteLength(JSON.stringify(it)), 0) / Math.min(1000, n));
    const generic = await startGenericApiFake({ apiKey: API_KEY, items });
    const metabase = await startMetabaseFake({ apiKey: API_KEY });
    const p = await platformEnv(ctx.services, 'sync');
    const platform = await spawnPlatform(p, { role: 'all', cpuProfDir: ctx.cpuProfDir });
    const api = new ApiClient(p.url, p.devKey);
    const db = benchDb(p);
    try {
      const connectionPk = await connectBench(api, db, generic.url, metabase.url);

      // ---- floors ----
      await db.query('CREATE TABLE floor_records (LIKE records INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)');
      const fetchOnly = await fetchAllPages(generic.url);
      ctx.say(`sync: fetch-only floor ${fetchOnly.ms.toFixed(0)} ms for ${fetchOnly.rows} rows`);
      const insertBefore = await insertFloor(db, connectionPk, items);
      ctx.say(`sync: insert floor (before) ${insertBefore.toFixed(0)} ms`);
      await db.query('TRUNCATE floor_records');
      const fetchInsert = await fetchAndInsertFloor(db, connectionPk, generic.url);
      ctx.say(`sync: fetch+insert floor ${fetchInsert.toFixed(0)} ms`);
      await db.query('TRUNCATE floor_records');
      await db.query('CHECKPOINT');
      generic.requests.length = 0;

      // ---- first sync ----
      const pgss = ctx.services.pgStatStatements;
      if (pgss) await resetStatements(db);
      const first = await runSync(api, db, connectionPk, ctx, platform);
      ctx.say(`sync: first sync ${first.cpu}`);
      const firstStatements = pgss ? await topStatements(db) : [];
      for (const line of firstStatements) ctx.say(`sync: first sync statement ${line}`);
      const firstCount = (
        await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM records WHERE connection_pk = $1 AND model = 'BenchItem' AND deleted_at IS NULL`, [
          connectionPk,
        ])
      ).rows[0]!.n;
      ctx.say(`sync: first sync ${first.ms.toFixed(0)} ms, ${firstCount} records`);
      const insertAfter = await insertFloor(db, connectionPk, items);
      ctx.say(`sync: insert floor (after) ${insertAfter.toFixed(0)} ms`);
      await db.query('DROP TABLE floor_records');
      const floorMs = (insertBefore + insertAfter) / 2;
      const syncRate = n / (first.ms / 1000);
      const floorRate = n / (floorMs / 1000);
      const fetchInsertRate = n / (fetchInsert / 1000);
      if (ctx.selected.has('sync-ingest')) {
        results.push({
          name: 'sync-ingest',
          rows: [
            {
              metric: `rows/s (${n} × ${avgBytes} B)`,
              switchyard: syncRate,
              floor: floorRate,
              unit: 'rows/s',
              ratio: syncRate / floorRate,
              goal: '≥ 0.7×',
              met: syncRate / floorRate >= 0.7,
            },
            { metric: 'context: vs fetch + insert', switchyard: syncRate, floor: fetchInsertRate, unit: 'rows/s', ratio: syncRate / fetchInsertRate },
            { metric: 'time', switchyard: first.ms, floor: floorMs, unit: 'ms' },
            { metric: 'context: fetch pages only', switchyard: '', floor: fetchOnly.ms, unit: 'ms' },
          ],
          details: {
            records: n,
            avgRecordBytes: avgBytes,
            firstSync: { ms: round(first.ms, 0), dbMs: first.run.ms, results: first.run.results, stored: firstCount, cpu: first.cpu },
            floorInsertMs: { before: round(insertBefore, 0), after: round(insertAfter, 0) },
            fetchOnlyMs: round(fetchOnly.ms, 0),
            fetchInsertMs: round(fetchInsert, 0),
            ...(pgss ? { statements: firstStatements } : {}),
          },
          notes: [`sync: trigger → run finished, ${first.run.results.BenchItem?.added ?? 0} added; floor: mean of a run before and after the sync`],
        });
      }

      // ---- re-sync ----
      // PostgreSQL publishes a backend's tuple counters within ~10 s of its last transaction: let
      // the first sync's land before the snapshot.
      const settle = 11_000 - (performance.now() - first.endedAt);
      if (settle > 0) await sleep(settle);
      const statsBefore = await tupleStats(db);
      const cursorBefore = await maxCursor(db, connectionPk);
      const resyncStartedAt = new Date();
      if (pgss) await resetStatements(db);
      const second = await runSync(api, db, connectionPk, ctx, platform);
      ctx.say(`sync: re-sync ${second.cpu}`);
      const secondStatements = pgss ? await topStatements(db) : [];
      for (const line of secondStatements) ctx.say(`sync: re-sync statement ${line}`);
      const cursorAfter = await maxCursor(db, connectionPk);
      const touched = (
        await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM records WHERE connection_pk = $1 AND last_modified_at >= $2`, [
          connectionPk,
          resyncStartedAt,
        ])
      ).rows[0]!.n;
      const resyncEnded = Date.now();
      ctx.say(`sync: re-sync ${second.ms.toFixed(0)} ms`);

      // ---- records read ----
      if (ctx.selected.has('records-read')) {
        const rounds = numberFlag(ctx, 'read-rounds', 3);
        if (pgss) await resetStatements(db);
        const agent = new Agent({ connections: 4 });
        // The baseline's API (bench/lib/baseline.ts) on the same database, read in the same rounds: before/after.
        const baseline = ctx.flags['no-baseline'] ? null : await startBaselineApi(ctx, p);
        if (baseline && 'unavailable' in baseline) ctx.say(`sync: records read before/after: baseline unavailable (${baseline.unavailable})`);
        const before = baseline && 'url' in baseline ? baseline : null;
        const sy: { ms: number; rows: number; pages: number[] }[] = [];
        const fl: { ms: number; rows: number; pages: number[] }[] = [];
        const bf: { ms: number; rows: number; pages: number[] }[] = [];
        const cpu: string[] = [];
        try {
          for (let r = 0; r < rounds; r++) {
            const sides = before ? ['sy', 'fl', 'bf'] : ['sy', 'fl'];
            const order = sides.map((_, i) => sides[(i + r) % sides.length]!);
            for (const side of order) {
              const cpu0 = cpuSnapshot();
              const res =
                side === 'sy'
                  ? await readAllViaApi(p.url, p.devKey, agent)
                  : side === 'bf'
                    ? await readAllViaApi(before!.url, p.devKey, agent)
                    : await readAllViaSelect(db, connectionPk);
              (side === 'sy' ? sy : side === 'bf' ? bf : fl).push(res);
              const named: Record<string, number> = side === 'sy' ? { switchyard: platform.pid } : side === 'bf' ? { 'switchyard (before)': before!.pid } : {};
              // Every round's: round 1 follows the re-sync in the same API process and carries its garbage.
              cpu.push(
                `round ${r + 1} ${side === 'sy' ? 'api' : side === 'bf' ? 'api before' : 'select'}: ${formatCpu(cpuBreakdown(cpu0, cpuSnapshot(), named), res.ms / 1000)}`,
              );
            }
            ctx.say(
              `sync: read round ${r + 1}/${rounds}: api ${sy.at(-1)!.ms.toFixed(0)} ms, select ${fl.at(-1)!.ms.toFixed(0)} ms${before ? `, api before ${bf.at(-1)!.ms.toFixed(0)} ms` : ''}`,
            );
            // Where a round's time went: its pages' own times (p50, p90, max, sum) against the round's.
            for (const [name, xs] of [
              ['api', sy],
              ['select', fl],
            ] as const) {
              const last = xs.at(-1)!;
              const s = summarize(last.pages);
              const sum = last.pages.reduce((a, x) => a + x, 0);
              ctx.say(
                `sync: read round ${r + 1} ${name} pages: p50 ${s.p50.toFixed(2)}, p90 ${s.p90.toFixed(2)}, max ${s.max.toFixed(1)} ms; sum ${sum.toFixed(0)} of ${last.ms.toFixed(0)} ms`,
              );
            }
          }
        } finally {
          await before?.stop();
        }
        for (const line of cpu) ctx.say(`sync: records read ${line}`);
        await agent.close();
        for (const line of pgss ? await topStatements(db, 6) : []) ctx.say(`sync: records read statement ${line}`);
        const rowsRead = sy[0]!.rows;
        const syMs = sy.reduce((a, x) => a + x.ms, 0) / sy.length;
        const flMs = fl.reduce((a, x) => a + x.ms, 0) / fl.length;
        const syRate = rowsRead / (syMs / 1000);
        const flRate = fl[0]!.rows / (flMs / 1000);
        const syPage = summarize(sy.flatMap((x) => x.pages));
        const flPage = summarize(fl.flatMap((x) => x.pages));
        results.push({
          name: 'records-read',
          rows: [
            {
              metric: 'rows/s (limit 1000)',
              switchyard: syRate,
              floor: flRate,
              unit: 'rows/s',
              ratio: syRate / flRate,
              goal: '≥ 0.8×',
              met: syRate / flRate >= 0.8,
            },
            { metric: 'time for all', switchyard: syMs, floor: flMs, unit: 'ms' },
            { metric: 'page p50', switchyard: syPage.p50, floor: flPage.p50, unit: 'ms', ratio: syPage.p50 / flPage.p50 },
            ...(bf.length
              ? [
                  {
                    metric: 'change: rows/s (floor = before)',
                    switchyard: syRate,
                    floor: rowsRead / (mean(bf) / 1000),
                    unit: 'rows/s',
                    ratio: mean(bf) / syMs,
                  },
                  { metric: 'change: ratio to SELECT, before', switchyard: '', floor: rowsRead / (mean(bf) / 1000), unit: 'rows/s', ratio: flMs / mean(bf) },
                ]
              : []),
          ],
          details: {
            rowsRead,
            floorRows: fl[0]!.rows,
            rounds,
            apiMs: sy.map((x) => round(x.ms, 0)),
            selectMs: fl.map((x) => round(x.ms, 0)),
            beforeMs: bf.map((x) => round(x.ms, 0)),
            cpu,
          },
          notes: [
            `${rounds} rotating rounds of ${Math.ceil(rowsRead / PAGE)} pages; floor: SELECT data::text and the metadata columns, keyset on cursor`,
            ...cpu,
            ...(bf.length ? ['before = an API process of the baseline tree (bench/lib/baseline.ts) on the same database, read in the same rounds'] : []),
          ],
        });
      }

      // ---- before: the same two syncs on a copy of the tree without the ingest changes ----
      let before: { first: number; resync: number } | null = null;
      let beforeNote = 'before: not measured (--no-baseline)';
      if (!ctx.flags['no-baseline'] && ctx.flags['baseline'] !== 'false') {
        const tree = await baselineTree(path.join(ctx.services.workDir, `sync-before-${randomBytes(3).toString('hex')}`), SYNC_INGEST_REVERTS);
        if ('root' in tree) {
          before = await syncsBefore(ctx, tree.root, generic.url, metabase.url);
          beforeNote = `before = this tree with ${SYNC_INGEST_REVERTS.join(', ')} reverted (bench/lib/baseline.ts), its own database, run after the current tree's syncs`;
        } else beforeNote = `before: baseline unavailable (${tree.unavailable})`;
      }
      const ingest = results.find((r) => r.name === 'sync-ingest');
      if (ingest && before) {
        ingest.rows.push({ metric: 'first sync, before → after', switchyard: first.ms, floor: before.first, unit: 'ms', ratio: before.first / first.ms });
        ingest.rows.push({
          metric: 'before: rows/s vs INSERT floor',
          switchyard: n / (before.first / 1000),
          floor: floorRate,
          unit: 'rows/s',
          ratio: floorMs / before.first,
        });
        ingest.notes = [...(ingest.notes ?? []), beforeNote];
      }

      if (ctx.selected.has('resync')) {
        const wait = 11_000 - (Date.now() - resyncEnded);
        if (wait > 0) await sleep(wait);
        const statsAfter = await tupleStats(db);
        const pgWrites = statsAfter.ins + statsAfter.upd + statsAfter.del - (statsBefore.ins + statsBefore.upd + statsBefore.del);
        const r2 = second.run.results.BenchItem ?? { added: 0, updated: 0, deleted: 0 };
        const rewritten = r2.added + r2.updated + r2.deleted;
        const speedup = first.ms / second.ms;
        results.push({
          name: 'resync',
          rows: [
            { metric: 'time (floor: first sync)', switchyard: second.ms, floor: first.ms, unit: 'ms', ratio: speedup, goal: '≥ 3× faster', met: speedup >= 3 },
            { metric: 'rows rewritten (run counts)', switchyard: rewritten, floor: 0, unit: 'rows', goal: '0', met: rewritten === 0 },
            { metric: 'rows written (pg_stat records)', switchyard: pgWrites, floor: 0, unit: 'rows', goal: '0', met: pgWrites === 0 },
            ...(before
              ? [
                  { metric: 're-sync, before → after', switchyard: second.ms, floor: before.resync, unit: 'ms', ratio: before.resync / second.ms },
                  { metric: 'before: first sync / re-sync', switchyard: before.resync, floor: before.first, unit: 'ms', ratio: before.first / before.resync },
                ]
              : []),
            {
              metric: 'rows touched (last_modified_at, cursor)',
              switchyard: touched + (cursorAfter === cursorBefore ? 0 : 1),
              floor: 0,
              unit: 'rows',
              met: touched === 0 && cursorAfter === cursorBefore,
            },
          ],
          details: {
            firstMs: round(first.ms, 0),
            resyncMs: round(second.ms, 0),
            cpu: second.cpu,
            results: second.run.results,
            pgWrites,
            touched,
            cursorUnchanged: cursorAfter === cursorBefore,
          },
          notes: ['ratio = first sync time / re-sync time', beforeNote],
        });
      }
      return results;
    } finally {
      await db.end().catch(() => undefined);
      await api.close();
      await platform.stop();
      await generic.close();
      await metabase.close();
    }
  },
};

/** The bench integration and connection `c1`, its records from the generic fake; returns the connection's pk. */
async function connectBench(api: ApiClient, db: Db, genericUrl: string, metabaseUrl: string): Promise<number> {
  await createIntegration(api, [{ method: 'GET', path: '/bench/items' }]);
  await createConnection(api, 'c1', metabaseUrl);
  await api.ok('PATCH', `/integrations/${INTEGRATION}`, { json: { integration_config: { base_url: genericUrl } } });
  return (await db.query<{ id: number }>(`SELECT id FROM connections WHERE connection_id = 'c1'`)).rows[0]!.id;
}

/** A first sync and an unchanged re-sync on the baseline tree (a platform and database of its own). */
async function syncsBefore(ctx: BenchContext, root: string, genericUrl: string, metabaseUrl: string): Promise<{ first: number; resync: number }> {
  const p = await platformEnv(ctx.services, 'sync-before');
  const platform = await spawnPlatform(p, { role: 'all', cpuProfDir: ctx.cpuProfDir, root });
  const api = new ApiClient(p.url, p.devKey);
  const db = benchDb(p);
  try {
    const pk = await connectBench(api, db, genericUrl, metabaseUrl);
    await db.query('CHECKPOINT');
    const first = await runSync(api, db, pk, ctx, platform);
    ctx.say(`sync (before): first sync ${first.ms.toFixed(0)} ms; ${first.cpu}`);
    const second = await runSync(api, db, pk, ctx, platform);
    ctx.say(`sync (before): re-sync ${second.ms.toFixed(0)} ms; ${second.cpu}`);
    return { first: first.ms, resync: second.ms };
  } finally {
    await db.end().catch(() => undefined);
    await api.close();
    await platform.stop();
  }
}

async function runSync(
  api: ApiClient,
  db: Db,
  connectionPk: number,
  ctx: BenchContext,
  platform: PlatformProcess,
): Promise<{ ms: number; endedAt: number; run: SyncRunRow; cpu: string }> {
  const known = new Set((await db.query<{ id: string }>('SELECT id FROM sync_runs WHERE connection_pk = $1', [connectionPk])).rows.map((r) => r.id));
  const eventsBefore = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'sync' AND connection_id = 'c1'`)).rows[0]!.n;
  const cpu0 = cpuSnapshot();
  const t0 = performance.now();
  await api.ok('POST', '/sync/trigger', {
    json: { provider_config_key: INTEGRATION, connection_id: 'c1', syncs: ['bench-items'] },
    headers: connectionHeaders('c1'),
  });
  let lastLog = t0;
  const run = await waitUntil(
    'the sync run to finish',
    async () => {
      const { rows } = await db.query<SyncRunRow>(
        `SELECT id, status, results, started_at, finished_at, EXTRACT(EPOCH FROM finished_at - started_at) * 1000 AS ms FROM sync_runs WHERE connection_pk = $1`,
        [connectionPk],
      );
      const mine = rows.find((r) => !known.has(r.id));
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        // What the platform's connections are doing right now: a cheap timing breakdown.
        const active = await db.query<{ q: string; s: number }>(
          `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q, round(EXTRACT(EPOCH FROM now() - query_start))::int AS s FROM pg_stat_activity
           WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
        );
        ctx.say(
          `sync: still running (${mine ? JSON.stringify(mine.results) : 'not started'}); active: ${active.rows.map((r) => `[${r.s}s] ${r.q}`).join(' | ') || 'none'}`,
        );
      }
      if (!mine || mine.status === 'RUNNING') return null;
      // finishSync's last step is the sync event: the run is over when it is recorded.
      const events = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'sync' AND connection_id = 'c1'`)).rows[0]!.n;
      return events > eventsBefore ? mine : null;
    },
    15 * 60_000,
    25,
  );
  const endedAt = performance.now();
  const cpu = formatCpu(cpuBreakdown(cpu0, cpuSnapshot(), { switchyard: platform.pid }), (endedAt - t0) / 1000);
  if (run.status !== 'SUCCESS') throw new Error(`the sync ended ${run.status}`);
  return { ms: endedAt - t0, endedAt, run: { ...run, ms: round(Number(run.ms), 0) }, cpu };
}

async function fetchAllPages(baseUrl: string): Promise<{ ms: number; rows: number }> {
  const agent = new Agent({ connections: 1 });
  const t0 = performance.now();
  let rows = 0;
  for await (const page of pages(baseUrl, agent)) rows += page.length;
  await agent.close();
  return { ms: performance.now() - t0, rows };
}

async function* pages(baseUrl: string, agent: Agent): AsyncGenerator<GenericItem[]> {
  let cursor = '';
  for (;;) {
    const res = await request(`${baseUrl}/items?limit=${PAGE}&cursor=${cursor}`, {
      dispatcher: agent,
      headers: { 'x-api-key': API_KEY, accept: 'application/json' },
    });
    const body = JSON.parse(await res.body.text()) as { items: GenericItem[]; next_cursor: string | null };
    yield body.items;
    if (!body.next_cursor) return;
    cursor = body.next_cursor;
  }
}

async function insertPage(db: Db, connectionPk: number, page: GenericItem[]): Promise<void> {
  const values: unknown[] = [connectionPk, 'BenchItem'];
  const tuples: string[] = [];
  for (const item of page) {
    const data = JSON.stringify(item);
    values.push(item.id, data, createHash('md5').update(data).digest('hex'));
    const i = values.length;
    tuples.push(`($1, $2, $${i - 2}, $${i - 1}::jsonb, $${i})`);
  }
  await db.query(`INSERT INTO floor_records (connection_pk, model, external_id, data, hash) VALUES ${tuples.join(',')}`, values);
}

/** The floor: the same rows, already in memory, inserted 1000 per statement. */
async function insertFloor(db: Db, connectionPk: number, items: GenericItem[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < items.length; i += PAGE) await insertPage(db, connectionPk, items.slice(i, i + PAGE));
  return performance.now() - t0;
}

async function fetchAndInsertFloor(db: Db, connectionPk: number, baseUrl: string): Promise<number> {
  const agent = new Agent({ connections: 1 });
  const t0 = performance.now();
  for await (const page of pages(baseUrl, agent)) await insertPage(db, connectionPk, page);
  await agent.close();
  return performance.now() - t0;
}

async function tupleStats(db: Db): Promise<{ ins: number; upd: number; del: number }> {
  const { rows } = await db.query<{ ins: number; upd: number; del: number }>(
    `SELECT n_tup_ins::int AS ins, n_tup_upd::int AS upd, n_tup_del::int AS del FROM pg_stat_user_tables WHERE relname = 'records'`,
  );
  return rows[0]!;
}

async function maxCursor(db: Db, connectionPk: number): Promise<number> {
  return (await db.query<{ c: number }>('SELECT max(cursor) AS c FROM records WHERE connection_pk = $1', [connectionPk])).rows[0]!.c;
}

async function readAllViaApi(url: string, key: string, agent: Agent): Promise<{ ms: number; rows: number; pages: number[] }> {
  const t0 = performance.now();
  const pageMs: number[] = [];
  let rows = 0;
  let cursor: string | null = null;
  const body = new PageBytes();
  do {
    const p0 = performance.now();
    const res = await request(`${url}/records?model=BenchItem&limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${key}`, ...connectionHeaders('c1') },
    });
    const bytes = await body.read(res.body);
    if (res.statusCode !== 200) throw new Error(`GET /records answered ${res.statusCode}: ${bytes.toString('utf8', 0, 300)}`);
    pageMs.push(performance.now() - p0);
    // Only the cursor is parsed out (a client's own JSON.parse is not the server's cost).
    cursor = nextCursorOf(bytes);
    const count = countRecords(bytes);
    if (cursor !== null && count !== PAGE) throw new Error(`a page with a next_cursor holds ${count} records, not ${PAGE}`);
    rows += count;
  } while (cursor);
  return { ms: performance.now() - t0, rows, pages: pageMs };
}

/**
 * A page's body as bytes, in one buffer kept from page to page. Decoding each 1 MB page into a string
 * made a large string per page, which in this process (the fakes hold the 100k items) cost the
 * client a full mark of its heap every few pages.
 */
class PageBytes {
  private buf = Buffer.allocUnsafe(2 << 20);
  async read(stream: AsyncIterable<Buffer>): Promise<Buffer> {
    let n = 0;
    for await (const chunk of stream) {
      if (n + chunk.length > this.buf.length) {
        const grown = Buffer.allocUnsafe(2 * (n + chunk.length));
        this.buf.copy(grown, 0, 0, n);
        this.buf = grown;
      }
      n += chunk.copy(this.buf, n);
    }
    return this.buf.subarray(0, n);
  }
}

const NEXT_CURSOR = Buffer.from('"next_cursor":');
const NANGO_METADATA = Buffer.from('"_nango_metadata"');

/** The `next_cursor` a page ends with (`…,"next_cursor":null}` or `…"next_cursor":"…"}`); throws when it does not end so. */
function nextCursorOf(body: Buffer): string | null {
  const at = body.lastIndexOf(NEXT_CURSOR);
  const m = at === -1 ? null : /^(null|"([^"]*)")\}$/.exec(body.toString('latin1', at + NEXT_CURSOR.length));
  if (!m) throw new Error('no next_cursor at the end of the body');
  return m[2] ?? null;
}

const mean = (xs: { ms: number }[]) => xs.reduce((a, x) => a + x.ms, 0) / xs.length;

/** An API process of the baseline tree on the platform's database, on its own port. */
async function startBaselineApi(ctx: BenchContext, p: PlatformEnv): Promise<{ url: string; pid: number; stop(): Promise<void> } | { unavailable: string }> {
  const tree = await baselineTree(ctx.services.workDir, RECORDS_READ_CHANGES);
  if (!('root' in tree)) return tree;
  const port = await freePort();
  const env = { ...p, name: `${p.name}-before`, url: `http://127.0.0.1:${port}`, env: { ...p.env, PORT: String(port) } };
  const proc = await spawnPlatform(env, { role: 'api', root: tree.root, cpuProfDir: ctx.cpuProfDir });
  return { url: env.url, pid: proc.pid, stop: () => proc.stop() };
}

function countRecords(body: Buffer): number {
  let n = 0;
  for (let i = body.indexOf(NANGO_METADATA); i !== -1; i = body.indexOf(NANGO_METADATA, i + 1)) n++;
  return n;
}

async function readAllViaSelect(db: Db, connectionPk: number): Promise<{ ms: number; rows: number; pages: number[] }> {
  const t0 = performance.now();
  const pageMs: number[] = [];
  let rows = 0;
  let cursor = 0;
  for (;;) {
    const p0 = performance.now();
    const { rows: page } = await db.query<{ cursor: number }>(
      `SELECT data::text AS data, first_seen_at, last_modified_at, deleted_at, last_action, cursor, pruned_at FROM records
       WHERE connection_pk = $1 AND model = 'BenchItem' AND cursor > $2 ORDER BY cursor LIMIT ${PAGE + 1}`,
      [connectionPk, cursor],
    );
    pageMs.push(performance.now() - p0);
    const more = page.length > PAGE;
    if (more) page.pop();
    rows += page.length;
    if (!more) break;
    cursor = page[page.length - 1]!.cursor;
  }
  return { ms: performance.now() - t0, rows, pages: pageMs };
}
