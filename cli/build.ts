/**
 * @module cli/build — `switchyard compile`: type-checks the project with TypeScript (strict, ES2022,
 * no DOM or Node types: scripts run in a sandbox), bundles each script with esbuild into one IIFE
 * (its zod included) and asks the bundle, inside a sandbox, for its manifest: endpoints,
 * frequency, and the JSON Schema of every model, input and output (made by the project's zod).
 * cli/compile runs these over a whole project and writes build/.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { describeBundle, SandboxError, SandboxUnavailableError, ScriptError } from '../lib/sandbox/index.js';
import { manifestProblems, type ScriptManifest } from '../features/scripts/manifest.js';
import { noNode, SANDBOX_BUILD_OPTIONS, SANDBOX_HINT, sandboxModules } from '../features/scripts/sandbox-bundle.js';
import { isNangoProject, SDK_RUNTIME, relative, type ScriptFile } from './project.js';
import { checkGroup } from './check.js';
import { sdkAliases } from './ts-options.js';
import { CliError } from './ui.js';

export interface BuiltScript extends ScriptFile {
  bundle: string;
  sha256: string;
  manifest: ScriptManifest;
  source: string;
}

/** Type-checks these scripts as one program (cli/check's, one group); throws a CliError listing the problems. */
export async function typecheck(dir: string, files: string[], zodDir: string): Promise<void> {
  // Incremental: unchanged files keep their results in .switchyard/tsbuildinfo between runs.
  const { byScript, count } = await checkGroup({ dir, files, zodDir, tsBuildInfoFile: path.join(dir, '.switchyard', 'tsbuildinfo') });
  if (count === 0) return;
  const lines = [...new Set([...byScript.values()].flat().map((p) => `${p.line} (${p.code})`))];
  const text = lines.join('\n');
  const node = /Cannot find name '(process|require|Buffer|__dirname)'|Cannot find module '(node:)?(fs|path|os|child_process|http|https|net|crypto)/.test(text);
  throw new CliError(
    `Type errors in ${count === 1 ? 'one place' : `${count} places`}:`,
    node ? `fix them: ${SANDBOX_HINT}` : 'fix them and run the command again (your editor shows the same errors with the tsconfig.json of `switchyard init`)',
    lines.slice(0, 60),
  );
}

/** The module esbuild bundles for a script: its definition, with describe() and run() around it. */
export function entrySource(script: ScriptFile): string {
  return [
    `import definition from ${JSON.stringify(script.file)};`,
    `import * as z from 'zod';`,
    `import { describeDefinition, runDefinition } from ${JSON.stringify(SDK_RUNTIME)};`,
    `export const describe = () => describeDefinition(definition, z.toJSONSchema);`,
    `export const run = (kind, ctx, arg) => runDefinition(definition, kind, ctx, arg);`,
  ].join('\n');
}

/** esbuild's options for script bundles (one IIFE each, the project's zod in it, no Node modules). */
export function bundleOptions(dir: string): esbuild.BuildOptions & { write: false } {
  return {
    ...SANDBOX_BUILD_OPTIONS,
    alias: sdkAliases((f) => f),
    nodePaths: [path.join(dir, 'node_modules')],
    plugins: [sandboxModules, noNode],
  };
}

/** One line per esbuild message: where, then what. */
export const esbuildLines = (errors: esbuild.Message[]): string[] =>
  errors.map((e) => `${e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : ''}${e.text}`);

export async function bundle(dir: string, script: ScriptFile): Promise<string> {
  try {
    const out = await esbuild.build({
      ...bundleOptions(dir),
      stdin: { contents: entrySource(script), resolveDir: dir, sourcefile: `${script.integration}/${script.name}.entry.ts`, loader: 'ts' },
    });
    return out.outputFiles[0]!.text;
  } catch (err) {
    const errors = (err as { errors?: esbuild.Message[] }).errors ?? [];
    const zodMissing = errors.some((e) => /Could not resolve "zod"/.test(e.text));
    throw new CliError(
      `${relative(dir, script.file)} does not bundle:`,
      zodMissing ? 'run `npm install` in the project (zod is missing), then run the command again' : 'fix the import and run the command again',
      esbuildLines(errors),
    );
  }
}

/** compile, deploy and dryrun run scripts in the sandbox; a CLI installed without isolated-vm says how to get it. */
export function sandboxMissing(err: SandboxUnavailableError): CliError {
  return new CliError(
    `compile, deploy and dryrun run your scripts in ${err.message}`,
    'use Node 22 or 24 (isolated-vm ships prebuilt binaries for them on Linux, macOS and Windows), or install python3, make and a C++ compiler and reinstall the CLI',
  );
}

/** A describe() that threw, as compile reports it: "does not load: …". */
export function loadFailure(dir: string, script: ScriptFile, err: unknown): CliError {
  if (err instanceof SandboxUnavailableError) return sandboxMissing(err);
  const message = err instanceof SandboxError || err instanceof ScriptError ? err.message : String(err);
  return new CliError(
    `${relative(dir, script.file)} does not load: ${message}`,
    /is not defined/.test(message) ? `fix it: ${SANDBOX_HINT}` : 'fix the script (its top level runs when it loads) and run the command again',
  );
}

/** The manifest of a script from what its describe() returned, checked as the platform checks it. */
export function checkedManifest(dir: string, script: ScriptFile, described: unknown): ScriptManifest {
  const { manifest, problems } = manifestProblems({ ...(described as object), integration: script.integration, name: script.name });
  if (!manifest || problems.length) {
    throw new CliError(`${relative(dir, script.file)} declares something the platform refuses:`, 'fix the definition and run the command again', problems);
  }
  // Nango's CLI takes a function's kind from its definition, wherever the file sits (packages/cli/lib/zeroYaml/definitions.ts).
  if (manifest.type !== script.kind && !isNangoProject(dir)) {
    throw new CliError(
      `${relative(dir, script.file)} is a ${manifest.type} but sits in the ${script.kind}s folder`,
      `move it to ${script.integration}/${manifest.type}s/ or export the right definition`,
    );
  }
  return manifest;
}

/** The manifest of a bundle, from its own describe(), run in a sandbox. */
export async function manifestOf(dir: string, script: ScriptFile, code: string): Promise<ScriptManifest> {
  let described: unknown;
  try {
    described = await describeBundle(code);
  } catch (err) {
    throw loadFailure(dir, script, err);
  }
  return checkedManifest(dir, script, described);
}

export async function buildScript(dir: string, script: ScriptFile): Promise<BuiltScript> {
  const code = await bundle(dir, script);
  const manifest = await manifestOf(dir, script, code);
  return {
    ...script,
    kind: manifest.type,
    bundle: code,
    sha256: createHash('sha256').update(code).digest('hex'),
    manifest,
    source: await readFile(script.file, 'utf8'),
  };
}
