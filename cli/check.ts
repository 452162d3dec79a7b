/**
 * @module cli/check — the type-check of a whole project, once: incremental TypeScript programs over
 * groups of whole integrations, each in a worker thread of its own (cli/check-worker), their
 * diagnostics given to the scripts they fail. A group none of whose files changed since the last
 * compile is not checked again (cli/check-cache); in one that is, unchanged files keep their
 * results (its .tsbuildinfo). A diagnostic in a shared file (models.ts, a helper) fails every script that imports it,
 * directly or not; one without a file fails them all. Only the project's own files are checked:
 * the SDK's are this CLI's, checked where it is built.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type ts from 'typescript';
import { CheckCache, groupId, type TypeCheckResult, type TypeProblem } from './check-cache.js';
import { sha256 } from './content-hash.js';
import { pool } from './pool.js';
import { relative, type ScriptFile } from './project.js';
import { compilerOptions } from './ts-options.js';

export type { TypeCheckResult, TypeProblem } from './check-cache.js';

function problemOf(typescript: typeof ts, dir: string, d: ts.Diagnostic): TypeProblem {
  const chain = typescript.flattenDiagnosticMessageText(d.messageText, '\n').split('\n');
  // A member Switchyard refuses is named deep in the chain ("Type 'Unsupported<\"x is not supported…\">' has no call signatures").
  const text = chain.find((l) => l.includes('is not supported by Switchyard'))?.trim() ?? chain[0]!;
  let where = '';
  if (d.file && d.start !== undefined) {
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    where = `${relative(dir, d.file.fileName)}:${line + 1}:${character + 1} `;
  }
  return { code: `TS${d.code}`, line: `${where}${text}` };
}

/** The project files (not under node_modules) a file imports, directly or not. */
function closureFinder(typescript: typeof ts, program: ts.Program, dir: string): (root: string) => Set<string> {
  const options = program.getCompilerOptions();
  const cache = typescript.createModuleResolutionCache(dir, (f) => f, options);
  const direct = new Map<string, string[]>();
  const importsOf = (file: string): string[] => {
    let out = direct.get(file);
    if (out) return out;
    out = [];
    const source = program.getSourceFile(file);
    for (const imported of source ? typescript.preProcessFile(source.text, true, true).importedFiles : []) {
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
 * Files per TypeScript program. One program keeps every instantiated type of its files at once
 * (one over Nango's template library, 6,211 functions, outgrew V8's 4 GB heap): programs of whole
 * integrations up to this many functions, each in a worker whose heap goes when it exits, stay
 * small. SWITCHYARD_CHECK_CHUNK overrides it.
 */
export const CHECK_CHUNK = 250;

/**
 * Type-check workers at a time (SWITCHYARD_CHECK_WORKERS overrides): the main thread bundles and
 * describes meanwhile, so a 2-core machine is busy on both cores; two programs at once stay under
 * 2 GB with CHECK_CHUNK functions each.
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

/** One group's type-check as a worker gets it. */
export interface GroupJob {
  dir: string;
  files: string[];
  zodDir: string;
  tsBuildInfoFile: string;
}

/** Run from the sources (under tsx), not from the packed CLI. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
/** The worker's module: the packed CLI's is beside dist/switchyard.mjs (cli/pack.ts). */
const WORKER = new URL(FROM_SOURCES ? './check-worker.ts' : './check-worker.mjs', import.meta.url);

function inWorker(job: GroupJob): Promise<GroupResult> {
  return new Promise((resolve, reject) => {
    // A worker thread does not inherit tsx's loader: from the sources, it loads it first.
    const execArgv = FROM_SOURCES ? ['--import', import.meta.resolve('tsx/esm')] : undefined;
    const worker = new Worker(WORKER, { workerData: job, execArgv });
    let result: GroupResult | null = null;
    worker.once('message', (r: GroupResult) => (result = r));
    worker.once('error', reject);
    worker.once('exit', (code) => (result ? resolve(result) : reject(new Error(`the type-check worker exited with code ${code} and no result`))));
  });
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
      const checked = await inWorker({ dir, files, zodDir, tsBuildInfoFile: cache.buildInfoFile(id) });
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

/** One group's type-check (in a worker: cli/check-worker). */
export async function checkGroup({ dir, files, zodDir, tsBuildInfoFile }: GroupJob): Promise<GroupResult> {
  const typescript = (await import('typescript')).default;
  const options = { ...(await compilerOptions(zodDir, dir)), incremental: true, tsBuildInfoFile };
  const builder = typescript.createIncrementalProgram({ rootNames: files, options });
  const projectFiles = builder.getSourceFiles().filter((f) => !f.isDeclarationFile && inProject(dir, f.fileName));
  const diagnostics = [
    ...builder.getConfigFileParsingDiagnostics(),
    ...builder.getSyntacticDiagnostics(),
    ...builder.getGlobalDiagnostics(),
    ...projectFiles.flatMap((f) => builder.getSemanticDiagnostics(f)),
  ];
  builder.emit();
  const programFiles = builder.getSourceFiles().map((f) => path.resolve(f.fileName));
  const byScript = new Map<string, TypeProblem[]>();
  if (!diagnostics.length) return { byScript, count: 0, programFiles };
  const byFile = new Map<string, TypeProblem[]>();
  const everywhere: TypeProblem[] = [];
  for (const d of diagnostics) {
    const problem = problemOf(typescript, dir, d);
    if (!d.file) everywhere.push(problem);
    else byFile.set(path.resolve(d.file.fileName), [...(byFile.get(path.resolve(d.file.fileName)) ?? []), problem]);
  }
  const closure = closureFinder(typescript, builder.getProgram(), dir);
  for (const file of files) {
    const own = byFile.get(path.resolve(file)) ?? [];
    const shared = [...closure(file)].filter((f) => f !== path.resolve(file)).flatMap((f) => byFile.get(f) ?? []);
    const all = [...everywhere, ...own, ...shared];
    if (all.length) byScript.set(file, all);
  }
  return { byScript, count: diagnostics.length, programFiles };
}
