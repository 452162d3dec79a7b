/**
 * @module scripts/layers — the floors of the house, bottom to top, and the one test of an import
 * against them. Used by scripts/check-cycles.ts (on the resolved import graph) and by the
 * `layers/no-upward-import` rule of eslint.config.js (on each import as it is written), so both
 * fail on the same arrow. Plain data and functions only: eslint.config.js loads this file with
 * Node's own type stripping, without tsx.
 *
 * A file imports only from its own floor or those below. `workflows/` (and the plugins' workflow
 * code) stands apart: deterministic code under its own lint rules, which any floor from features/
 * up may import (the pure contracts); lib/ and sdk/ may not. Files on no floor (cli/, test/, bench/,
 * scripts/, examples/, frontend/, and every *.test.ts) are consumers of the whole house.
 */

/** Bottom first. */
export const FLOORS: readonly (readonly string[])[] = [['sdk'], ['lib'], ['features'], ['integrations'], ['activities', 'api'], ['worker'], ['start']];

const WORKFLOW_CODE = /^(workflows\/|integrations\/(workflows|workflow-contracts)$|integrations\/[^/]+\/workflows\/)/;

export type Place = { floor: number; name: string } | 'workflows' | null;

/** Where a repository-relative path (with or without its extension) sits. */
export function placeOf(path: string): Place {
  const p = path.replace(/\\/g, '/').replace(/\.(d\.ts|[mc]?[jt]sx?)$/, '');
  if (/\.test$/.test(p)) return null;
  if (WORKFLOW_CODE.test(p)) return 'workflows';
  const top = p.split('/')[0];
  const floor = FLOORS.findIndex((names) => names.includes(top));
  return floor === -1 ? null : { floor, name: top };
}

/** Why `from` may not import `to` (both repository-relative), or null when it may. */
export function upwardImport(from: string, to: string): string | null {
  const a = placeOf(from);
  const b = placeOf(to);
  if (a === null || a === 'workflows' || b === null) return null;
  if (b === 'workflows') {
    return a.floor <= FLOORS.findIndex((names) => names.includes('lib')) ? `${a.name}/ sits below the workflows: it imports no workflow code` : null;
  }
  if (b.floor <= a.floor) return null;
  return `${a.name}/ imports ${b.name}/, a floor above it (${FLOORS.map((f) => f.join(' / ')).join(' → ')}): move what both need down, or pass it in`;
}

/** Every upward import of a graph of absolute paths (file → imported files) under `root`. */
export function upwardImports(graph: Map<string, Set<string>>, root: string): { from: string; to: string; why: string }[] {
  const rel = (p: string) => p.slice(root.length).replace(/^[\\/]+/, '');
  const out: { from: string; to: string; why: string }[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const why = upwardImport(rel(file), rel(target));
      if (why) out.push({ from: rel(file), to: rel(target), why });
    }
  }
  return out;
}
