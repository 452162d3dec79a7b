/**
 * @module cli/ui — what the CLI prints: progress of long steps, errors that say what to do next,
 * and the one question it asks (before removing scripts).
 */
import { createInterface } from 'node:readline/promises';

/** An error for the person at the terminal: what went wrong, and what to do next. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly next: string,
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

const tty = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const paint = (code: number) => (s: string) => (tty ? `\u001b[${code}m${s}\u001b[0m` : s);
export const bold = paint(1);
export const dim = paint(2);
export const red = paint(31);
export const green = paint(32);
export const yellow = paint(33);

export function info(message: string): void {
  process.stdout.write(`${message}\n`);
}

export function warn(message: string): void {
  process.stderr.write(`${yellow('!')} ${message}\n`);
}

/** Runs a long step, showing that it started and how long it took. */
export async function step<T>(label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  process.stdout.write(`${dim('…')} ${label}\n`);
  try {
    const result = await run();
    // On a terminal, over a progress bar that may be drawn meanwhile (compile type-checks while it bundles).
    const clear = process.stdout.isTTY ? '\r\u001b[2K' : '';
    process.stdout.write(`${clear}${green('✓')} ${label} ${dim(`(${((performance.now() - started) / 1000).toFixed(1)}s)`)}\n`);
    return result;
  } catch (err) {
    process.stdout.write(`${red('✗')} ${label}\n`);
    throw err;
  }
}

/** DEBUG=1 (any value but 0 or empty) adds the stack, and the stacks of its causes, to every error. */
export const debugging = (env: NodeJS.ProcessEnv = process.env): boolean => Boolean(env.DEBUG) && env.DEBUG !== '0';

function stacks(err: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) out.push(`${depth ? 'caused by: ' : ''}${e.stack ?? e.message}`);
  return out;
}

export function printError(err: unknown): void {
  const debug = debugging();
  if (err instanceof CliError) {
    process.stderr.write(`${red('✗')} ${err.message}\n`);
    for (const d of err.details) process.stderr.write(`    ${d}\n`);
    process.stderr.write(`  ${bold('→')} ${err.next}\n`);
    if (debug) for (const s of stacks(err)) process.stderr.write(`${dim(s)}\n`);
    return;
  }
  const e = err as Error;
  if (debug) {
    process.stderr.write(`${red('✗')} ${stacks(err).join('\n') || String(err)}\n`);
    process.stderr.write(`  ${bold('→')} this looks like a bug in the CLI: report the output above\n`);
    return;
  }
  process.stderr.write(`${red('✗')} ${e?.message ?? String(err)}\n`);
  process.stderr.write(`  ${bold('→')} this looks like a bug in the CLI: run again with DEBUG=1 (it prints the stack) and report the output\n`);
}

/** Asks a yes/no question on the terminal; false when there is no terminal to ask. */
export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

export interface Progress {
  /** `n` more of the total are done. */
  advance(n?: number): void;
  /** The bar's last state, and the time the whole step took. */
  done(summary?: string): void;
}

/**
 * Progress of a step over many items: a bar redrawn in place on a terminal, otherwise a line at
 * each tenth of the way (a CI log gets a few lines, not one per item).
 */
export function progress(label: string, total: number, out: NodeJS.WriteStream = process.stdout): Progress {
  const started = performance.now();
  const isTty = Boolean(out.isTTY);
  let count = 0;
  let lastDraw = 0;
  let lastTenth = 0;
  const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)}s`;
  const bar = () => {
    const width = 24;
    const filled = total ? Math.round((count / total) * width) : width;
    return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${count}/${total}`;
  };
  if (!isTty) out.write(`${dim('…')} ${label}: 0/${total}\n`);
  return {
    advance(n = 1) {
      count = Math.min(total, count + n);
      if (isTty) {
        const now = performance.now();
        if (now - lastDraw < 80 && count < total) return;
        lastDraw = now;
        out.write(`\r${dim('…')} ${label} ${bar()} ${dim(seconds())}`);
        return;
      }
      const tenth = total ? Math.floor((count / total) * 10) : 10;
      if (tenth > lastTenth && count < total) {
        lastTenth = tenth;
        out.write(`${dim('…')} ${label}: ${count}/${total} ${dim(`(${seconds()})`)}\n`);
      }
    },
    done(summary) {
      const text = `${green('✓')} ${label}: ${summary ?? `${count}/${total}`} ${dim(`(${seconds()})`)}`;
      out.write(isTty ? `\r\u001b[2K${text}\n` : `${text}\n`);
    },
  };
}
