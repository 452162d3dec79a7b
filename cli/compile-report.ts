/**
 * @module cli/compile-report — what `switchyard compile` prints about the functions that did not
 * compile: every one of them, grouped by integration and, within it, by reason; then the reasons
 * with their counts over the project, and the line `compiled N of M functions`.
 */
import type { ScriptFile } from './project.js';
import { bold, dim, red, yellow } from './ui.js';

export type FailureStage = 'type-check' | 'bundle' | 'load' | 'manifest';

export interface CompileFailure {
  script: ScriptFile;
  stage: FailureStage;
  /** What the report groups by: `type error TS2345`, `does not bundle: Could not resolve "soap"`, … */
  reason: string;
  lines: string[];
}

/** Lines printed under one function before "… and N more". */
const LINES_PER_FUNCTION = 5;

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

const byCountThenName = <T>([a, x]: [string, T[]], [b, y]: [string, T[]]) => y.length - x.length || a.localeCompare(b);

/** The report's lines (no trailing newline on each). */
export function failureReport(failures: CompileFailure[], scripts: ScriptFile[]): string[] {
  const out: string[] = [];
  const perIntegration = groupBy(scripts, (s) => s.integration);
  for (const [integration, failed] of [...groupBy(failures, (f) => f.script.integration)].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`${red('✗')} ${bold(integration)}: ${failed.length} of ${perIntegration.get(integration)?.length ?? failed.length} function(s) failed`);
    for (const [reason, list] of [...groupBy(failed, (f) => f.reason)].sort(byCountThenName)) {
      out.push(`    ${yellow(reason)} ${dim(`(${list.length})`)}`);
      for (const f of list.sort((a, b) => a.script.name.localeCompare(b.script.name))) {
        out.push(`      ${f.script.kind} ${f.script.name}`);
        for (const l of f.lines.slice(0, LINES_PER_FUNCTION)) out.push(`          ${l}`);
        if (f.lines.length > LINES_PER_FUNCTION) out.push(`          ${dim(`… and ${f.lines.length - LINES_PER_FUNCTION} more`)}`);
      }
    }
  }
  if (failures.length) {
    out.push(bold('Reasons over the project (functions):'));
    for (const [reason, list] of [...groupBy(failures, (f) => f.reason)].sort(byCountThenName)) out.push(`  ${String(list.length).padStart(6)}  ${reason}`);
  }
  return out;
}

/** `compiled N of M functions`, with what failed and what was reused. */
export function summaryLine(compiled: number, total: number, failed: CompileFailure[], reused: number): string {
  const integrations = new Set(failed.map((f) => f.script.integration)).size;
  const parts = [`compiled ${compiled} of ${total} functions`];
  if (failed.length) parts.push(`${failed.length} failed in ${integrations} integration(s)`);
  if (reused) parts.push(`${reused} unchanged, reused from the cache`);
  return parts.join('; ');
}
