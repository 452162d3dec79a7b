/**
 * `compile-large`: `switchyard compile` of a synthetic project of a real project's scale
 * (bench/large-project.ts: 2,000 functions in 100 integrations by default, `--compile-integrations=N`,
 * `--compile-functions=N` per integration), cold (no cache, no tsbuildinfo) and again unchanged
 * (everything reused). Floor, same run: one bare esbuild build of the same function files (bundled,
 * minified, no type-check, no manifests). Peak RSS of the CLI's process with its type-check
 * workers and esbuild's process, sampled. Needs none of the run's services.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { SDK_IMPORTS, SDK_INDEX } from '../cli/project.js';
import { SANDBOX_NODE_FLAGS } from '../lib/sandbox/node-flags.js';
import { numberFlag, type BenchContext, type BenchGroup } from './lib/context.js';
import { writeLargeProject } from './large-project.js';
import { round, sampleRss, type BenchResult } from './lib/stats.js';

const CLI = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'cli', 'bin.mjs');

async function timedCompile(dir: string): Promise<{ seconds: number; peakMb: number; code: number; summary: string }> {
  const started = performance.now();
  // With the sandbox's flags the CLI runs in this child (without them it starts another node, which the sampling would miss).
  const child = spawn(process.execPath, [...SANDBOX_NODE_FLAGS, CLI, 'compile', '--dir', dir], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const rss = sampleRss(child.pid!, 200, true);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  const { maxMb } = rss.stop();
  return {
    seconds: (performance.now() - started) / 1000,
    peakMb: maxMb,
    code,
    summary: /compiled \d+ of \d+ functions[^\n]*/.exec(out)?.[0] ?? out.slice(-400),
  };
}

async function bareEsbuild(files: string[]): Promise<number> {
  const started = performance.now();
  await esbuild.build({
    entryPoints: files,
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    minify: true,
    write: false,
    outdir: '/nonexistent',
    logLevel: 'silent',
    alias: Object.fromEntries(SDK_IMPORTS.map((n) => [n, SDK_INDEX])),
  });
  return (performance.now() - started) / 1000;
}

async function run(ctx: BenchContext): Promise<BenchResult[]> {
  const integrations = numberFlag(ctx, 'compile-integrations', 100);
  const perIntegration = numberFlag(ctx, 'compile-functions', 20);
  const project = await writeLargeProject(path.join(ctx.outDir, 'large-project'), { integrations, functionsPerIntegration: perIntegration });
  const n = project.functions.length;
  ctx.say(`compile-large: ${n} functions in ${integrations} integrations at ${project.dir}`);
  const floor = await bareEsbuild(project.functions.map((f) => path.join(project.dir, f.integration, `${f.kind}s`, `${f.name}.ts`)));
  ctx.say(`compile-large: bare esbuild ${round(floor, 1)} s; compiling (cold)`);
  const cold = await timedCompile(project.dir);
  ctx.say(`compile-large: cold ${round(cold.seconds, 1)} s, ${round(cold.peakMb, 0)} MB: ${cold.summary}; compiling again (unchanged)`);
  const warm = await timedCompile(project.dir);
  if (cold.code !== 0 || warm.code !== 0) throw new Error(`compile failed: ${cold.summary} / ${warm.summary}`);
  return [
    {
      name: `compile-large (${n} functions, ${integrations} integrations)`,
      rows: [
        { metric: 'compile, cold (s) vs bare esbuild of the same files', switchyard: cold.seconds, floor, unit: 's', ratio: cold.seconds / floor },
        { metric: 'compile, unchanged (s) vs bare esbuild', switchyard: warm.seconds, floor, unit: 's', ratio: warm.seconds / floor },
        { metric: 'peak RSS of the CLI and esbuild, cold', switchyard: cold.peakMb, floor: '', unit: 'MB', goal: '≤ 2048', met: cold.peakMb <= 2048 },
      ],
      details: { functions: n, integrations, cold: cold.summary, warm: warm.summary, warmPeakMb: round(warm.peakMb, 0) },
    },
  ];
}

export const compileLarge: BenchGroup = { names: ['compile-large'], run };
