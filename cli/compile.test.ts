/**
 * `switchyard compile` of a project in Nango's layout (bench/large-project.ts, 40 functions in 4
 * integrations, 4 of them written to fail): every failing function is printed, grouped by
 * integration and reason, with the line `compiled N of M functions`; the exit is 1 and build/
 * holds what compiled. A second compile reuses every bundle (counted from build/manifest.json
 * and the summary line); a change to one function, then to one integration's models.ts, rebuilds
 * those and no more. What the functions share (zod, the SDK runtime) is written to build/ once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { writeLargeProject, integrationKey, type LargeProject } from '../bench/large-project.js';
import { PACKAGE_ROOT } from './project.js';

function compile(dir: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PACKAGE_ROOT, 'cli', 'bin.mjs'), 'compile', '--dir', dir], {
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

interface Manifest {
  scripts: { integration: string; name: string; sha256: string; file: string; modules: string[] }[];
  failed: { integration: string; name: string; stage: string; reason: string }[];
}
const manifestOf = async (dir: string) => JSON.parse(await readFile(path.join(dir, 'build', 'manifest.json'), 'utf8')) as Manifest;
/** How many bundles the compile made rather than reused: the summary line says how many it reused. */
const reusedIn = (r: { stdout: string; stderr: string }) => Number(/(\d+) unchanged, reused from the cache/.exec(r.stdout + r.stderr)?.[1] ?? 0);

describe('compile of a large project: grouped failures, summary line, content cache', () => {
  let work: string;
  let project: LargeProject;
  before(async () => {
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'compile-scale-'));
    project = await writeLargeProject(path.join(work, 'proj'), {
      integrations: 4,
      functionsPerIntegration: 10,
      broken: [
        { integration: 1, fn: 1, as: 'type' },
        { integration: 1, fn: 4, as: 'type' },
        { integration: 2, fn: 2, as: 'bundle' },
        { integration: 3, fn: 3, as: 'load' },
      ],
    });
  });
  after(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('every failing function is printed under its integration and reason; the rest is written to build/', async () => {
    const r = await compile(project.dir);
    const out = r.stdout + r.stderr;
    assert.equal(r.code, 1, out);
    assert.match(out, /compiled 36 of 40 functions; 4 failed in 3 integration\(s\)/);
    // The type-check runs in worker threads while the main thread bundles: bundling starts before it ends.
    assert.ok(r.stdout.indexOf('… Bundling and describing 40 function(s)') >= 0, r.stdout);
    assert.ok(r.stdout.indexOf('… Bundling and describing 40 function(s)') < r.stdout.indexOf('✓ Type-checking 40 function(s)'), r.stdout);
    const [one, two, three] = [1, 2, 3].map(integrationKey);
    // app-001: two type errors of one code, grouped together, each function with its file and line.
    assert.match(
      out,
      new RegExp(
        `✗ ${one}: 2 of 10 function\\(s\\) failed\\n    type error TS2322 \\(2\\)\\n      sync contacts-4\\n          ${one}/syncs/contacts-4\\.ts:\\d+:\\d+ [^\\n]+\\n      action update-contact-1\\n          ${one}/actions/update-contact-1\\.ts:\\d+:\\d+ `,
      ),
    );
    assert.match(
      out,
      new RegExp(`✗ ${two}: 1 of 10 function\\(s\\) failed\\n    does not bundle: 'node:fs' is a Node module[^\\n]*\\n      action update-contact-2\\n`),
    );
    assert.match(
      out,
      new RegExp(`✗ ${three}: 1 of 10 function\\(s\\) failed\\n    does not load: [^\\n]*\\n      action update-contact-3\\n[^\\n]*refuses to load`),
    );
    assert.match(out, /Reasons over the project \(functions\):\n\s+2\s+type error TS2322\n\s+1\s+does not/);
    const manifest = await manifestOf(project.dir);
    assert.equal(manifest.scripts.length, 36);
    assert.deepEqual(manifest.failed.map((f) => `${f.integration}/${f.name} ${f.stage}`).sort(), [
      `${one}/contacts-4 type-check`,
      `${one}/update-contact-1 type-check`,
      `${two}/update-contact-2 bundle`,
      `${three}/update-contact-3 load`,
    ]);
    assert.equal(reusedIn(r), 0);
  });

  test('zod and the SDK runtime are written once to build/_shared, not into every function', async () => {
    const manifest = await manifestOf(project.dir);
    const sizes = await Promise.all(manifest.scripts.map(async (s) => (await stat(path.join(project.dir, s.file))).size));
    // A function's own entry is a few KB; zod alone is over 100 KB minified.
    assert.ok(Math.max(...sizes) < 32 * 1024, `largest entry ${Math.max(...sizes)} bytes`);
    const everyOne = manifest.scripts.map((s) => new Set(s.modules)).reduce((a, b) => new Set([...a].filter((m) => b.has(m))));
    assert.ok(everyOne.size > 0, 'no shared module imported by every function');
    let total = 0;
    for (const f of await readdir(path.join(project.dir, 'build'), { recursive: true }))
      if (f.endsWith('.js')) total += (await stat(path.join(project.dir, 'build', f))).size;
    assert.ok(total < 1024 * 1024, `build/ holds ${total} bytes of JavaScript for 36 functions`);
  });

  test('a second compile reuses the 36 bundles; a changed function, then a changed models.ts, rebuild only what they are in', async () => {
    const before = await manifestOf(project.dir);
    const again = await compile(project.dir);
    assert.equal(again.code, 1);
    assert.equal(reusedIn(again), 36, again.stdout);
    // Only the four that failed are built again (failures are not cached); the two with type errors
    // too, as bundling runs while the type-check does, and are dropped after it.
    assert.match(again.stdout, /Bundling and describing 4 function\(s\) \(36 unchanged\)/);
    assert.deepEqual((await manifestOf(project.dir)).scripts, before.scripts);

    const zero = integrationKey(0);
    const fn = path.join(project.dir, zero, 'actions', 'update-contact-1.ts');
    await writeFile(fn, (await readFile(fn, 'utf8')).replace('Updates one contact', 'Updates a contact'));
    const oneChanged = await compile(project.dir);
    assert.equal(reusedIn(oneChanged), 35, oneChanged.stdout);
    assert.match(oneChanged.stdout, /Bundling and describing 5 function\(s\) \(35 unchanged\)/);

    const models = path.join(project.dir, zero, 'models.ts');
    await writeFile(models, (await readFile(models, 'utf8')).replace("'pending'", "'pending', 'solved'"));
    const modelsChanged = await compile(project.dir);
    assert.equal(reusedIn(modelsChanged), 26, modelsChanged.stdout);
    const tickets = (await manifestOf(project.dir)).scripts.find((s) => s.integration === zero && s.name === 'contacts-0');
    assert.ok(tickets);
  });
});

/** Every file under .switchyard (relative) with its mtime. */
async function stateFiles(dir: string): Promise<Map<string, number>> {
  const root = path.join(dir, '.switchyard');
  const out = new Map<string, number>();
  for (const f of await readdir(root, { recursive: true })) {
    const s = await stat(path.join(root, f));
    if (s.isFile()) out.set(f, s.mtimeMs);
  }
  return out;
}

/** The type-check states (TypeScript's .tsbuildinfo, one per group) a compile wrote: new, or with another mtime. */
async function checkStatesWritten(dir: string, before: Map<string, number>): Promise<string[]> {
  return [...(await stateFiles(dir))].filter(([f, mtime]) => path.basename(f).includes('tsbuildinfo') && before.get(f) !== mtime).map(([f]) => f);
}

describe('compile of a project of several type-check groups: groups are kept by content', () => {
  let work: string;
  let project: LargeProject;
  // Groups of at most 30 functions: 8 integrations of 10 make app-000..002, app-003..005 and app-006..007.
  const env = { SWITCHYARD_CHECK_CHUNK: '30' };
  before(async () => {
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'compile-groups-'));
    project = await writeLargeProject(path.join(work, 'proj'), { integrations: 8, functionsPerIntegration: 10 });
  });
  after(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('removing one integration, then editing one function, type-checks one group again, not the ones after it', async () => {
    const first = await compile(project.dir, env);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const firstStates = await checkStatesWritten(project.dir, new Map());

    // app-004 leaves: its group changes, and (numbered groups shifting) the groups after it must not be checked again.
    const gone = integrationKey(4);
    await rm(path.join(project.dir, gone), { recursive: true });
    const index = path.join(project.dir, 'index.ts');
    await writeFile(index, (await readFile(index, 'utf8')).replace(new RegExp(`^import './${gone}/.*\\n`, 'gm'), ''));
    let before = await stateFiles(project.dir);
    const removed = await compile(project.dir, env);
    assert.equal(removed.code, 0, removed.stdout + removed.stderr);
    assert.match(removed.stdout, /compiled 70 of 70 functions/);
    const written = await checkStatesWritten(project.dir, before);
    assert.equal(written.length, 1, `type-check states written: ${written.join(', ')}\n${removed.stdout}`);
    assert.match(removed.stdout, /type-checked 1 of 3 group\(s\) of integrations; 2 unchanged, reused/);
    assert.equal(firstStates.length, 3);
    assert.match(first.stdout, /type-checked 3 of 3 group\(s\) of integrations; 0 unchanged/);

    const fn = path.join(project.dir, integrationKey(6), 'actions', 'update-contact-1.ts');
    await writeFile(fn, (await readFile(fn, 'utf8')).replace('Updates one contact', 'Updates a contact'));
    before = await stateFiles(project.dir);
    const edited = await compile(project.dir, env);
    assert.equal(edited.code, 0, edited.stdout + edited.stderr);
    assert.deepEqual((await checkStatesWritten(project.dir, before)).length, 1, edited.stdout);
    assert.match(edited.stdout, /type-checked 1 of 3 group\(s\) of integrations; 2 unchanged, reused/);
  });
});
