/**
 * `npm start` as a user runs it (issue 14, items 9 and 8): the whole platform in one OS process,
 * spawned with the command of package.json's `start` script, on a data folder and ports of its own.
 * A kill -9 of that process leaves nothing behind; when its watchdogs die with it (an OOM kill of
 * several processes), the next start finds the leftovers by the pid files in the data folder and
 * stops them. Every start after the first is healthy on the same data and prints no secret key.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { freePort, portOpen } from '../lib/embedded/temporal.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The arguments after `node` in package.json's start script. */
function startArgs(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [node, ...args] = pkg.scripts.start.split(/\s+/);
  assert.equal(node, 'node');
  return args;
}

interface Ports {
  api: number;
  pg: number;
  temporal: number;
  ui: number;
}

interface Start {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Every process this file started or saw started, with its command line, for the final clean-up. */
const spawned = new Map<number, string>();
const remember = (procs: Proc[]) => procs.forEach((p) => spawned.set(p.pid, p.command));

function childEnv(dataDir: string, ports: Ports): NodeJS.ProcessEnv {
  // The platform's own configuration comes from this test only (no DATABASE_URL / TEMPORAL_ADDRESS:
  // the embedded services are the point).
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SWITCHYARD_|DATABASE_URL$|TEMPORAL_(?!CLI_PATH$)|PORT$)/.test(k)));
  return {
    ...inherited,
    PORT: String(ports.api),
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_EMBEDDED_PG_PORT: String(ports.pg),
    SWITCHYARD_EMBEDDED_TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    LOG_LEVEL: 'warn',
  };
}

async function startAll(dataDir: string, ports: Ports): Promise<Start> {
  const child = spawn(process.execPath, startArgs(), { cwd: ROOT, env: childEnv(dataDir, ports), stdio: ['ignore', 'pipe', 'pipe'] });
  spawned.set(child.pid!, [process.execPath, ...startArgs()].join(' '));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (;;) {
    if (out.includes('ready — Ctrl-C to stop')) break;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start exited before it was ready:\n${out}`);
    await sleep(200);
  }
  return { child, output: () => out, exited };
}

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  command: string;
}

function processTable(): Proc[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), command: m[4]! }));
}

/** The main process, its descendants, and every process in a process group one of them leads. */
function processesOf(mainPid: number): Proc[] {
  const table = processTable();
  const pids = new Set([mainPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (!pids.has(p.pid) && (pids.has(p.ppid) || pids.has(p.pgid))) {
        pids.add(p.pid);
        grew = true;
      }
    }
  }
  return table.filter((p) => pids.has(p.pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by its new parent) holds no port and runs nothing. `ps` fails
  // when the process went away after the signal check: gone too.
  try {
    return !/^\s*Z/.test(execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }));
  } catch {
    return false;
  }
}

/** Waits (generously: a shared, loaded machine) for the pids to be gone and the ports free. */
async function settled(pids: number[], ports: number[]): Promise<{ alive: number[]; open: number[] }> {
  let state = { alive: pids, open: ports };
  for (let i = 0; i < 300; i++) {
    const open: number[] = [];
    for (const port of ports) if (await portOpen(port)) open.push(port);
    state = { alive: pids.filter(alive), open };
    if (state.alive.length === 0 && state.open.length === 0) break;
    await sleep(200);
  }
  return state;
}

function pidFrom(file: string): number {
  return Number(readFileSync(file, 'utf8').split('\n')[0]);
}

async function api(ports: Ports, key: string, pathname: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`http://127.0.0.1:${ports.api}${pathname}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
}

describe('npm start as a process: kill -9, leftovers, restart on the same data', () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    for (const pid of [...spawned.keys()]) if (alive(pid)) remember(processesOf(pid));
    // Only processes still running the command they were seen with (pids are reused).
    for (const p of processTable().filter((p) => spawned.get(p.pid) === p.command)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const c of cleanup) await c();
  });

  test('kill -9 leaves nothing running; the next start is healthy with the data; pid files reclaim leftovers; the key is printed on the first start only', async () => {
    const dataDir = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'start-'));
    // As root PostgreSQL runs as the `postgres` user, which must reach the data folder.
    await chmod(dataDir, 0o755);
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const ports: Ports = { api: await freePort(), pg: await freePort(), temporal: await freePort(), ui: await freePort() };

    // First start: generates and prints the dev key; some data to find again.
    const first = await startAll(dataDir, ports);
    const key = first.output().match(/dev secret key: ([0-9a-f-]{36})/)?.[1];
    assert.ok(key, `the first start prints the generated dev key:\n${first.output()}`);
    const created = await api(ports, key, '/integrations', { method: 'POST', body: JSON.stringify({ provider: 'metabase', unique_key: 'kept' }) });
    assert.equal(created.status, 200, await created.text());

    // kill -9 of the main process: its services go with it.
    const before = processesOf(first.child.pid!);
    remember(before);
    assert.ok(before.length >= 3, `npm start runs Postgres and Temporal: ${JSON.stringify(before)}`);
    first.child.kill('SIGKILL');
    await first.exited;
    const left = await settled(
      before.map((p) => p.pid),
      Object.values(ports),
    );
    assert.deepEqual(left, { alive: [], open: [] }, `left behind: ${JSON.stringify(processTable().filter((p) => left.alive.includes(p.pid)))}`);

    // Second start on the same data: healthy, the integration is there, no key printed.
    const second = await startAll(dataDir, ports);
    assert.equal((await fetch(`http://127.0.0.1:${ports.api}/health`)).status, 200);
    const kept = await api(ports, key, '/integrations/kept');
    assert.equal(kept.status, 200, await kept.text());
    assert.ok(!second.output().includes(key), `a start that did not generate the key does not print it:\n${second.output()}`);

    // kill -9 of the main process and its watchdogs at once: the services are left running...
    const services = [pidFrom(path.join(dataDir, 'postgres', 'postgres.pid')), pidFrom(path.join(dataDir, 'temporal.pid'))];
    remember(processesOf(second.child.pid!));
    const mainPid = second.child.pid!;
    const helpers = processTable().filter((p) => p.ppid === mainPid && !services.includes(p.pid));
    for (const pid of [mainPid, ...helpers.map((p) => p.pid)]) process.kill(pid, 'SIGKILL');
    await second.exited;
    await sleep(1000);
    assert.deepEqual(
      services.map((pid) => alive(pid)),
      [true, true],
      'without their watchdogs the services outlive the main process',
    );

    // ...and the next start on the same data folder stops them and carries on.
    const third = await startAll(dataDir, ports);
    const leftovers = (await settled(services, [])).alive;
    assert.deepEqual(leftovers, [], 'the leftovers found by the pid files are stopped');
    const again = await api(ports, key, '/integrations/kept');
    assert.equal(again.status, 200, await again.text());
    assert.ok(!third.output().includes(key));

    // A clean stop leaves nothing either.
    const running = processesOf(third.child.pid!);
    third.child.kill('SIGTERM');
    assert.equal(await third.exited, 0, third.output());
    assert.deepEqual(
      await settled(
        running.map((p) => p.pid),
        Object.values(ports),
      ),
      { alive: [], open: [] },
    );
  });
});
