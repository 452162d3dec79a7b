/**
 * @module cli/pack — `npm run pack:cli`: the `switchyard` CLI as an npm package. Compiles cli/main.ts
 * and everything it imports (zod, yaml, json-schema-to-typescript, undici …) into one JavaScript file
 * with esbuild, stages it in dist/cli/ with the files it reads at run time, and runs `npm pack` there.
 *
 * The package depends only on what cannot be bundled: esbuild (a native binary, prebuilt per
 * platform), typescript (its API resolves a project's imports) and typescript-native (TypeScript 7's
 * compiler, a prebuilt binary per platform, which type-checks), which compile the project's scripts, and, as an
 * optional dependency, isolated-vm (the sandbox's native module; prebuilt for Node 22 and 24), which
 * only compile, deploy and dryrun load. Versions come from the root package.json.
 *
 * Usage: node --import tsx cli/pack.ts [--out <folder>]   (prints the tarball's path last)
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Imported at run time from the installed package's node_modules, never bundled. */
const RUNTIME_DEPENDENCIES = ['esbuild', 'typescript', 'typescript-native'] as const;
const OPTIONAL_DEPENDENCIES = ['isolated-vm'] as const;

interface RootPackage {
  name: string;
  version: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const versionsOf = (root: RootPackage, names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n, root.dependencies[n] ?? root.devDependencies[n] ?? `missing ${n}`]));

/** Builds the package folder; returns it. */
export async function stageCliPackage(stage = path.join(ROOT, 'dist', 'cli')): Promise<string> {
  const root = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as RootPackage;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  // dist/switchyard.mjs: cli/project.ts finds the package root one folder up, as it does from cli/.
  for (const [entry, out] of [['main.ts', 'switchyard.mjs']] as const) {
    await esbuild.build({
      entryPoints: [path.join(ROOT, 'cli', entry)],
      outfile: path.join(stage, 'dist', out),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      external: [...RUNTIME_DEPENDENCIES, ...OPTIONAL_DEPENDENCIES],
      // Bundled CommonJS modules call require() for Node's own modules.
      banner: { js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);" },
      // Whitespace and syntax only: names stay, so DEBUG=1 stacks read.
      minifyWhitespace: true,
      minifySyntax: true,
      legalComments: 'none',
      logLevel: 'warning',
    });
  }
  // Read at run time: the sandbox's polyfills and prelude (bundled on first use, lib/sandbox/isolate-scripts.ts)
  // and the SDK the project's scripts import (type-checked and bundled with them).
  cpSync(path.join(ROOT, 'lib', 'sandbox', 'isolate'), path.join(stage, 'dist', 'isolate'), { recursive: true });
  const sdk = path.join(ROOT, 'sdk');
  mkdirSync(path.join(stage, 'sdk'), { recursive: true });
  for (const f of readdirSync(sdk).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    cpSync(path.join(sdk, f), path.join(stage, 'sdk', f));
  }
  // The sandbox's globals and the Node-only modules' declarations, the type-check's typeRoots (cli/ts-options).
  cpSync(path.join(sdk, 'globals'), path.join(stage, 'sdk', 'globals'), { recursive: true });
  const pkg = {
    name: root.name,
    version: root.version,
    description: 'The Switchyard CLI: scaffold, compile, dry-run and deploy custom integrations, and generate a typed client',
    type: 'module',
    license: 'UNLICENSED',
    engines: root.engines,
    bin: { switchyard: 'dist/switchyard.mjs' },
    exports: { './sdk': './sdk/index.ts', './package.json': './package.json' },
    files: ['dist', 'sdk', 'README.md'],
    dependencies: versionsOf(root, RUNTIME_DEPENDENCIES),
    optionalDependencies: versionsOf(root, OPTIONAL_DEPENDENCIES),
  };
  writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(
    path.join(stage, 'README.md'),
    [
      `# switchyard ${root.version}: the CLI`,
      '',
      '`switchyard --help` lists the commands; `switchyard <command> --help` explains one. Built from the',
      'Switchyard repository by `npm run pack:cli`; its README has the walkthrough.',
      '',
      'compile, deploy and dryrun run scripts in a sandbox (isolated-vm, an optional dependency with',
      'prebuilt binaries for Node 22 and 24); init, generate and migrate never load it.',
      '',
    ].join('\n'),
  );
  return stage;
}

/** Stages the package (in dist/cli/ unless told) and packs it into `out`; returns the tarball's path. */
export async function packCli(out: string, stageIn?: string): Promise<string> {
  const stage = await stageCliPackage(stageIn);
  mkdirSync(out, { recursive: true });
  const { stdout } = await promisify(execFile)('npm', ['pack', stage, '--pack-destination', out, '--json', '--ignore-scripts'], { encoding: 'utf8' });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  return path.join(out, filename);
}

if (process.argv[1] && /cli[/\\]pack\.ts$/.test(process.argv[1])) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const tarball = await packCli(path.resolve(values.out ?? ROOT));
  console.log(`${tarball} (${(statSync(tarball).size / 1024).toFixed(0)} KiB)`);
}
