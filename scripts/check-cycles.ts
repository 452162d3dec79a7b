/**
 * Fails when the relative-import graph of our .ts/.tsx files has a cycle, or an import from a lower
 * floor to a higher one (scripts/layers.ts; type-only imports count there) (run by `npm run lint`).
 *
 * Edges are the imports that exist at run time: `import … from`, `import '…'` and `export … from`,
 * unless the whole statement is type-only (`import type`, or every specifier marked `type`):
 * those are erased by the compiler, so they cannot create an evaluation-order cycle. Dynamic
 * `import()` is not an edge either: it loads lazily, after both modules have been evaluated.
 * `--types` adds the type-only imports too (reported, for the curious; not enforced).
 *
 * Usage: node --import tsx scripts/check-cycles.ts [--types] [--quiet]
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { upwardImports } from './layers.js';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const SKIP = new Set(['node_modules', '.git', '.switchyard', 'dist', 'test-output']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The file a relative specifier names (`./x.js` → `./x.ts` / `./x.tsx`, `./dir` → `./dir/index.ts`). */
function resolveSpecifier(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  const stem = base.replace(/\.(m|c)?jsx?$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (/\.tsx?$/.test(candidate) && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
  }
  const clause = node.importClause;
  if (!clause) return false; // import './side-effect.js'
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

export function importGraph(root: string, includeTypes: boolean): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const edges = new Set<string>();
    for (const stmt of sf.statements) {
      if (!ts.isImportDeclaration(stmt) && !ts.isExportDeclaration(stmt)) continue;
      const spec = stmt.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
      if (!includeTypes && isTypeOnly(stmt)) continue;
      const target = resolveSpecifier(file, spec.text);
      if (target) edges.add(target);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** Every strongly connected component with more than one file (or a file importing itself): Tarjan. */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) out.push(component);
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return out;
}

/** One concrete loop through a component, for the message: a → b → … → a. */
function loopThrough(graph: Map<string, Set<string>>, component: string[]): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(prev.get(path[0])!);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const includeTypes = process.argv.includes('--types');
  const graph = importGraph(ROOT, includeTypes);
  const found = cycles(graph);
  const rel = (p: string) => relative(ROOT, p);
  const kind = includeTypes ? 'import (type-only included)' : 'runtime import';
  if (found.length === 0) {
    if (!process.argv.includes('--quiet')) console.log(`check-cycles: ${graph.size} files, no ${kind} cycles`);
  } else {
    console.error(`check-cycles: ${found.length} ${kind} cycle(s) among ${graph.size} files:`);
    for (const component of found) {
      console.error(`\n  ${component.length} files: ${component.map(rel).sort().join(', ')}`);
      console.error(`  e.g. ${loopThrough(graph, component).map(rel).join(' → ')}`);
    }
    process.exitCode = 1;
  }
  const upward = upwardImports(importGraph(ROOT, true), ROOT);
  if (upward.length > 0) {
    console.error(`check-cycles: ${upward.length} upward import(s):`);
    for (const u of upward) console.error(`  ${u.from} → ${u.to}: ${u.why}`);
    process.exitCode = 1;
  }
}
