/**
 * @module cli/check — the type-check of a whole project, once: groups of whole integrations, each
 * type-checked by TypeScript's native compiler (cli/native-tsc) in a process of its own, two at a
 * time while the main thread bundles and describes; their diagnostics are given to the scripts they
 * fail. A group none of whose files changed since the last compile is not checked again
 * (cli/check-cache); in one that is, unchanged files keep their results (its .tsbuildinfo). A
 * diagnostic in a shared file (models.ts, a helper) fails every script that imports it, directly or
 * not; one without a file fails them all. Only the project's own files are checked: the SDK's are
 * this CLI's, checked where it is built.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import type ts from 'typescript';
import { CheckCache, groupId, type TypeCheckResult, type TypeProblem } from './check-cache.js';
import { sha256 } from './content-hash.js';
import { pool } from './pool.js';
import { relative, type ScriptFile } from './project.js';
import { runNativeCompiler, type NativeDiagnostic } from './native-tsc.js';
import { compilerOptions, tsconfigOptions } from './ts-options.js';

export type { TypeCheckResult, TypeProblem } from './check-cache.js';

function problemOf(dir: string, d: NativeDiagnostic): TypeProblem {
  // A member Switchyard refuses is named deep in the chain ("Type 'Unsupported<\"x is not supported…\">' has no call signatures").
  const text = d.chain.find((l) => l.includes('is not supported by Switchyard')) ?? d.chain[0]!;
  const where = d.file ? `${relative(dir, d.file)}:${d.line}:${d.column} ` : '';
  return { code: d.code, line: `${where}${text}` };
}

/** The project files (not under node_modules) a file imports, directly or not. */
function closureFinder(typescript: typeof ts, options: ts.CompilerOptions, dir: string): (root: string) => Set<string> {
  const cache = typescript.createModuleResolutionCache(dir, (f) => f, options);
  const direct = new Map<string, string[]>();
  const importsOf = (file: string): string[] => {
    let out = direct.get(file);
    if (out) return out;
    out = [];
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // A file the program could not read has no imports.
    }
    for (const imported of typescript.preProcessFile(text, true, true).importedFiles) {
      const resolved = typescript.resolveModuleName(imported.fileName, file, options, typescript.sys, cache).resolvedModule;
      if (resolved && !resolved.isExternalLibraryImport && !resolved.resolvedFileName.includes(`${path.sep}node_modules${path.sep}`))
        out.push(path.resolve(resolved.resolvedFileName));
    }
    direct.set(file, out);
    return out;
  };
  return (root) => {
    const seen = new Set<string>();
    const queue = [path.resolve(root)];
    while (queue.length) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      queue.push(...importsOf(file));
    }
    return seen;
  };
}

/**
 * Files per TypeScript program. One program keeps every instantiated type of its files at once (one
 * over Nango's template library, 6,211 functions, takes 5 GB even in the native compiler):
 * programs of whole integrations up to this many functions stay small (~250 MB each), and a change
 * re-checks one of them. SWITCHYARD_CHECK_CHUNK overrides it.
 */
export const CHECK_CHUNK = 250;

/**
 * Compilers at a time (SWITCHYARD_CHECK_WORKERS overrides): the main thread bundles and describes
 * meanwhile, so a 2-core machine is busy on both cores.
 */
export const CHECK_WORKERS = 2;

const setting = (name: string, fallback: number) => Number(process.env[name]) || fallback;

/**
 * Whether a group ends after an integration: when a hash of its key falls under its share of a
 * group (its functions over two thirds of `size`), so that groups end at the same integrations
 * whatever comes before them, and adding, removing or changing one integration changes the group
 * it is in and mostly no other. On Nango's 6,211 functions (193 integrations, size 250): 45 groups;
 * removing one integration changes at most one group for 155 of them, two for 25.
 */
function endsGroup(integration: string, functions: number, size: number): boolean {
  return Number.parseInt(sha256(integration).slice(0, 8), 16) / 0x1_0000_0000 < functions / Math.max(1, (size * 2) / 3);
}

/**
 * Whole integrations, by key, in groups that end where endsGroup says, or before one would pass
 * `size` scripts (a larger integration is one group).
 */
export function checkGroups(scripts: ScriptFile[], size = CHECK_CHUNK): ScriptFile[][] {
  const groups: ScriptFile[][] = [];
  let current: ScriptFile[] = [];
  const byIntegration = new Map<string, ScriptFile[]>();
  for (const s of scripts) byIntegration.set(s.integration, [...(byIntegration.get(s.integration) ?? []), s]);
  for (const [integration, list] of [...byIntegration].sort(([a], [b]) => a.localeCompare(b))) {
    if (current.length && current.length + list.length > size) {
      groups.push(current);
      current = [];
    }
    current.push(...list);
    if (endsGroup(integration, list.length, size)) {
      groups.push(current);
      current = [];
    }
  }
  if (current.length) groups.push(current);
  return groups;
}

/** A group's result, and the files its program read (what the result is reused by). */
export interface GroupResult extends TypeCheckResult {
  programFiles: string[];
}

/** One group's type-check. */
export interface GroupJob {
  dir: string;
  files: string[];
  zodDir: string;
  tsBuildInfoFile: string;
}

export interface ProjectCheck extends TypeCheckResult {
  groups: number;
  /** Groups whose result of an earlier compile was reused (none of their files changed). */
  unchanged: number;
}

/**
 * The type problems of each script (scripts without any are absent), and their count in all.
 * `prune`: the scripts are the whole project, so what groups no longer in it left goes.
 */
export async function typeProblems(dir: string, scripts: ScriptFile[], zodDir: string, opts: { prune?: boolean } = {}): Promise<ProjectCheck> {
  const groups = checkGroups(scripts, setting('SWITCHYARD_CHECK_CHUNK', CHECK_CHUNK));
  const cache = new CheckCache(dir, zodDir);
  const ids = groups.map((g) => groupId([...new Set(g.map((s) => s.integration))]));
  if (opts.prune) await cache.prune(ids);
  const byScript = new Map<string, TypeProblem[]>();
  let count = 0;
  let unchanged = 0;
  await pool([...groups.entries()], setting('SWITCHYARD_CHECK_WORKERS', CHECK_WORKERS), async ([i, group]) => {
    const id = ids[i]!;
    const files = group.map((s) => s.file);
    let found: TypeCheckResult | null = await cache.lookup(id, files);
    if (found) unchanged++;
    else {
      const checked = await checkGroup({ dir, files, zodDir, tsBuildInfoFile: cache.buildInfoFile(id) });
      await cache.record(id, files, checked.programFiles, checked);
      found = checked;
    }
    for (const [file, problems] of found.byScript) byScript.set(file, problems);
    count += found.count;
  });
  return { byScript, count, groups: groups.length, unchanged };
}

const inProject = (dir: string, file: string) => {
  const rel = path.relative(dir, file);
  return !rel.startsWith('..') && !path.isAbsolute(rel) && !rel.split(path.sep).includes('node_modules');
};

/** A diagnostic TypeScript reports before any semantic one: while there is one, tsc reports no other kind. */
const isSyntactic = (d: NativeDiagnostic) => d.file !== null && /^TS1\d{3}$/.test(d.code);

/**
 * One group's type-check. tsc leaves out semantic diagnostics while a file has a syntax error, so
 * then the scripts that reach no such file are checked again without the others (which fail on it).
 */
export async function checkGroup({ dir, files, zodDir, tsBuildInfoFile }: GroupJob): Promise<GroupResult> {
  const tsconfig = tsBuildInfoFile.replace(/\.tsbuildinfo$/, '') + '.tsconfig.json';
  await mkdir(path.dirname(tsconfig), { recursive: true });
  const options = { ...tsconfigOptions(zodDir, dir), incremental: true, tsBuildInfoFile };
  let closure: ((root: string) => Set<string>) | null = null;
  const closureOf = async (file: string) => {
    closure ??= closureFinder((await import('typescript')).default, await compilerOptions(zodDir, dir), dir);
    return closure(file);
  };
  const diagnostics: NativeDiagnostic[] = [];
  const programFiles = new Set<string>();
  let roots = files.map((f) => path.resolve(f));
  while (roots.length) {
    await writeFile(tsconfig, JSON.stringify({ compilerOptions: options, files: roots }));
    const run = await runNativeCompiler(tsconfig, dir);
    for (const f of run.files) programFiles.add(f);
    // The SDK's own files are checked where it is built, not under the project's options.
    const own = run.diagnostics.filter((d) => d.file === null || inProject(dir, d.file));
    diagnostics.push(...own);
    const broken = new Set(own.filter(isSyntactic).map((d) => d.file!));
    if (!broken.size) break;
    const clean: string[] = [];
    for (const root of roots) if (![...(await closureOf(root))].some((f) => broken.has(f))) clean.push(root);
    if (clean.length === roots.length) break;
    roots = clean;
  }
  const byScript = new Map<string, TypeProblem[]>();
  const unique = [...new Map(diagnostics.map((d) => [`${d.file}:${d.line}:${d.column}:${d.code}:${d.chain[0]}`, d])).values()];
  if (!unique.length) return { byScript, count: 0, programFiles: [...programFiles] };
  const byFile = new Map<string, TypeProblem[]>();
  const everywhere: TypeProblem[] = [];
  for (const d of unique) {
    const problem = problemOf(dir, d);
    if (!d.file) everywhere.push(problem);
    else byFile.set(d.file, [...(byFile.get(d.file) ?? []), problem]);
  }
  for (const file of files) {
    const own = byFile.get(path.resolve(file)) ?? [];
    const shared = [...(await closureOf(file))].filter((f) => f !== path.resolve(file)).flatMap((f) => byFile.get(f) ?? []);
    const all = [...everywhere, ...own, ...shared];
    if (all.length) byScript.set(file, all);
  }
  return { byScript, count: unique.length, programFiles: [...programFiles] };
}
