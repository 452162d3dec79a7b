/**
 * The worker's native heap keeps few malloc arenas (worker/malloc.ts, issue 32): the image sets
 * MALLOC_ARENA_MAX, and a node process started with the image's environment, whose threads all
 * allocate, maps at most one arena besides the main one. glibc maps each extra arena as a 64 MB
 * aligned reservation whose used part is read-write and the rest inaccessible; those are counted
 * in /proc/self/smaps. Linux with glibc only.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { WORKER_MALLOC_ENV } from '../worker/malloc.js';

const glibc =
  process.platform === 'linux' && Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

// Eight threads each allocate and keep small buffers (malloc'd from their thread's arena), then
// the main thread prints how many glibc arenas the process mapped.
const ALLOCATE_ON_THREADS = `
const { Worker } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const work = 'const keep = []; for (let i = 0; i < 300; i++) keep.push(Buffer.alloc(16 * 1024, i)); require("node:worker_threads").parentPort.postMessage(keep.length);';
const ARENA = 64 * 1024 * 1024;
Promise.all(Array.from({ length: 8 }, () => new Promise((resolve) => { const w = new Worker(work, { eval: true }); w.once('message', () => resolve(w)); })))
  .then((threads) => {
    const maps = readFileSync('/proc/self/maps', 'utf8').trim().split('\\n').map((l) => {
      const [range, perm] = l.split(' ');
      const [a, b] = range.split('-').map((x) => parseInt(x, 16));
      return { a, b, perm, anon: l.trim().split(/\\s+/).length < 6 };
    });
    let arenas = 0;
    for (let i = 0; i + 1 < maps.length; i++) {
      const [used, rest] = [maps[i], maps[i + 1]];
      if (used.anon && rest.anon && used.perm === 'rw-p' && rest.perm === '---p' && used.a % ARENA === 0 && rest.a === used.b && rest.b - used.a === ARENA) arenas++;
    }
    console.log(arenas);
    return Promise.all(threads.map((w) => w.terminate()));
  });
`;

/** The variables the image's final stage sets with ENV. */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const final = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  return Object.fromEntries(
    [...final.matchAll(/^ENV (.+)$/gm)].flatMap((m) => m[1]!.split(/\s+/).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
  );
}

function arenasWith(env: Record<string, string>): number {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'MALLOC_ARENA_MAX' && !k.startsWith('GLIBC_TUNABLES')));
  return Number(execFileSync(process.execPath, ['-e', ALLOCATE_ON_THREADS], { encoding: 'utf8', env: { ...clean, ...env } }).trim());
}

describe('the worker keeps few malloc arenas', { skip: glibc ? false : 'glibc on Linux only' }, () => {
  test("the image's environment sets the worker's MALLOC_ARENA_MAX", () => {
    assert.equal(imageEnv().MALLOC_ARENA_MAX, WORKER_MALLOC_ENV.MALLOC_ARENA_MAX);
  });

  test("a process with the image's environment whose 8 threads allocate maps at most one arena besides the main one", () => {
    const without = arenasWith({});
    const withImage = arenasWith(imageEnv());
    assert.ok(without > 1, `the check counts arenas: ${without} without the setting`);
    assert.ok(withImage <= 1, `${withImage} extra arenas with the image's environment (${without} without)`);
  });
});
