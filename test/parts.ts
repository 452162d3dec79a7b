/**
 * @module test/parts — the API and workers as separate OS processes (`node --import tsx
 * start/api.ts` / `start/worker.ts`), each in its own process group and killed as a group, for the
 * tests that kill or restart them (test/process-faults.test.ts, test/prod-shape.ts).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Part {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Null while the process runs; else how it ended (`exit code 1`, `signal SIGKILL`). */
  ended(): string | null;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

const liveChildren = new Set<ChildProcess>();
process.on('exit', () => killAllParts());

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

/** SIGKILL to every part still running (a test file's last cleanup). */
export function killAllParts(): void {
  for (const child of liveChildren) killGroup(child, 'SIGKILL');
}

/** Starts `start/<role>.ts` with env added to ours; resolves once it says it is ready. `name` tells parts of one role apart in messages. */
export async function startPart(role: 'api' | 'worker', env: Record<string, string>, name: string = role): Promise<Part> {
  const child = spawn(process.execPath, ['--import', 'tsx', `start/${role}.ts`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);
  let tail = '';
  const keep = (d: Buffer) => {
    tail = (tail + d.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => liveChildren.delete(child));
  const ready = role === 'api' ? 'listening on' : 'polling';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready after 120 s:\n${tail}`)), 120_000);
    const onData = () => {
      if (tail.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited early (${code ?? signal}):\n${tail}`));
    });
  });
  return {
    name,
    child,
    output: () => tail,
    ended: () => (child.exitCode !== null ? `exit code ${child.exitCode}` : child.signalCode !== null ? `signal ${child.signalCode}` : null),
    async kill9() {
      killGroup(child, 'SIGKILL');
      await exited;
    },
    async stop() {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Every part still running. A process killed by a signal has no exit code (`exitCode` stays null),
 * so "alive" is neither an exit code nor a signal.
 */
export function assertRunning(parts: Part[], message: string): void {
  const gone = parts.flatMap((p) => (p.ended() ? [`${p.name}: ${p.ended()}`] : []));
  assert.deepEqual(gone, [], message);
}
