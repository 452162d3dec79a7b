/**
 * @module embedded/process — a child service process we own: spawned in its own process group
 * (so a terminal's Ctrl-C reaches only us and we stop services in order), and killed when this
 * process exits in any way.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

const owned = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of owned) {
      if (child.exitCode === null && child.pid) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    }
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

export function startService(command: string, args: string[], options: SpawnOptions = {}): ServiceProcess {
  installExitHook();
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  owned.add(child);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-16_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', () => owned.delete(child));
  return {
    child,
    output: () => tail,
    async stop(signal = 'SIGTERM', graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number, service?: ServiceProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (service && (service.child.exitCode !== null || service.child.signalCode !== null)) {
      throw new Error(`${what} exited before it was ready:\n${service.output()}`);
    }
    if (Date.now() > deadline) throw new Error(`${what} was not ready after ${timeoutMs} ms:\n${service?.output() ?? ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
