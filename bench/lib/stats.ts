/**
 * @module bench/lib/stats — percentiles, ratios, the table and the JSON line every benchmark prints,
 * and an RSS sampler for child processes.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(values: number[]): Summary {
  const s = [...values].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN, mean };
}

export const round = (v: number, digits = 2): number => (Number.isFinite(v) ? Number(v.toFixed(digits)) : v);

/** A row of the printed table: what was measured, the Switchyard figure, the floor figure, their ratio, the goal. */
export interface Row {
  metric: string;
  switchyard: number | string;
  floor: number | string;
  unit: string;
  ratio?: number;
  goal?: string;
  met?: boolean;
}

export interface BenchResult {
  name: string;
  rows: Row[];
  /** Extra figures for the JSON line (absolute numbers, counts, settings). */
  details: Record<string, unknown>;
  notes?: string[];
}

function cell(v: unknown): string {
  if (typeof v === 'number') return String(round(v, v >= 100 ? 0 : 2));
  if (typeof v === 'boolean') return v ? 'yes' : 'NO';
  return v === undefined ? '' : String(v);
}

/** Two decimals, or two significant digits below 0.1 (0.0048×, not 0×). */
export function ratioText(ratio: number): string {
  return `${Math.abs(ratio) < 0.1 && ratio !== 0 ? Number(ratio.toPrecision(2)) : round(ratio, 2)}×`;
}

export function formatTable(result: BenchResult): string {
  const header = ['metric', 'switchyard', 'floor', 'unit', 'ratio', 'goal', 'met'];
  const body = result.rows.map((r) =>
    [r.metric, r.switchyard, r.floor, r.unit, r.ratio === undefined ? '' : ratioText(r.ratio), r.goal ?? '', r.met ?? ''].map(cell),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cols: string[]) => `| ${cols.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [`== ${result.name}`, line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line), ...(result.notes ?? []).map((n) => `   ${n}`)].join(
    '\n',
  );
}

export function printResult(result: BenchResult): void {
  console.log(formatTable(result));
  console.log(
    JSON.stringify({
      bench: result.name,
      rows: result.rows.map((r) => ({
        ...r,
        switchyard: typeof r.switchyard === 'number' ? round(r.switchyard, 3) : r.switchyard,
        ratio: r.ratio === undefined ? undefined : Number(r.ratio.toPrecision(3)),
      })),
      ...result.details,
    }),
  );
}

/** Resident set size of a process in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The process's children (Linux: /proc/<pid>/task/<tid>/children of each of its threads). */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** RSS of a process and all its descendants (a CLI and the esbuild service it starts), in MB. */
export function treeRssMb(pid: number): number {
  const own = rssMb(pid);
  return childrenOf(pid).reduce((sum, child) => sum + (treeRssMb(child) || 0), own);
}

/** Samples a process's RSS (`tree`: with its descendants') every `everyMs` until stopped; returns max, last and the samples. */
export function sampleRss(pid: number, everyMs = 1000, tree = false): { peek(): number; stop(): { maxMb: number; lastMb: number; samples: number[] } } {
  const samples: number[] = [];
  const take = () => {
    const v = tree ? treeRssMb(pid) : rssMb(pid);
    if (Number.isFinite(v)) samples.push(v);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    peek: () => samples[samples.length - 1] ?? NaN,
    stop() {
      clearInterval(timer);
      take();
      return { maxMb: Math.max(...samples), lastMb: samples[samples.length - 1] ?? NaN, samples };
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function waitUntil<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs: number, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Statements by total execution time since the last reset, when pg_stat_statements is loaded (--pg-stat-statements). */
export async function topStatements(db: { query: (q: string) => Promise<{ rows: unknown[] }> }, limit = 8): Promise<string[]> {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const { rows } = await db.query(
      `SELECT calls, round(total_exec_time)::int AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS q
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY total_exec_time DESC LIMIT ${limit}`,
    );
    return (rows as { calls: number; ms: number; q: string }[]).map((r) => `${String(r.ms).padStart(7)} ms ${String(r.calls).padStart(6)}×  ${r.q}`);
  } catch {
    return [];
  }
}

export async function resetStatements(db: { query: (q: string) => Promise<unknown> }): Promise<void> {
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
  await db.query('SELECT pg_stat_statements_reset()').catch(() => undefined);
}

/** Cumulative database counters (needs pg_stat_statements): statements, commits, WAL flushes, and row updates of `tables` (how many were HOT). */
export interface DbCounters {
  statements: number;
  commits: number;
  walSyncs: number;
  walBytes: number;
  tables: Record<string, { updates: number; hot: number }>;
}

export async function dbCounters(db: { query: (q: string, v?: unknown[]) => Promise<{ rows: unknown[] }> }, tables: string[]): Promise<DbCounters> {
  const one = async <T>(q: string, v?: unknown[]) => (await db.query(q, v)).rows as T[];
  const [s] = await one<{ n: string }>(
    'SELECT coalesce(sum(calls), 0) AS n FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())',
  );
  const [c] = await one<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()');
  const [w] = await one<{ syncs: string; bytes: string }>('SELECT wal_sync AS syncs, wal_bytes AS bytes FROM pg_stat_wal');
  const t = await one<{ name: string; upd: string; hot: string }>(
    'SELECT relname AS name, n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = ANY($1)',
    [tables],
  );
  return {
    statements: Number(s!.n),
    commits: Number(c!.n),
    walSyncs: Number(w!.syncs),
    walBytes: Number(w!.bytes),
    tables: Object.fromEntries(t.map((r) => [r.name, { updates: Number(r.upd), hot: Number(r.hot) }])),
  };
}

/** `after - before`, per `n` operations, as one line. */
export function formatDbCounters(before: DbCounters, after: DbCounters, n: number, per: string): string {
  const each = (a: number, b: number) => round((a - b) / n, 2);
  const tables = Object.entries(after.tables).map(([name, t]) => {
    const b = before.tables[name] ?? { updates: 0, hot: 0 };
    return `${name} updates ${each(t.updates, b.updates)} (HOT ${each(t.hot, b.hot)})`;
  });
  return (
    [
      `statements ${each(after.statements, before.statements)}`,
      `commits ${each(after.commits, before.commits)}`,
      `WAL flushes ${each(after.walSyncs, before.walSyncs)}`,
      `WAL bytes ${each(after.walBytes, before.walBytes)}`,
      ...tables,
    ].join(', ') + ` per ${per}`
  );
}

export type CpuSnapshot = Map<number, { comm: string; ppid: number; ticks: number }>;

/** utime + stime of every process (Linux /proc), by pid. */
export function cpuSnapshot(): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      out.set(Number(entry), { comm, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** The PostgreSQL and Temporal processes this run started (set by services.ts), told apart from other users' ones. */
export const servicePids: { postgres?: number; temporal?: number } = {};

/** The pid of the process whose command line contains `needle` (Linux /proc), if any. */
export function findPid(needle: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) return Number(entry);
    } catch {
      /* gone */
    }
  }
  return undefined;
}

/**
 * CPU seconds spent between two snapshots, grouped: the named pids, our PostgreSQL (postmaster and
 * backends) and Temporal, this process, and everything else — other users of the shared machine.
 */
export function cpuBreakdown(before: CpuSnapshot, after: CpuSnapshot, named: Record<string, number>): Record<string, number> {
  const hz = 100; // USER_HZ on Linux
  const byPid = new Map(Object.entries(named).map(([k, v]) => [v, k]));
  const out: Record<string, number> = {};
  for (const [pid, a] of after) {
    const delta = (a.ticks - (before.get(pid)?.ticks ?? 0)) / hz;
    if (delta <= 0) continue;
    let group = byPid.get(pid) ?? byPid.get(a.ppid);
    if (!group && pid === process.pid) group = 'bench (load + fakes)';
    if (!group && servicePids.postgres && (pid === servicePids.postgres || a.ppid === servicePids.postgres)) group = 'postgres';
    if (!group && servicePids.temporal && pid === servicePids.temporal) group = 'temporal';
    group ??= 'other users';
    out[group] = (out[group] ?? 0) + delta;
  }
  // To the clock tick (10 ms): a records read round is ~1 s of CPU on a fast machine.
  for (const group of Object.keys(out)) out[group] = round(out[group]!, 2);
  return out;
}

export function formatCpu(cpu: Record<string, number>, seconds: number): string {
  return `CPU s over ${seconds.toFixed(0)} s wall (2 cores = ${(2 * seconds).toFixed(0)}): ${Object.entries(cpu)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`;
}
