/**
 * @module cli/build-cache — reuse of a script's bundle and manifest when nothing it is made of
 * changed. Its key hashes the content of every file esbuild put in the bundle (the script, its
 * helpers and models, the CLI's SDK), the name and version of every package it took from
 * node_modules (zod…), and the CLI's version. Kept in .switchyard/compile-cache.json; the bundles
 * themselves are the files of build/ (an entry whose file, or a shared module it imports, is gone or
 * altered is rebuilt).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ScriptManifest } from '../features/scripts/manifest.js';
import { bundleSha256, moduleHashes, type LinkedBundle } from '../lib/sandbox/linked.js';
import { ContentHashes } from './content-hash.js';
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

export class BuildCache {
  private readonly hashes: ContentHashes;
  private readonly next: Record<string, CacheEntry> = {};

  private constructor(
    private readonly dir: string,
    private readonly previous: Record<string, CacheEntry>,
  ) {
    this.hashes = new ContentHashes(dir);
  }

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

  /** The cached bundle of a script, when nothing it was made of changed and its files are still in build/. */
  async lookup(script: ScriptFile, bundleFile: string): Promise<CacheEntry | null> {
    const entry = this.previous[relative(this.dir, script.file)];
    if (!entry?.modules || !existsSync(bundleFile)) return null;
    const [key, size, modulesIntact] = await Promise.all([
      this.hashes.keyOf(entry.inputs, FORMAT),
      stat(bundleFile).then((s) => s.size),
      Promise.all(Object.entries(entry.modules).map(async ([p, h]) => (await this.hashes.hashOf(path.join(this.dir, 'build', p))) === h)),
    ]);
    if (key !== entry.key || size !== entry.size || modulesIntact.includes(false)) return null;
    this.next[relative(this.dir, script.file)] = entry;
    return entry;
  }

  async record(script: ScriptFile, esbuildInputs: string[], bundle: LinkedBundle, manifest: ScriptManifest): Promise<CacheEntry> {
    const inputs = ContentHashes.inputsOf(esbuildInputs);
    const entry: CacheEntry = {
      key: await this.hashes.keyOf(inputs, FORMAT),
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
