/**
 * @module scripts/corpus-typecheck — type-checks a Nango zero-yaml project (e.g. the
 * `integrations/` folder of Nango's public template library, cloned locally) with the compiler
 * options of `switchyard compile`, and counts the functions that type-check: a function passes
 * when neither its file nor any project file it imports has a diagnostic. Prints one line per
 * failing function (`--all`: every function), then the diagnostics grouped by TS code and by the
 * name they are about, and the summary line.
 *
 *   node --max-old-space-size=7000 --import tsx scripts/corpus-typecheck.ts <project> [--only a,b] [--all] [--json out.json]
 *
 * The whole library is heavy (minutes of CPU, gigabytes of memory): `--only` checks some
 * integrations' functions.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { compilerOptions } from '../cli/ts-options.js';
import { findScripts } from '../cli/project.js';

interface Args {
  dir: string;
  only: Set<string> | null;
  all: boolean;
  json: string | null;
}

function parseArgs(argv: string[]): Args {
  const rest = [...argv];
  const flag = (name: string): string | null => {
    const i = rest.indexOf(name);
    if (i < 0) return null;
    const [, value] = rest.splice(i, 2);
    return value ?? null;
  };
  const only = flag('--only');
  const json = flag('--json');
  const allAt = rest.indexOf('--all');
  if (allAt >= 0) rest.splice(allAt, 1);
  const dir = rest[0];
  if (!dir) throw new Error('usage: corpus-typecheck.ts <project dir> [--only a,b] [--all] [--json out.json]');
  return { dir: path.resolve(dir), only: only ? new Set(only.split(',')) : null, all: allAt >= 0, json };
}

/** What a diagnostic is about: the deepest line of its message chain, long quoted types elided. */
function subjectOf(message: string): string {
  const unsupported = /Unsupported<"([a-zA-Z]+) is not supported/.exec(message);
  if (unsupported) return `${unsupported[1]!} is not supported`;
  const lines = message.split('\n');
  return lines[lines.length - 1]!.trim().replace(/'[^']{41,}'/g, "'…'");
}

const flat = (d: ts.Diagnostic): string => ts.flattenDiagnosticMessageText(d.messageText, '\n');

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const zodDir = path.join(args.dir, 'node_modules', 'zod');
  if (!existsSync(zodDir)) throw new Error(`no zod in ${args.dir}/node_modules: run npm install there`);
  void run(args, zodDir);
}

async function run(args: Args, zodDir: string): Promise<void> {
  const started = Date.now();
  const scripts = (await findScripts(args.dir)).filter((s) => !args.only || args.only.has(s.integration));
  const options = await compilerOptions(zodDir, args.dir);
  const program = ts.createProgram({ rootNames: scripts.map((s) => s.file), options });

  const inProject = (f: string) => f.startsWith(args.dir + path.sep) && !f.includes(`${path.sep}node_modules${path.sep}`);
  const byFile = new Map<string, ts.Diagnostic[]>();
  const outside: ts.Diagnostic[] = [...program.getGlobalDiagnostics(), ...program.getOptionsDiagnostics()];
  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile) continue;
    const diags = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
    if (!diags.length) continue;
    if (inProject(sf.fileName)) byFile.set(sf.fileName, diags);
    else outside.push(...diags);
  }

  // Project files each file imports, to charge a helper's errors to every function that uses it.
  const importsOf = new Map<string, string[]>();
  for (const sf of program.getSourceFiles()) {
    if (!inProject(sf.fileName)) continue;
    const deps: string[] = [];
    for (const spec of ts.preProcessFile(sf.text, true, true).importedFiles) {
      const r = ts.resolveModuleName(spec.fileName, sf.fileName, options, ts.sys).resolvedModule;
      if (r && inProject(r.resolvedFileName)) deps.push(path.resolve(r.resolvedFileName));
    }
    importsOf.set(path.resolve(sf.fileName), deps);
  }
  const closure = (file: string): string[] => {
    const seen = new Set<string>([file]);
    const todo = [file];
    while (todo.length) for (const d of importsOf.get(todo.pop()!) ?? []) if (!seen.has(d) && seen.add(d)) todo.push(d);
    return [...seen];
  };

  const byCode = new Map<string, number>();
  const bySubject = new Map<string, number>();
  for (const diags of byFile.values()) {
    for (const d of diags) {
      const message = flat(d);
      const code = `TS${d.code} ${message
        .split('\n')[0]!
        .replace(/'[^']*'/g, "'…'")
        .slice(0, 90)}`;
      byCode.set(code, (byCode.get(code) ?? 0) + 1);
      const subject = `TS${d.code} ${subjectOf(message)}`;
      bySubject.set(subject, (bySubject.get(subject) ?? 0) + 1);
    }
  }

  const results = scripts.map((s) => {
    const files = closure(path.resolve(s.file));
    const diags = files.flatMap((f) => byFile.get(f) ?? []);
    return { function: `${s.integration}/${s.kind}s/${s.name}`, pass: diags.length === 0, diagnostics: diags };
  });
  const functionsBySubject = new Map<string, number>();
  for (const r of results) {
    for (const subject of new Set(r.diagnostics.map((d) => `TS${d.code} ${subjectOf(flat(d))}`)))
      functionsBySubject.set(subject, (functionsBySubject.get(subject) ?? 0) + 1);
  }

  const fmtHost: ts.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => args.dir, getNewLine: () => '\n' };
  for (const r of results) {
    if (r.pass && !args.all) continue;
    console.log(`${r.pass ? 'PASS' : 'FAIL'} ${r.function}${r.pass ? '' : ` (${r.diagnostics.length})`}`);
    if (!r.pass) console.log(`  ${flat(r.diagnostics[0]!).split('\n')[0]}`);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${String(v).padStart(6)}  ${k}`);
  console.log('\ndiagnostics by code:');
  for (const l of top(byCode, 40)) console.log(l);
  console.log('\nfailing functions by subject of their diagnostics:');
  for (const l of top(functionsBySubject, 60)) console.log(l);
  if (outside.length) {
    console.log(`\n${outside.length} diagnostics outside the project (SDK, options):`);
    console.log(ts.formatDiagnostics(outside.slice(0, 20), fmtHost));
  }
  const passed = results.filter((r) => r.pass).length;
  const memory = Math.round(process.memoryUsage().rss / 2 ** 20);
  console.log(
    `\n${passed} of ${results.length} functions type-check (${((100 * passed) / Math.max(1, results.length)).toFixed(2)}%); ${Math.round((Date.now() - started) / 1000)} s, rss ${memory} MB`,
  );
  if (args.json) {
    const out = results.map((r) => ({ function: r.function, pass: r.pass, diagnostics: r.diagnostics.map((d) => ({ code: d.code, message: flat(d) })) }));
    writeFileSync(args.json, JSON.stringify({ results: out, bySubject: Object.fromEntries(bySubject) }, null, 1));
  }
}

main();
