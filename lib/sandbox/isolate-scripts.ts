/**
 * @module sandbox/isolate-scripts — the code each isolate evaluates before the script's bundle,
 * from typed modules in lib/sandbox/isolate/ (type-checked with the ECMAScript library only: the
 * isolate is plain V8): the polyfills (URL, URLSearchParams, TextEncoder, TextDecoder), then the
 * prelude (the script's context, console and timers, over the host bridge). esbuild bundles each
 * into one script once per process, on first use; they are kept in memory.
 */
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import * as esbuild from 'esbuild';

export interface IsolateScripts {
  polyfills: string;
  prelude: string;
  /** How long esbuild took to build both. */
  buildMs: number;
}

const entry = (file: string) => fileURLToPath(new URL(`./isolate/${file}`, import.meta.url));

async function bundle(file: string): Promise<string> {
  const out = await esbuild.build({
    entryPoints: [entry(file)],
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    // The classes keep their own names (URL, not _URL) in messages and stack traces.
    keepNames: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

async function build(): Promise<IsolateScripts> {
  const started = performance.now();
  const [polyfills, prelude] = await Promise.all([bundle('polyfills/index.ts'), bundle('prelude.ts')]);
  return { polyfills, prelude, buildMs: performance.now() - started };
}

let built: Promise<IsolateScripts> | undefined;

/** The scripts, built on the first call of this process (a failed build is tried again next time). */
export function isolateScripts(): Promise<IsolateScripts> {
  built ??= build().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}
