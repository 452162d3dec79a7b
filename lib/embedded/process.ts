/**
 * @module embedded/process — a child service process we own: spawned in its own process group
 * (so a terminal's Ctrl-C reaches only us and we stop services in order), and stopped when this
 * process ends in any way: by the exit hook on a normal exit, and by a watchdog when this process
 * is killed outright (kill -9, the OOM killer, a closed terminal). A pid file in the data folder
 * lets the next start on that folder stop a service that outlived both.
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
const owned = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of owned) {
      if (child.exitCode === null && child.pid) signalGroup(child.pid, 'SIGKILL');
    }
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

// The watchdog holds the read end of a pipe from us. A line dismisses it (the service ended on its
// own or was stopped); end of file means we died without stopping the service, so it stops the
// service's process group with the service's own stop signal, and SIGKILL after the grace period.
const WATCHDOG = `
if read -r _; then exit 0; fi
kill -s "$2" -- "-$1" 2>/dev/null || exit 0
i=0
while [ "$i" -lt "$3" ] && kill -s 0 -- "-$1" 2>/dev/null; do sleep 1; i=$((i + 1)); done
kill -s KILL -- "-$1" 2>/dev/null
exit 0
`;

function startWatchdog(pid: number, signal: NodeJS.Signals, graceMs: number): () => void {
  // Detached: a Ctrl-C to our process group must not end the watchdog before we are done stopping.
  const dog = spawn('sh', ['-c', WATCHDOG, 'switchyard-watchdog', String(pid), signal.replace(/^SIG/, ''), String(Math.ceil(graceMs / 1000))], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  dog.on('error', () => undefined);
  dog.stdin!.on('error', () => undefined);
  dog.unref();
  (dog.stdin as unknown as { unref?: () => void }).unref?.();
  let dismissed = false;
  return () => {
    if (dismissed) return;
    dismissed = true;
    dog.stdin!.end('stop\n');
  };
}

export interface ServiceOptions extends SpawnOptions {
  /** Where the service's pid and command are kept while it runs (in the data folder). */
  pidFile?: string;
  /** How the service is stopped cleanly, and how long it may take before SIGKILL. */
  stopSignal?: NodeJS.Signals;
  graceMs?: number;
}

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

function commandLine(command: string, args: string[]): string {
  return [command, ...args].join(' ');
}

export async function startService(command: string, args: string[], options: ServiceOptions = {}): Promise<ServiceProcess> {
  const { pidFile, stopSignal = 'SIGTERM', graceMs = 15_000, ...spawnOptions } = options;
  installExitHook();
  const child = spawn(command, args, { ...spawnOptions, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  owned.add(child);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-16_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const dismissWatchdog = child.pid ? startWatchdog(child.pid, stopSignal, graceMs) : () => undefined;
  const pidRecord = `${child.pid}\n${commandLine(command, args)}\n`;
  // Resolves once the service has exited and its pid file (if still its own) is gone.
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      owned.delete(child);
      dismissWatchdog();
      if (!pidFile) return resolve();
      void readFile(pidFile, 'utf8')
        .then((recorded) => (recorded === pidRecord ? rm(pidFile, { force: true }) : undefined))
        .catch(() => undefined)
        .finally(resolve);
    }),
  );
  if (pidFile && child.pid) await writeFile(pidFile, pidRecord);
  return {
    child,
    output: () => tail,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
      if (!signalGroup(child.pid, stopSignal)) return;
      const timer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function commandOf(pid: number): Promise<string | null> {
  try {
    const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter(Boolean).join(' ');
  } catch {
    return run('ps', ['-o', 'args=', '-p', String(pid)]).then(
      (r) => r.stdout.trim() || null,
      () => null,
    );
  }
}

async function groupGone(pid: number, withinMs: number): Promise<boolean> {
  for (let waited = 0; signalGroup(pid, 0); waited += 200) {
    if (waited >= withinMs) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
  return true;
}

/**
 * Stops what an earlier start on the same data folder left running (its pid file names the process,
 * and the process still runs the recorded command), then removes the pid file.
 */
export async function stopLeftover(name: string, pidFile: string, stopSignal: NodeJS.Signals, graceMs: number, log: (m: string) => void): Promise<void> {
  const recorded = await readFile(pidFile, 'utf8').catch(() => null);
  if (recorded === null) return;
  const [pidLine = '', command = ''] = recorded.split('\n');
  const pid = Number(pidLine);
  if (Number.isInteger(pid) && pid > 1 && command && (await commandOf(pid)) === command) {
    log(`stopping ${name} (pid ${pid}) left running by an earlier start on this data folder`);
    signalGroup(pid, stopSignal);
    if (!(await groupGone(pid, graceMs))) {
      signalGroup(pid, 'SIGKILL');
      await groupGone(pid, graceMs);
    }
  }
  await rm(pidFile, { force: true });
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
