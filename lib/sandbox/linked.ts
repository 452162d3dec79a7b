/**
 * @module sandbox/linked — a script built as ES modules: a small entry module and the shared modules
 * it imports (zod, the SDK runtime, an integration's models), which `switchyard compile` writes once
 * for the whole project instead of once per script. A shared module is stored once by its hash; a
 * script names the ones it imports by path. Loaded into an isolate with isolated-vm's modules.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type ivm from 'isolated-vm';

export interface LinkedBundle {
  /** Path of the entry within the build (`hubspot/actions/x.js`): imports resolve against it. */
  entryPath: string;
  entry: string;
  /** Every module the entry imports, directly or not: path within the build → code. */
  modules: Record<string, string>;
}

export type SandboxBundle = string | LinkedBundle;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The hashes of a linked bundle's modules, path → sha256, in path order. */
export function moduleHashes(modules: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(modules)
      .sort()
      .map((p) => [p, sha256(modules[p]!)]),
  );
}

/** The version hash of a bundle: of its code, or of a linked bundle's entry and every module it imports. */
export function bundleSha256(bundle: SandboxBundle): string {
  if (typeof bundle === 'string') return sha256(bundle);
  return sha256(JSON.stringify([bundle.entryPath, sha256(bundle.entry), moduleHashes(bundle.modules)]));
}

/** Bytes of a bundle with every module it imports. */
export const bundleBytes = (bundle: SandboxBundle): number =>
  typeof bundle === 'string'
    ? Buffer.byteLength(bundle)
    : Buffer.byteLength(bundle.entry) + Object.values(bundle.modules).reduce((n, c) => n + Buffer.byteLength(c), 0);

/**
 * Compiles and links a linked bundle's entry into `context`, evaluates it, and makes it the
 * context's `__switchyard` (as an IIFE bundle's global). `loaded` keeps the shared modules already
 * evaluated in this context, so scripts described one after the other share one zod.
 */
export async function evaluateLinked(
  isolate: ivm.Isolate,
  context: ivm.Context,
  bundle: LinkedBundle,
  opts: { timeout: number; loaded?: Map<string, ivm.Module> },
): Promise<void> {
  const loaded = opts.loaded ?? new Map<string, ivm.Module>();
  const pathOf = new Map<ivm.Module, string>();
  for (const [p, m] of loaded) pathOf.set(m, p);
  const entry = await isolate.compileModule(bundle.entry, { filename: bundle.entryPath });
  pathOf.set(entry, bundle.entryPath);
  await entry.instantiate(context, async (specifier, referrer) => {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(pathOf.get(referrer) ?? bundle.entryPath), specifier));
    const known = loaded.get(target);
    if (known) return known;
    const code = bundle.modules[target];
    if (code === undefined) throw new Error(`the bundle imports ${specifier}, which it does not include`);
    const m = await isolate.compileModule(code, { filename: target });
    loaded.set(target, m);
    pathOf.set(m, target);
    return m;
  });
  await entry.evaluate({ timeout: opts.timeout });
  await context.global.set('__switchyard', entry.namespace.derefInto());
}
