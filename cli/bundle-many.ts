/**
 * @module cli/bundle-many — bundles many scripts in one esbuild build as ES modules with code
 * splitting: each script is a small entry module (`<integration>/<kind>s/<name>.js`, with describe()
 * and run() as `bundle()` makes them), and the code scripts share (zod, the SDK runtime, an
 * integration's models) is written once, in shared modules under `_shared/`. A build that fails is
 * split in halves until the scripts that fail are alone, so one bad import costs a few more builds,
 * not one per script; the rest are then bundled together again.
 */
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { LinkedBundle } from '../lib/sandbox/linked.js';
import { bundleOptions, entrySource, esbuildLines } from './build.js';
import { SDK_RUNTIME, type ScriptFile } from './project.js';

export interface Bundled {
  script: ScriptFile;
  bundle: LinkedBundle;
  /** The files the bundle was made of, relative to the project (the SDK's are outside it). */
  inputs: string[];
}

export interface BundleFailure {
  script: ScriptFile;
  lines: string[];
}

/** Folder of the shared modules in build/. */
export const SHARED_DIR = '_shared';

const ENTRY = 'switchyard-entry';
/** An extra entry importing all of zod and the SDK runtime: they land in shared modules even when one script is bundled alone. */
const RUNTIME = 'runtime';

export const entryPathOf = (s: ScriptFile) => `${s.integration}/${s.kind}s/${s.name}.js`;

function entries(scripts: ScriptFile[], dir: string): esbuild.Plugin {
  return {
    name: 'switchyard-entries',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${ENTRY}:`) }, (args) => ({ path: args.path.slice(ENTRY.length + 1), namespace: ENTRY }));
      build.onLoad({ filter: /.*/, namespace: ENTRY }, (args) => ({
        contents:
          args.path === RUNTIME
            ? `export * as z from 'zod';\nexport * as runtime from ${JSON.stringify(SDK_RUNTIME)};`
            : entrySource(scripts[Number(args.path)]!),
        resolveDir: dir,
        loader: 'ts',
      }));
    },
  };
}

async function buildAll(dir: string, scripts: ScriptFile[]): Promise<Bundled[]> {
  const options = bundleOptions(dir);
  const outdir = path.join(dir, 'build');
  const out = await esbuild.build({
    ...options,
    format: 'esm',
    globalName: undefined,
    splitting: true,
    absWorkingDir: dir,
    entryPoints: [
      ...scripts.map((s, i) => ({ in: `${ENTRY}:${i}`, out: entryPathOf(s).slice(0, -3) })),
      { in: `${ENTRY}:${RUNTIME}`, out: `${SHARED_DIR}/${RUNTIME}` },
    ],
    chunkNames: `${SHARED_DIR}/[name]-[hash]`,
    outdir,
    metafile: true,
    plugins: [entries(scripts, dir), ...(options.plugins ?? [])],
  });
  // Paths within build/, as the entries' imports name them.
  const code = new Map(out.outputFiles.map((f) => [path.relative(outdir, f.path).split(path.sep).join('/'), f.text]));
  const meta = new Map(Object.entries(out.metafile.outputs).map(([f, m]) => [path.relative(outdir, path.resolve(dir, f)).split(path.sep).join('/'), m]));
  return scripts.map((script) => {
    const entryPath = entryPathOf(script);
    const modules: Record<string, string> = {};
    const inputs = new Set<string>();
    const queue = [entryPath];
    while (queue.length) {
      const p = queue.pop()!;
      const m = meta.get(p)!;
      for (const i of Object.keys(m.inputs)) if (!i.startsWith(`${ENTRY}:`)) inputs.add(i);
      for (const imp of m.imports) {
        const target = path.relative(outdir, path.resolve(dir, imp.path)).split(path.sep).join('/');
        if (imp.kind === 'import-statement' && !(target in modules) && code.has(target)) {
          modules[target] = code.get(target)!;
          queue.push(target);
        }
      }
    }
    return { script, bundle: { entryPath, entry: code.get(entryPath)!, modules }, inputs: [...inputs] };
  });
}

/** The scripts that do not bundle: a failing build is split in halves until they are alone. */
async function failuresIn(dir: string, scripts: ScriptFile[], errors: esbuild.Message[]): Promise<BundleFailure[]> {
  if (scripts.length === 1) return [{ script: scripts[0]!, lines: esbuildLines(errors) }];
  const half = Math.ceil(scripts.length / 2);
  const found = await Promise.all(
    [scripts.slice(0, half), scripts.slice(half)].map(async (part) => {
      try {
        await buildAll(dir, part);
        return [];
      } catch (err) {
        const partErrors = (err as { errors?: esbuild.Message[] }).errors;
        if (!partErrors) throw err;
        return failuresIn(dir, part, partErrors);
      }
    }),
  );
  return found.flat();
}

/**
 * Bundles every script; those that do not bundle come back with esbuild's messages. The others are
 * bundled again in one build, so they share the same shared modules as when nothing fails.
 */
export async function bundleMany(dir: string, scripts: ScriptFile[]): Promise<{ bundled: Bundled[]; failed: BundleFailure[] }> {
  if (!scripts.length) return { bundled: [], failed: [] };
  let errors: esbuild.Message[];
  try {
    return { bundled: await buildAll(dir, scripts), failed: [] };
  } catch (err) {
    const found = (err as { errors?: esbuild.Message[] }).errors;
    if (!found) throw err;
    errors = found;
  }
  const failed = await failuresIn(dir, scripts, errors);
  const bad = new Set(failed.map((f) => f.script));
  const good = scripts.filter((s) => !bad.has(s));
  return { bundled: good.length ? await buildAll(dir, good) : [], failed };
}
