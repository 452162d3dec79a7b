/**
 * @module cli/check — the type-check of a whole project, once: one incremental TypeScript program
 * over every script (unchanged files keep their results in .switchyard/tsbuildinfo), its
 * diagnostics given to the scripts they fail. A diagnostic in a shared file (models.ts, a helper)
 * fails every script that imports it, directly or not; one without a file fails them all.
 */
import path from 'node:path';
import type ts from 'typescript';
import { compilerOptions } from './build.js';
import { relative, type ScriptFile } from './project.js';

export interface TypeProblem {
  /** `TS2345`, the group a report counts it in. */
  code: string;
  /** `hubspot/actions/x.ts:12:5 Argument of type …` (first line of the message, or the one naming a refused member). */
  line: string;
}

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
 * Files per TypeScript program. One program over a whole large project keeps every instantiated
 * type of every file at once (Nango's template library, 6,211 functions, outgrew V8's 4 GB heap);
 * programs of whole integrations up to this many functions, one after the other, stay flat.
 */
export const CHECK_CHUNK = 500;

/** Whole integrations, in order, packed into groups of at most CHECK_CHUNK scripts (a larger integration is one group). */
export function checkGroups(scripts: ScriptFile[], size = CHECK_CHUNK): ScriptFile[][] {
  const groups: ScriptFile[][] = [];
  let current: ScriptFile[] = [];
  const byIntegration = new Map<string, ScriptFile[]>();
  for (const s of scripts) byIntegration.set(s.integration, [...(byIntegration.get(s.integration) ?? []), s]);
  for (const list of byIntegration.values()) {
    if (current.length && current.length + list.length > size) {
      groups.push(current);
      current = [];
    }
    current.push(...list);
  }
  if (current.length) groups.push(current);
  return groups;
}

/** The type problems of each script (scripts without any are absent), and their count in all. */
export async function typeProblems(dir: string, scripts: ScriptFile[], zodDir: string): Promise<{ byScript: Map<string, TypeProblem[]>; count: number }> {
  const groups = checkGroups(scripts);
  const byScript = new Map<string, TypeProblem[]>();
  let count = 0;
  for (const [i, group] of groups.entries()) {
    // Incremental: unchanged files keep their results in .switchyard/tsbuildinfo (one per group) between runs.
    const buildInfo = path.join(dir, '.switchyard', groups.length === 1 ? 'tsbuildinfo' : `tsbuildinfo-${i}`);
    const found = await checkGroup(dir, group, zodDir, buildInfo);
    for (const [file, problems] of found.byScript) byScript.set(file, problems);
    count += found.count;
  }
  return { byScript, count };
}

async function checkGroup(
  dir: string,
  scripts: ScriptFile[],
  zodDir: string,
  tsBuildInfoFile: string,
): Promise<{ byScript: Map<string, TypeProblem[]>; count: number }> {
  const typescript = (await import('typescript')).default;
  const options = { ...(await compilerOptions(zodDir, dir)), incremental: true, tsBuildInfoFile };
  const builder = typescript.createIncrementalProgram({ rootNames: scripts.map((s) => s.file), options });
  const diagnostics = [
    ...builder.getConfigFileParsingDiagnostics(),
    ...builder.getSyntacticDiagnostics(),
    ...builder.getGlobalDiagnostics(),
    ...builder.getSemanticDiagnostics(),
  ];
  builder.emit();
  const byScript = new Map<string, TypeProblem[]>();
  if (!diagnostics.length) return { byScript, count: 0 };
  const byFile = new Map<string, TypeProblem[]>();
  const everywhere: TypeProblem[] = [];
  for (const d of diagnostics) {
    const problem = problemOf(typescript, dir, d);
    if (!d.file) everywhere.push(problem);
    else byFile.set(path.resolve(d.file.fileName), [...(byFile.get(path.resolve(d.file.fileName)) ?? []), problem]);
  }
  const closure = closureFinder(typescript, builder.getProgram(), dir);
  for (const s of scripts) {
    const own = byFile.get(path.resolve(s.file)) ?? [];
    const shared = [...closure(s.file)].filter((f) => f !== path.resolve(s.file)).flatMap((f) => byFile.get(f) ?? []);
    const all = [...everywhere, ...own, ...shared];
    if (all.length) byScript.set(s.file, all);
  }
  return { byScript, count: diagnostics.length };
}
