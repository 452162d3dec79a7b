/**
 * @module bench/lib/context — what the runner hands each benchmark group.
 */
import type { BenchResult } from './stats.js';
import type { BenchServices } from './services.js';

export interface BenchContext {
  services: BenchServices;
  /** --name=value flags (value `true` for a bare --name). */
  flags: Record<string, string | true>;
  /** The benchmarks selected in this group (a group may run several). */
  selected: Set<string>;
  say(message: string): void;
  /** When set (--cpu-prof), Switchyard processes write V8 CPU profiles here. */
  cpuProfDir?: string;
  /** Folder for raw outputs (bench/out). */
  outDir: string;
}

export interface BenchGroup {
  /** The benchmark names this group can produce. */
  names: string[];
  run(ctx: BenchContext): Promise<BenchResult[]>;
}

export function numberFlag(ctx: BenchContext, name: string, fallback: number): number {
  const v = ctx.flags[name];
  if (v === undefined || v === true) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}
