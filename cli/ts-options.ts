/**
 * @module cli/ts-options — the compiler options of a project's type-check, and the SDK's import
 * names.
 */
import type ts from 'typescript';
import { isNangoProject, NODE_ONLY_MODULES, SDK_EXPERIMENTAL, SDK_GLOBALS, SDK_IMPORTS, SDK_INDEX, SDK_NODE_ONLY_MODULE } from './project.js';

/** The core of a scaffolded project's compiler options: strict ES2022, no DOM or Node types. */
export function sandboxCompilerOptions(typescript: typeof ts): ts.CompilerOptions {
  return {
    strict: true,
    noEmit: true,
    target: typescript.ScriptTarget.ES2022,
    module: typescript.ModuleKind.ESNext,
    moduleResolution: typescript.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts'],
    types: [],
    skipLibCheck: true,
  };
}

/**
 * Two checks of Nango's CLI that change what type-checks (packages/cli/lib/zeroYaml/constants.ts):
 * with them `{ a?: undefined }` fits a `Record<string, string>` and `list[i]` may be undefined, so
 * a Nango function relying on either type-checks as it does with Nango's CLI.
 */
const NANGO_CHECKS = { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true };

/** Each SDK import name mapped to this CLI's SDK. */
export function sdkAliases<T>(to: (file: string) => T): Record<string, T> {
  return Object.fromEntries(SDK_IMPORTS.map((name) => [name, to(SDK_INDEX)]));
}

/**
 * Compiler options of the type-check as a tsconfig.json states them (what the native compiler,
 * cli/native-tsc, reads): those of a project scaffolded by `init`, plus the SDK path; for a Nango
 * project (`projectDir` given), also Nango's checks that change what type-checks.
 */
export function tsconfigOptions(zodDir: string, projectDir?: string): Record<string, unknown> {
  return {
    strict: true,
    noEmit: true,
    target: 'es2022',
    module: 'esnext',
    moduleResolution: 'bundler',
    lib: ['es2022'],
    skipLibCheck: true,
    ...(projectDir !== undefined && isNangoProject(projectDir) ? NANGO_CHECKS : {}),
    isolatedModules: true,
    esModuleInterop: true,
    allowImportingTsExtensions: true,
    // The SDK is this CLI's, as `switchyard/sdk` and as Nango's `nango` (a Nango project type-checks
    // unchanged, even with Nango's package installed); zod is the project's, for the scripts and the SDK's types alike.
    paths: {
      ...sdkAliases((f) => [f]),
      // Nango's CLI allows these in functions too: its experimental entry, and type-only imports of its runner SDK.
      'nango/experimental': [SDK_EXPERIMENTAL],
      '@nangohq/runner-sdk': [SDK_INDEX],
      zod: [zodDir],
      'zod/*': [`${zodDir}/*`],
      // The modules that need Node, typed loosely by the sandbox's declarations: a project's own
      // copy (@types/unzipper references @types/node) would bring every Node global into the check.
      ...Object.fromEntries(NODE_ONLY_MODULES.map((m) => [m, [SDK_NODE_ONLY_MODULE]])),
    },
    // The sandbox's globals (URL, TextEncoder, setTimeout, …) and the modules Nango allows (url, crypto, soap, …).
    typeRoots: [SDK_GLOBALS],
    types: ['sandbox'],
  };
}

/** The same options for TypeScript's API (module resolution of cli/check's import graph, scripts/). */
export async function compilerOptions(zodDir: string, projectDir?: string): Promise<ts.CompilerOptions> {
  const ts = (await import('typescript')).default;
  const { options, errors } = ts.convertCompilerOptionsFromJson(tsconfigOptions(zodDir, projectDir), projectDir ?? process.cwd());
  if (errors.length) throw new Error(ts.flattenDiagnosticMessageText(errors[0]!.messageText, '\n'));
  return options;
}
