/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name> [<name>…] [--flag=value]` runs some.
 * Starts one embedded PostgreSQL and one Temporal dev server (or uses DATABASE_URL / TEMPORAL_ADDRESS),
 * bundles the workflows once, runs the groups in order, prints each table and JSON line, then a
 * summary of every ratio, and writes bench/out/last-run.json. Never fails on speed; exits 1 only
 * when a benchmark could not run.
 *
 * Flags: --cpu-prof (V8 profiles of the Switchyard processes into bench/out/profiles),
 * --schedules-minutes=N (default 5), --connections=N (many schedules, default 1000),
 * --records=N (sync, default 100000), --concurrency=N (action throughput, default 16),
 * --temporal=server (a Temporal server on the run's PostgreSQL instead of the dev server),
 * --temporal-config=k=v,… (its dynamic config), --temporal-sqlite=k=v,… (the dev server's SQLite pragmas).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { actions } from './actions.js';
import { compileLarge } from './compile.js';
import { proxy } from './proxy.js';
import { schedules } from './schedules.js';
import { syncs } from './sync.js';
import { webhooks } from './webhooks.js';
import type { BenchContext, BenchGroup } from './lib/context.js';
import { startServices } from './lib/services.js';
import { formatTable, printResult, round, type BenchResult } from './lib/stats.js';

const GROUPS: BenchGroup[] = [actions, syncs, proxy, webhooks, schedules, compileLarge];
const ALL = GROUPS.flatMap((g) => g.names);
const OUT = fileURLToPath(new URL('./out', import.meta.url));

/** `--<name>=key=value,key=value` as pairs of strings. */
function pairsFlag(name: string, flag: string | true | undefined): [string, string][] {
  if (flag === undefined) return [];
  if (flag === true) throw new Error(`--${name} needs key=value[,key=value]`);
  return flag.split(',').map((pair) => {
    const [key, raw] = pair.split('=');
    if (!key || raw === undefined) throw new Error(`--${name}: "${pair}" is not key=value`);
    return [key, raw];
  });
}

/** `--temporal-config=key=value,key=value`: dynamic config values for the run's Temporal (numbers and booleans as such). */
function dynamicConfigFlag(flag: string | true | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries(
    pairsFlag('temporal-config', flag).map(([key, raw]) => [
      key,
      raw === 'true' ? true : raw === 'false' ? false : Number.isFinite(Number(raw)) ? Number(raw) : raw,
    ]),
  );
}

function parseArgs(argv: string[]): { names: string[]; flags: Record<string, string | true> } {
  const names: string[] = [];
  const flags: Record<string, string | true> = {};
  for (const a of argv) {
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(a);
    if (m) flags[m[1]!] = m[2] ?? true;
    else names.push(a);
  }
  return { names, flags };
}

export function machine() {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    nproc: cpus.length,
    cpu: cpus[0]?.model ?? 'unknown',
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

async function main(): Promise<number> {
  const { names, flags } = parseArgs(process.argv.slice(2));
  const unknown = names.filter((n) => !ALL.includes(n));
  if (unknown.length) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${ALL.join(', ')}`);
    return 2;
  }
  const wanted = new Set(names.length ? names : ALL);
  const say = (m: string) => console.log(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${m}`);
  const t0 = performance.now();
  await mkdir(OUT, { recursive: true });
  const cpuProfDir = flags['cpu-prof'] ? path.join(OUT, 'profiles') : undefined;
  if (cpuProfDir) await mkdir(cpuProfDir, { recursive: true });
  say(`machine: ${JSON.stringify(machine())}`);

  const storage = flags.storage === 'tmpfs' ? 'tmpfs' : 'disk';
  const services = await startServices(
    say,
    storage,
    flags['pg-stat-statements'] === true,
    flags.temporal === 'server' ? 'server' : 'dev',
    dynamicConfigFlag(flags['temporal-config']),
    // `--temporal-sqlite=synchronous=normal`: SQLite pragmas of the dev server's file, over its defaults.
    Object.fromEntries(pairsFlag('temporal-sqlite', flags['temporal-sqlite'])),
  );
  const stopOnSignal = () => {
    say('interrupted: stopping services');
    void services.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  const results: BenchResult[] = [];
  const failures: { group: string; error: string }[] = [];
  // A stray error from a client library (say, a gRPC retry firing after its channel closed) is
  // recorded, not allowed to end the run before its summary.
  process.on('uncaughtException', (err) => {
    failures.push({ group: 'uncaught', error: err.stack ?? err.message });
    console.error(`[bench] uncaught: ${err.stack ?? err.message}`);
  });
  const save = () =>
    writeFile(
      path.join(OUT, 'last-run.json'),
      JSON.stringify({ machine: machine(), totalSeconds: round((performance.now() - t0) / 1000, 0), flags, results, failures }, null, 2),
    );
  try {
    for (const group of GROUPS) {
      const selected = new Set(group.names.filter((n) => wanted.has(n)));
      if (selected.size === 0) continue;
      const ctx: BenchContext = { services, flags, selected, say, cpuProfDir, outDir: OUT };
      const started = performance.now();
      say(`>>> ${[...selected].join(', ')}`);
      try {
        for (const r of await group.run(ctx)) {
          results.push(r);
          printResult(r);
        }
      } catch (err) {
        const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
        failures.push({ group: [...selected].join(','), error });
        console.error(`[bench] ${[...selected].join(', ')} failed:\n${error}`);
      }
      say(`<<< ${[...selected].join(', ')} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      await save();
    }
  } finally {
    await services.stop();
  }

  const summary: BenchResult = {
    name: 'summary (every ratio)',
    rows: results.flatMap((r) => r.rows.filter((row) => row.ratio !== undefined || row.goal).map((row) => ({ ...row, metric: `${r.name}: ${row.metric}` }))),
    details: {},
  };
  console.log('\n' + formatTable(summary));
  const total = (performance.now() - t0) / 1000;
  say(`done in ${total.toFixed(0)} s${failures.length ? `; ${failures.length} group(s) failed` : ''}`);
  await save();
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
