/**
 * @module cli/build-cache — reuse of a script's bundle and manifest when nothing it is made of
 * changed. Its key hashes the content of every file esbuild put in the bundle (the script, its
 * helpers and models, the CLI's SDK), the name and version of every package it took from
 * node_modules (zod…), and the CLI's version. Kept in .switchyard/compile-cache.json; the bundles
 * themselves are the files of build/ (an entry whose file, or a shared module it imports, is gone or
 * altered is rebuilt).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ScriptManifest } from '../features/scripts/manifest.js';
import { bundleSha256, moduleHashes, type LinkedBundle } from '../lib/sandbox/linked.js';
import { CLI_VERSION, relative, type ScriptFile } from './project.js';

/** Bumped when what compile puts in a bundle changes without the CLI's version changing. */
const FORMAT = 2;

export interface CacheEntry {
  key: string;
  /** Files the bundle was made of, relative to the project; those under node_modules as `pkg:<name>`. */
  inputs: string[];
  /** The bundle's version hash (lib/sandbox/linked.ts: its entry and every module it imports). */
  sha256: string;
  /** Size of the entry file in build/, to notice one replaced or truncated. */
  size: number;
  /** The shared modules the entry imports, path within build/ → sha256 (checked before reuse). */
  modules: Record<string, string>;
  manifest: ScriptManifest;
}

interface CacheFile {
  format: number;
  cli_version: string;
  scripts: Record<string, CacheEntry>;
}

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** `node_modules/zod/v4/core/x.js` → `zod`; `node_modules/@scope/pkg/…` → `@scope/pkg`; null outside node_modules. */
function packageOf(input: string): { name: string; root: string } | null {
  const parts = input.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return null;
  const scoped = parts[at + 1]!.startsWith('@');
  const name = parts.slice(at + 1, at + (scoped ? 3 : 2)).join('/');
  return { name, root: parts.slice(0, at + (scoped ? 3 : 2)).join('/') };
}

export class BuildCache {
  private readonly fileHashes = new Map<string, Promise<string>>();
  private readonly packageVersions = new Map<string, Promise<string>>();
  private readonly next: Record<string, CacheEntry> = {};

  private constructor(
    private readonly dir: string,
    private readonly previous: Record<string, CacheEntry>,
  ) {}

  static file(dir: string): string {
    return path.join(dir, '.switchyard', 'compile-cache.json');
  }

  static async open(dir: string): Promise<BuildCache> {
    let previous: Record<string, CacheEntry> = {};
    try {
      const parsed = JSON.parse(await readFile(BuildCache.file(dir), 'utf8')) as CacheFile;
      if (parsed.format === FORMAT && parsed.cli_version === CLI_VERSION) previous = parsed.scripts;
    } catch {
      // no cache yet, or one this CLI cannot read: everything is built
    }
    return new BuildCache(dir, previous);
  }

  private hashOf(file: string): Promise<string> {
    let h = this.fileHashes.get(file);
    if (!h) {
      h = readFile(file).then(sha256, () => 'missing');
      this.fileHashes.set(file, h);
    }
    return h;
  }

  private versionOf(root: string): Promise<string> {
    let v = this.packageVersions.get(root);
    if (!v) {
      v = readFile(path.join(this.dir, root, 'package.json'), 'utf8').then(
        (t) => (JSON.parse(t) as { version?: string }).version ?? 'unknown',
        () => 'missing',
      );
      this.packageVersions.set(root, v);
    }
    return v;
  }

  /** The inputs of a bundle as the cache keeps them: project files, and `pkg:<root>` per package. */
  static inputsOf(esbuildInputs: string[]): string[] {
    const out = new Set<string>();
    for (const i of esbuildInputs) {
      const pkg = packageOf(i);
      out.add(pkg ? `pkg:${pkg.root}` : i);
    }
    return [...out].sort();
  }

  private async keyOf(inputs: string[]): Promise<string> {
    const parts = await Promise.all(
      inputs.map(async (i) => (i.startsWith('pkg:') ? `${i}@${await this.versionOf(i.slice(4))}` : `${i}#${await this.hashOf(path.resolve(this.dir, i))}`)),
    );
    return sha256(JSON.stringify([FORMAT, CLI_VERSION, parts]));
  }

  /** The cached bundle of a script, when nothing it was made of changed and its files are still in build/. */
  async lookup(script: ScriptFile, bundleFile: string): Promise<CacheEntry | null> {
    const entry = this.previous[relative(this.dir, script.file)];
    if (!entry?.modules || !existsSync(bundleFile)) return null;
    const [key, size, modulesIntact] = await Promise.all([
      this.keyOf(entry.inputs),
      stat(bundleFile).then((s) => s.size),
      Promise.all(Object.entries(entry.modules).map(async ([p, h]) => (await this.hashOf(path.join(this.dir, 'build', p))) === h)),
    ]);
    if (key !== entry.key || size !== entry.size || modulesIntact.includes(false)) return null;
    this.next[relative(this.dir, script.file)] = entry;
    return entry;
  }

  async record(script: ScriptFile, esbuildInputs: string[], bundle: LinkedBundle, manifest: ScriptManifest): Promise<CacheEntry> {
    const inputs = BuildCache.inputsOf(esbuildInputs);
    const entry: CacheEntry = {
      key: await this.keyOf(inputs),
      inputs,
      sha256: bundleSha256(bundle),
      size: Buffer.byteLength(bundle.entry),
      modules: moduleHashes(bundle.modules),
      manifest,
    };
    this.next[relative(this.dir, script.file)] = entry;
    return entry;
  }

  /** Writes the entries of this compile (scripts that failed or are gone leave the cache). */
  async save(): Promise<void> {
    await mkdir(path.dirname(BuildCache.file(this.dir)), { recursive: true });
    const body: CacheFile = { format: FORMAT, cli_version: CLI_VERSION, scripts: this.next };
    await writeFile(BuildCache.file(this.dir), JSON.stringify(body));
  }
}
