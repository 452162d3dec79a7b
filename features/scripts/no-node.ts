/**
 * @module features/scripts/no-node — the esbuild plugin that refuses Node modules in a script's
 * bundle, shared by `switchyard compile` and the server-side bundling of Nango CLI uploads: scripts
 * run in an isolated-vm sandbox, which has no Node.
 */
import { builtinModules } from 'node:module';
import type * as esbuild from 'esbuild';

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
