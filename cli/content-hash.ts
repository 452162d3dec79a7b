/**
 * @module cli/content-hash — keys of what a compile may reuse (cli/build-cache's bundles,
 * cli/check-cache's type-check results): the content hash of each project file it was made of, the
 * name and version of each package it took from node_modules (zod, typescript…), and the CLI's
 * version. Each file is read and hashed once per compile.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CLI_VERSION } from './project.js';

export const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** `node_modules/zod/v4/core/x.js` → `node_modules/zod`; `…/node_modules/@scope/pkg/…` → `…/node_modules/@scope/pkg`; null outside node_modules. */
function packageRootOf(input: string): string | null {
  const parts = input.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return null;
  const scoped = parts[at + 1]!.startsWith('@');
  return parts.slice(0, at + (scoped ? 3 : 2)).join('/');
}

export class ContentHashes {
  private readonly fileHashes = new Map<string, Promise<string>>();
  private readonly packageVersions = new Map<string, Promise<string>>();

  constructor(private readonly dir: string) {}

  /** The sha256 of a file's content (`missing` when it cannot be read). */
  hashOf(file: string): Promise<string> {
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

  /** Inputs as a key keeps them, sorted: project files relative to the project, and `pkg:<root>` once per package. */
  static inputsOf(files: string[]): string[] {
    const out = new Set<string>();
    for (const f of files) {
      const root = packageRootOf(f);
      out.add(root ? `pkg:${root}` : f);
    }
    return [...out].sort();
  }

  /** The key of inputs (from inputsOf) and whatever else the result depends on (`extra`, JSON). */
  async keyOf(inputs: string[], extra: unknown): Promise<string> {
    const parts = await Promise.all(
      inputs.map(async (i) => (i.startsWith('pkg:') ? `${i}@${await this.versionOf(i.slice(4))}` : `${i}#${await this.hashOf(path.resolve(this.dir, i))}`)),
    );
    return sha256(JSON.stringify([extra, CLI_VERSION, parts]));
  }
}
