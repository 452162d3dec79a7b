/**
 * @module cli/compile — `switchyard compile` of a whole project: one type-check of every script (in
 * worker threads), and meanwhile their bundles and manifests: reused from the cache when nothing
 * they are made of changed, otherwise bundled many to one esbuild build (as ES modules, the code
 * they share written once) and described many to one sandbox, two sandboxes side by side. A
 * script's bundle is kept once its type-check passes. Every script that fails, at whichever step,
 * is reported with its reason; what compiled is written to build/ all the same (build/manifest.json
 * lists both).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ScriptManifest } from '../features/scripts/manifest.js';
import { describeLinked, loadIsolatedVm, SandboxUnavailableError } from '../lib/sandbox/index.js';
import { bundleSha256, type LinkedBundle } from '../lib/sandbox/linked.js';
import { checkedManifest, loadFailure, sandboxMissing } from './build.js';
import { BuildCache, type CacheEntry } from './build-cache.js';
import { bundleMany, entryPathOf, SHARED_DIR, type Bundled } from './bundle-many.js';
import { typeProblems } from './check.js';
import { chunks, pool } from './pool.js';
import { failureReport, summaryLine, type CompileFailure } from './compile-report.js';
import { checkZod, CLI_VERSION, refuseYaml, relative, requireScripts, type ScriptFile } from './project.js';
import { CliError, info, progress, step } from './ui.js';

export interface CompiledScript extends ScriptFile {
  /** Absolute path of the script's entry module in build/. */
  bundleFile: string;
  /** The shared modules it imports, directly or not: paths within build/. */
  modules: string[];
  sha256: string;
  manifest: ScriptManifest;
}

export interface CompileOutcome {
  compiled: CompiledScript[];
  failed: CompileFailure[];
  /** Every script of the project (or of the integration asked for). */
  scripts: ScriptFile[];
  /** Scripts whose bundle and manifest came from the cache. */
  reused: number;
  manifestFile: string;
}

/** Scripts per esbuild build: whole integrations in each (their models shared), the next bundled while one is described. */
const BUNDLE_BATCH = 1000;
/** Scripts described in one isolate, their shared modules (zod…) loaded once. */
const DESCRIBE_BATCH = 100;

export const bundlePath = (dir: string, s: ScriptFile) => path.join(dir, 'build', entryPathOf(s));

/** A failure of bundle() or manifestOf() (a CliError naming the file) as the report shows it. */
function failureOf(script: ScriptFile, stage: CompileFailure['stage'], err: unknown, dir: string): CompileFailure {
  if (!(err instanceof CliError)) throw err;
  const message = err.message.replace(`${relative(dir, script.file)} `, '').replace(/:$/, '');
  const reason = stage === 'load' ? message.replace(/^does not load: /, 'does not load: ').slice(0, 120) : message.slice(0, 120);
  return { script, stage, reason, lines: err.details.length ? err.details : [message] };
}

async function writeManifest(dir: string, compiled: CompiledScript[], failed: CompileFailure[]): Promise<string> {
  const file = path.join(dir, 'build', 'manifest.json');
  const scripts = compiled.map((b) => ({
    integration: b.integration,
    name: b.name,
    type: b.kind,
    file: relative(dir, b.bundleFile),
    modules: b.modules,
    sha256: b.sha256,
    manifest: b.manifest,
  }));
  const failures = failed.map((f) => ({ integration: f.script.integration, name: f.script.name, type: f.script.kind, stage: f.stage, reason: f.reason }));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ cli_version: CLI_VERSION, built_at: new Date().toISOString(), scripts, failed: failures }, null, 2)}\n`);
  return file;
}

/** Files a previous compile left in build/ that no compiled script uses now (scripts gone or failing, shared modules no longer imported). */
async function removeStale(dir: string, compiled: CompiledScript[]): Promise<void> {
  const build = path.join(dir, 'build');
  const kept = new Set([...compiled.map((c) => path.resolve(c.bundleFile)), ...compiled.flatMap((c) => c.modules.map((m) => path.join(build, m)))]);
  const file = path.join(build, 'manifest.json');
  let previous: { file?: string }[] = [];
  try {
    previous = (JSON.parse(await readFile(file, 'utf8')) as { scripts?: { file?: string }[] }).scripts ?? [];
  } catch {
    // no previous build
  }
  const candidates = previous.flatMap((p) => (p.file ? [path.resolve(dir, p.file)] : []));
  const shared = path.join(build, SHARED_DIR);
  if (existsSync(shared)) candidates.push(...(await readdir(shared)).map((f) => path.join(shared, f)));
  for (const abs of candidates) if (!kept.has(abs) && abs.startsWith(build + path.sep)) await rm(abs, { force: true });
}

/** Writes a script's entry and the shared modules it imports (each once per compile) to build/. */
function bundleWriter(dir: string): (b: LinkedBundle) => Promise<void> {
  const written = new Set<string>();
  return async (b) => {
    for (const [p, code] of [[b.entryPath, b.entry] as const, ...Object.entries(b.modules)]) {
      if (written.has(p)) continue;
      written.add(p);
      const file = path.join(dir, 'build', p);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, code);
    }
  };
}

type Made = (Bundled & { manifest: ScriptManifest }) | CompileFailure;

/**
 * Bundles and describes the scripts (before their type-check is known): a script's bundle with its
 * manifest, or why it failed. Batches of BUNDLE_BATCH: the next is bundled while one is described.
 */
async function bundleAndDescribe(dir: string, scripts: ScriptFile[], unchanged: number): Promise<Made[]> {
  if (!scripts.length) return [];
  const made: Made[] = [];
  const bar = progress(`Bundling and describing ${scripts.length} function(s)${unchanged ? ` (${unchanged} unchanged)` : ''}`, scripts.length);
  const parallel = Math.max(2, os.availableParallelism());
  const describe = async (items: Bundled[]) =>
    pool(chunks(items, DESCRIBE_BATCH), parallel, async (group) => {
      const described = await describeLinked(group.map((b) => b.bundle));
      for (const [i, b] of group.entries()) {
        const d = described[i]!;
        try {
          if (!d.ok) throw loadFailure(dir, b.script, d.error);
          made.push({ ...b, manifest: checkedManifest(dir, b.script, d.value) });
        } catch (err) {
          made.push(failureOf(b.script, d.ok ? 'manifest' : 'load', err, dir));
        }
        bar.advance();
      }
    });
  const batches = chunks(scripts, BUNDLE_BATCH);
  let bundling: Promise<Awaited<ReturnType<typeof bundleMany>>> | null = bundleMany(dir, batches[0]!);
  // The next batch bundles while the last one is described.
  let describing: Promise<void> = Promise.resolve();
  for (let n = 0; n < batches.length; n++) {
    const result = await bundling!;
    bundling = n + 1 < batches.length ? bundleMany(dir, batches[n + 1]!) : null;
    bundling?.catch(() => undefined);
    for (const f of result.failed) {
      const reason = `does not bundle: ${(f.lines[0] ?? '').replace(/^[^ ]+:\d+:\d+: /, '').slice(0, 100)}`;
      made.push({ script: f.script, stage: 'bundle', reason, lines: f.lines });
      bar.advance();
    }
    await describing;
    describing = describe(result.bundled);
  }
  await describing;
  bar.done(`${made.filter((m) => !('stage' in m)).length} of ${scripts.length}`);
  return made;
}

export async function compileProject(dir: string, opts: { integration?: string } = {}): Promise<CompileOutcome> {
  refuseYaml(dir);
  const zodDir = await checkZod(dir);
  let scripts = await requireScripts(dir);
  if (opts.integration) {
    scripts = scripts.filter((s) => s.integration === opts.integration);
    if (!scripts.length) throw new CliError(`No scripts of the integration ${opts.integration}`, 'check the folder name (it is the integration key)');
  }
  await loadIsolatedVm().catch((err: unknown) => {
    throw err instanceof SandboxUnavailableError ? sandboxMissing(err) : err;
  });
  const cache = await BuildCache.open(dir);
  const hits = new Map<ScriptFile, CacheEntry>();
  await pool(scripts, 16, async (s) => {
    const hit = await cache.lookup(s, bundlePath(dir, s));
    if (hit) hits.set(s, hit);
  });
  const toBuild = scripts.filter((s) => !hits.has(s)).sort((a, b) => `${a.integration}/${a.name}`.localeCompare(`${b.integration}/${b.name}`));
  // The type-check runs in worker threads while this thread bundles and describes.
  const typeCheck = step(`Type-checking ${scripts.length} function(s)`, () => typeProblems(dir, scripts, zodDir, { prune: !opts.integration }));
  typeCheck.catch(() => undefined);
  const made = await bundleAndDescribe(dir, toBuild, hits.size);
  const types = await typeCheck;
  info(`  type-checked ${types.groups - types.unchanged} of ${types.groups} group(s) of integrations; ${types.unchanged} unchanged, reused`);

  const failed: CompileFailure[] = [];
  for (const s of scripts) {
    const problems = types.byScript.get(s.file);
    if (problems) failed.push({ script: s, stage: 'type-check', reason: `type error ${problems[0]!.code}`, lines: problems.map((p) => p.line) });
  }
  const compiled: CompiledScript[] = [];
  for (const [s, hit] of hits) {
    if (!types.byScript.has(s.file))
      compiled.push({ ...s, bundleFile: bundlePath(dir, s), modules: Object.keys(hit.modules), sha256: hit.sha256, manifest: hit.manifest });
  }
  const reused = compiled.length;
  const write = bundleWriter(dir);
  for (const m of made) {
    if (types.byScript.has(m.script.file)) continue;
    if ('stage' in m) {
      failed.push(m);
      continue;
    }
    await write(m.bundle);
    const entry = await cache.record(m.script, m.inputs, m.bundle, m.manifest);
    compiled.push({ ...m.script, bundleFile: bundlePath(dir, m.script), modules: Object.keys(entry.modules), sha256: entry.sha256, manifest: m.manifest });
  }

  compiled.sort((a, b) => `${a.integration}/${a.name}`.localeCompare(`${b.integration}/${b.name}`));
  failed.sort((a, b) => `${a.script.integration}/${a.script.name}`.localeCompare(`${b.script.integration}/${b.script.name}`));
  await removeStale(dir, compiled);
  const manifestFile = await writeManifest(dir, compiled, failed);
  await cache.save();
  return { compiled, failed, scripts, reused, manifestFile };
}

/** The bundle of a compiled script, read from build/ when a deploy sends it. */
export async function bundleOf(dir: string, s: CompiledScript): Promise<LinkedBundle> {
  const build = path.join(dir, 'build');
  const entryPath = path.relative(build, s.bundleFile).split(path.sep).join('/');
  const modules: Record<string, string> = {};
  for (const m of s.modules) modules[m] = await readFile(path.join(build, m), 'utf8');
  const bundle = { entryPath, entry: await readFile(s.bundleFile, 'utf8'), modules };
  if (bundleSha256(bundle) !== s.sha256) {
    throw new CliError(`${s.bundleFile} (or a module it imports) changed after compile`, 'run `switchyard compile` (or the deploy) again');
  }
  return bundle;
}

/** `switchyard compile`: the report of what failed, the summary line; exit 1 when any function failed. */
export async function compile(dir: string, opts: { integration?: string } = {}): Promise<number> {
  const outcome = await compileProject(dir, opts);
  for (const line of failureReport(outcome.failed, outcome.scripts)) info(line);
  const line = summaryLine(outcome.compiled.length, outcome.scripts.length, outcome.failed, outcome.reused);
  if (!outcome.failed.length) {
    info(`✓ ${line}; manifest at ${relative(dir, outcome.manifestFile)}`);
    return 0;
  }
  throw new CliError(
    line,
    `fix the functions listed above and compile again; build/ holds the ${outcome.compiled.length} that compiled (build/manifest.json lists the others under "failed")`,
  );
}
