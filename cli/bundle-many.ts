/**
 * @module cli/bundle-many — bundles many scripts in one esbuild build (one IIFE per script, as
 * `bundle()` makes it): esbuild parses each shared file (zod, the SDK, a models.ts) once and links
 * the outputs in parallel. A build that fails is split in halves until the scripts that fail are
 * alone, so one bad import costs a few more builds, not one per script.
 */
import path from 'node:path';
import * as esbuild from 'esbuild';
import { bundleOptions, entrySource, esbuildLines } from './build.js';
import type { ScriptFile } from './project.js';

export interface Bundled {
  script: ScriptFile;
  code: string;
  /** The files the bundle was made of, relative to the project (the SDK's are outside it). */
  inputs: string[];
}

export interface BundleFailure {
  script: ScriptFile;
  lines: string[];
}

const ENTRY = 'switchyard-entry';

function entries(scripts: ScriptFile[], dir: string): esbuild.Plugin {
  return {
    name: 'switchyard-entries',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${ENTRY}:`) }, (args) => ({ path: args.path.slice(ENTRY.length + 1), namespace: ENTRY }));
      build.onLoad({ filter: /.*/, namespace: ENTRY }, (args) => ({ contents: entrySource(scripts[Number(args.path)]!), resolveDir: dir, loader: 'ts' }));
    },
  };
}

async function buildAll(dir: string, scripts: ScriptFile[]): Promise<Bundled[]> {
  const options = bundleOptions(dir);
  const outdir = path.join(dir, '.switchyard', 'bundles');
  const out = await esbuild.build({
    ...options,
    absWorkingDir: dir,
    entryPoints: scripts.map((_, i) => ({ in: `${ENTRY}:${i}`, out: String(i) })),
    outdir,
    metafile: true,
    plugins: [entries(scripts, dir), ...(options.plugins ?? [])],
  });
  const byIndex = new Map<number, string>();
  for (const f of out.outputFiles) byIndex.set(Number(path.basename(f.path, '.js')), f.text);
  const inputsOf = new Map<number, string[]>();
  for (const [file, meta] of Object.entries(out.metafile.outputs)) {
    const index = Number(path.basename(file, '.js'));
    inputsOf.set(
      index,
      Object.keys(meta.inputs).filter((i) => !i.startsWith(`${ENTRY}:`)),
    );
  }
  return scripts.map((script, i) => ({ script, code: byIndex.get(i)!, inputs: inputsOf.get(i) ?? [] }));
}

/** Bundles every script; those that do not bundle come back with esbuild's messages. */
export async function bundleMany(dir: string, scripts: ScriptFile[]): Promise<{ bundled: Bundled[]; failed: BundleFailure[] }> {
  if (!scripts.length) return { bundled: [], failed: [] };
  try {
    return { bundled: await buildAll(dir, scripts), failed: [] };
  } catch (err) {
    const errors = (err as { errors?: esbuild.Message[] }).errors;
    if (!errors) throw err;
    if (scripts.length === 1) return { bundled: [], failed: [{ script: scripts[0]!, lines: esbuildLines(errors) }] };
    const half = Math.ceil(scripts.length / 2);
    const [a, b] = await Promise.all([bundleMany(dir, scripts.slice(0, half)), bundleMany(dir, scripts.slice(half))]);
    return { bundled: [...a.bundled, ...b.bundled], failed: [...a.failed, ...b.failed] };
  }
}
