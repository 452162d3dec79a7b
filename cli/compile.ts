/**
 * @module cli/compile — `switchyard compile` of a whole project: one type-check of every script,
 * then, for the scripts that pass it, their bundles and manifests: reused from the cache when
 * nothing they are made of changed, otherwise bundled many to one esbuild build and described in
 * sandboxes run side by side. Every script that fails, at whichever step, is reported with its
 * reason; what compiled is written to build/ all the same (build/manifest.json lists both).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ScriptManifest } from '../features/scripts/manifest.js';
import { loadIsolatedVm, SandboxUnavailableError } from '../lib/sandbox/index.js';
import { manifestOf, sandboxMissing } from './build.js';
import { BuildCache } from './build-cache.js';
import { bundleMany, type Bundled } from './bundle-many.js';
import { typeProblems } from './check.js';
import { failureReport, summaryLine, type CompileFailure } from './compile-report.js';
import { checkZod, CLI_VERSION, refuseYaml, relative, requireScripts, type ScriptFile } from './project.js';
import { CliError, info, progress, step } from './ui.js';

export interface CompiledScript extends ScriptFile {
  /** Absolute path of the bundle in build/. */
  bundleFile: string;
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

/** Scripts per esbuild build: enough to parse zod and the SDK once for many, few enough to keep memory flat. */
const BUNDLE_BATCH = 200;

export const bundlePath = (dir: string, s: ScriptFile) => path.join(dir, 'build', s.integration, `${s.kind}s`, `${s.name}.js`);

/** Runs `fn` over the items, at most `limit` at a time. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

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
    sha256: b.sha256,
    manifest: b.manifest,
  }));
  const failures = failed.map((f) => ({ integration: f.script.integration, name: f.script.name, type: f.script.kind, stage: f.stage, reason: f.reason }));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ cli_version: CLI_VERSION, built_at: new Date().toISOString(), scripts, failed: failures }, null, 2)}\n`);
  return file;
}

/** Bundle files a previous compile left in build/ that this one did not make (scripts gone or failing now). */
async function removeStale(dir: string, compiled: CompiledScript[]): Promise<void> {
  const file = path.join(dir, 'build', 'manifest.json');
  if (!existsSync(file)) return;
  let previous: { file?: string }[];
  try {
    previous = (JSON.parse(await readFile(file, 'utf8')) as { scripts?: { file?: string }[] }).scripts ?? [];
  } catch {
    return;
  }
  const kept = new Set(compiled.map((c) => path.resolve(c.bundleFile)));
  for (const p of previous) {
    if (!p.file) continue;
    const abs = path.resolve(dir, p.file);
    if (!kept.has(abs) && abs.startsWith(path.join(dir, 'build') + path.sep)) await rm(abs, { force: true });
  }
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
  const failed: CompileFailure[] = [];
  const types = await step(`Type-checking ${scripts.length} function(s)`, () => typeProblems(dir, scripts, zodDir));
  for (const s of scripts) {
    const problems = types.byScript.get(s.file);
    if (problems) failed.push({ script: s, stage: 'type-check', reason: `type error ${problems[0]!.code}`, lines: problems.map((p) => p.line) });
  }
  const checked = scripts.filter((s) => !types.byScript.has(s.file));

  const cache = await BuildCache.open(dir);
  const compiled: CompiledScript[] = [];
  const toBuild: ScriptFile[] = [];
  await pool(checked, 16, async (s) => {
    const bundleFile = bundlePath(dir, s);
    const hit = await cache.lookup(s, bundleFile);
    if (hit) compiled.push({ ...s, bundleFile, sha256: hit.sha256, manifest: hit.manifest });
    else toBuild.push(s);
  });
  const reused = compiled.length;

  if (toBuild.length) {
    toBuild.sort((a, b) => `${a.integration}/${a.name}`.localeCompare(`${b.integration}/${b.name}`));
    const bar = progress(`Bundling and describing ${toBuild.length} function(s)${reused ? ` (${reused} unchanged)` : ''}`, toBuild.length);
    const parallel = Math.max(2, os.availableParallelism());
    const describe = (items: Bundled[]) =>
      pool(items, parallel, async ({ script, code, inputs }) => {
        try {
          const manifest = await manifestOf(dir, script, code);
          const bundleFile = bundlePath(dir, script);
          await mkdir(path.dirname(bundleFile), { recursive: true });
          await writeFile(bundleFile, code);
          const entry = await cache.record(script, inputs, code, manifest);
          compiled.push({ ...script, bundleFile, sha256: entry.sha256, manifest });
        } catch (err) {
          failed.push(failureOf(script, /does not load/.test((err as Error).message) ? 'load' : 'manifest', err, dir));
        }
        bar.advance();
      });
    // The next batch bundles while the last one is described; at most two batches are in memory.
    let describing: Promise<void> = Promise.resolve();
    for (const batch of chunks(toBuild, BUNDLE_BATCH)) {
      const result = await bundleMany(dir, batch);
      for (const f of result.failed) {
        failed.push({
          script: f.script,
          stage: 'bundle',
          reason: `does not bundle: ${(f.lines[0] ?? '').replace(/^[^ ]+:\d+:\d+: /, '').slice(0, 100)}`,
          lines: f.lines,
        });
        bar.advance();
      }
      await describing;
      describing = describe(result.bundled);
    }
    await describing;
    bar.done(`${toBuild.length - failed.filter((f) => f.stage !== 'type-check').length} of ${toBuild.length}`);
  }

  compiled.sort((a, b) => `${a.integration}/${a.name}`.localeCompare(`${b.integration}/${b.name}`));
  failed.sort((a, b) => `${a.script.integration}/${a.script.name}`.localeCompare(`${b.script.integration}/${b.script.name}`));
  await removeStale(dir, compiled);
  const manifestFile = await writeManifest(dir, compiled, failed);
  await cache.save();
  return { compiled, failed, scripts, reused, manifestFile };
}

/** The bundle of a compiled script, read from build/ when a deploy sends it. */
export async function bundleOf(s: CompiledScript): Promise<string> {
  const code = await readFile(s.bundleFile, 'utf8');
  if (createHash('sha256').update(code).digest('hex') !== s.sha256) {
    throw new CliError(`${s.bundleFile} changed after compile`, 'run `switchyard compile` (or the deploy) again');
  }
  return code;
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
