/**
 * @module features/scripts/nango-bundle — a function compiled by Nango's CLI (`nango deploy` uploads
 * it as `fileBody.js`: CommonJS, the project's own files bundled in, npm packages left as
 * `require()`s, its default export the definition createSync/createAction/createOnEvent made)
 * turned into the bundle the sandbox runs: the same IIFE with describe() and run() that
 * `switchyard compile` makes, with `zod` the platform's and `nango` Switchyard's SDK.
 *
 * Why the compiled JavaScript and not `fileBody.ts`: the TypeScript is the entry file alone (its
 * imports of the project's models and helpers are not uploaded), while the JavaScript already holds
 * them. Node modules, which Nango's runner lends its functions, are refused by name: the sandbox has
 * no Node.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { noNode, SANDBOX_BUILD_OPTIONS, sandboxModules } from './sandbox-bundle.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SDK_INDEX = path.join(ROOT, 'sdk', 'index.ts');
const SDK_RUNTIME = path.join(ROOT, 'sdk', 'runtime.ts');
const UPLOAD = 'switchyard-nango-upload';

export class NangoBundleError extends Error {}

/** Nango names an on-event definition's type `onEvent`; the SDK's runtime knows `on-event`. */
const ENTRY = [
  `import * as z from 'zod';`,
  `import * as uploaded from '${UPLOAD}';`,
  `import { describeDefinition, runDefinition } from ${JSON.stringify(SDK_RUNTIME)};`,
  `const exported = uploaded.default ?? uploaded;`,
  `const definition = exported && exported.type === 'onEvent' ? { ...exported, type: 'on-event' } : exported;`,
  `export const describe = () => describeDefinition(definition, z.toJSONSchema);`,
  `export const run = (kind, ctx, arg) => runDefinition(definition, kind, ctx, arg);`,
].join('\n');

/** `loader: 'ts'` bundles a function's TypeScript source (Nango's remote function API sends that). */
export async function bundleNangoFunction(label: string, js: string, loader: 'js' | 'ts' = 'js'): Promise<string> {
  const code = js.replace(/\n\/\/# sourceMappingURL=data:[^\n]*\s*$/, '\n');
  try {
    const out = await esbuild.build({
      stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: `${label}.entry.js`, loader: 'js' },
      ...SANDBOX_BUILD_OPTIONS,
      alias: { nango: SDK_INDEX },
      plugins: [
        {
          name: 'switchyard-nango-upload',
          setup(build) {
            build.onResolve({ filter: new RegExp(`^${UPLOAD}$`) }, () => ({ path: label, namespace: UPLOAD }));
            build.onLoad({ filter: /.*/, namespace: UPLOAD }, () => ({ contents: code, loader, resolveDir: ROOT }));
          },
        },
        sandboxModules,
        noNode,
      ],
    });
    return out.outputFiles[0]!.text;
  } catch (err) {
    const errors = (err as { errors?: esbuild.Message[] }).errors ?? [];
    throw new NangoBundleError(errors.map((e) => e.text).join('; ') || (err as Error).message);
  }
}
