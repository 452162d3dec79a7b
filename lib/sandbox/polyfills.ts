/**
 * @module sandbox/polyfills — the polyfills' source (lib/sandbox/polyfills/, typed modules) bundled
 * with esbuild into the one script each isolate evaluates before the prelude. It is built once per
 * process, on first use, and kept in memory.
 */
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import * as esbuild from 'esbuild';

const ENTRY = fileURLToPath(new URL('./polyfills/index.ts', import.meta.url));

export interface PolyfillsBundle {
  code: string;
  /** How long esbuild took to build it. */
  buildMs: number;
}

let built: Promise<PolyfillsBundle> | undefined;

async function build(): Promise<PolyfillsBundle> {
  const started = performance.now();
  const out = await esbuild.build({
    entryPoints: [ENTRY],
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
  return { code: out.outputFiles[0]!.text, buildMs: performance.now() - started };
}

/** The polyfills script, built on the first call of this process (a failed build is tried again next time). */
export function polyfillsBundle(): Promise<PolyfillsBundle> {
  built ??= build().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}

export async function polyfillsSource(): Promise<string> {
  return (await polyfillsBundle()).code;
}
