/**
 * @module features/scripts/sandbox-bundle — how a script is bundled for the isolated-vm sandbox,
 * shared by `switchyard compile` and the server-side bundling of Nango CLI uploads: one minified
 * IIFE (`__switchyard`, with describe() and run()), and a plugin refusing Node modules, which the
 * sandbox does not have.
 */
import { builtinModules } from 'node:module';
import type * as esbuild from 'esbuild';
import { SANDBOX_MODULE_FILTER, sandboxModuleOf, sandboxModuleSource } from '../../lib/sandbox/modules.js';

export const SANDBOX_HINT =
  'scripts run in a sandbox without Node: no process.env, fs, require or Node modules. Keep per-connection settings in metadata (ctx.getMetadata()) and call the provider with ctx.get/post/…';

export const noNode: esbuild.Plugin = {
  name: 'switchyard-no-node',
  setup(build) {
    const builtins = new Set(builtinModules);
    build.onResolve({ filter: /.*/ }, (args) => {
      const bare = args.path.replace(/^node:/, '');
      if (args.path.startsWith('node:') || builtins.has(bare) || builtins.has(bare.split('/')[0]!)) {
        return { errors: [{ text: `'${args.path}' is a Node module: ${SANDBOX_HINT}` }] };
      }
      return undefined;
    });
  },
};

/** The modules Nango's CLI allows besides the SDK and zod (url, crypto, soap, …), as the sandbox provides them. */
export const sandboxModules: esbuild.Plugin = {
  name: 'switchyard-sandbox-modules',
  setup(build) {
    build.onResolve({ filter: SANDBOX_MODULE_FILTER }, (args) => ({ path: sandboxModuleOf(args.path)!, namespace: 'sandbox-module' }));
    build.onLoad({ filter: /.*/, namespace: 'sandbox-module' }, (args) => ({
      contents: sandboxModuleSource(sandboxModuleOf(args.path)!),
      loader: 'js',
    }));
  },
};

/** The esbuild options of every sandbox bundle; callers add the entry, aliases and plugins. */
export const SANDBOX_BUILD_OPTIONS = {
  bundle: true,
  format: 'iife',
  globalName: '__switchyard',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'es2022',
  write: false,
  minify: true,
  keepNames: true,
  legalComments: 'none',
  logLevel: 'silent',
} as const satisfies esbuild.BuildOptions;
