/**
 * @module cli/check-cache — a type-check group's result kept between compiles, in
 * .switchyard/check/<group id>.json beside its TypeScript state (<group id>.tsbuildinfo). A group is
 * named by the integrations in it (cli/check groups them so that adding, removing or editing one
 * integration changes one group), and its result is reused while every file its program read (the
 * scripts, their models and helpers, the SDK's declarations, each package by its version) is
 * unchanged: such a group starts no TypeScript program at all.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ContentHashes, sha256 } from './content-hash.js';
import { isNangoProject, relative } from './project.js';

/** Bumped when what the type-check reports changes without the CLI's version changing. */
const FORMAT = 1;

/** Diagnostics that a file added later can take away, while no file the program read changes: never reused. */
const UNRESOLVED = new Set(['TS2307', 'TS2792']);

export interface TypeProblem {
  /** `TS2345`, the group a report counts it in. */
  code: string;
  /** `hubspot/actions/x.ts:12:5 Argument of type …` (first line of the message, or the one naming a refused member). */
  line: string;
}

export interface TypeCheckResult {
  byScript: Map<string, TypeProblem[]>;
  count: number;
}

interface Stored {
  key: string;
  /** What the key hashes: files relative to the project, `pkg:<root>` per package. */
  inputs: string[];
  /** Problems by script, the script relative to the project. */
  byScript: [string, TypeProblem[]][];
  count: number;
}

/** A group's name: a hash of its integrations' keys. */
export const groupId = (integrations: string[]): string => sha256(JSON.stringify([...integrations].sort())).slice(0, 16);

export class CheckCache {
  private readonly hashes: ContentHashes;
  private readonly folder: string;

  constructor(
    private readonly dir: string,
    private readonly zodDir: string,
  ) {
    this.hashes = new ContentHashes(dir);
    this.folder = path.join(dir, '.switchyard', 'check');
  }

  /** Where the group's incremental TypeScript state is kept. */
  buildInfoFile(id: string): string {
    return path.join(this.folder, `${id}.tsbuildinfo`);
  }

  private resultFile(id: string): string {
    return path.join(this.folder, `${id}.json`);
  }

  /** What the result depends on besides its files' content: the group's scripts and the options that change what type-checks. */
  private extra(files: string[]) {
    return [FORMAT, isNangoProject(this.dir), relative(this.dir, this.zodDir), files.map((f) => relative(this.dir, f)).sort()];
  }

  /** The group's result of an earlier compile, when none of the files it read changed. */
  async lookup(id: string, files: string[]): Promise<TypeCheckResult | null> {
    let stored: Stored;
    try {
      stored = JSON.parse(await readFile(this.resultFile(id), 'utf8')) as Stored;
    } catch {
      return null;
    }
    if (stored.key !== (await this.hashes.keyOf(stored.inputs, this.extra(files)))) return null;
    return { byScript: new Map(stored.byScript.map(([f, p]) => [path.resolve(this.dir, f), p])), count: stored.count };
  }

  /** Keeps a group's result, keyed by the files its program read (absolute paths). */
  async record(id: string, files: string[], programFiles: string[], result: TypeCheckResult): Promise<void> {
    const problems = [...result.byScript.values()].flat();
    if (problems.some((p) => UNRESOLVED.has(p.code))) {
      await rm(this.resultFile(id), { force: true });
      return;
    }
    const inputs = ContentHashes.inputsOf(programFiles.map((f) => relative(this.dir, f)));
    const stored: Stored = {
      key: await this.hashes.keyOf(inputs, this.extra(files)),
      inputs,
      byScript: [...result.byScript].map(([f, p]) => [relative(this.dir, f), p]),
      count: result.count,
    };
    await mkdir(this.folder, { recursive: true });
    await writeFile(this.resultFile(id), JSON.stringify(stored));
  }

  /** Removes what groups no longer in the project left (and the group-numbered state of earlier CLIs). */
  async prune(ids: string[]): Promise<void> {
    const keep = new Set(ids);
    const switchyard = path.join(this.dir, '.switchyard');
    for (const f of existsSync(switchyard) ? await readdir(switchyard) : [])
      if (/^tsbuildinfo-\d+$/.test(f)) await rm(path.join(switchyard, f), { force: true });
    for (const f of existsSync(this.folder) ? await readdir(this.folder) : [])
      if (!keep.has(f.replace(/\.[^.]+$/, ''))) await rm(path.join(this.folder, f), { force: true });
  }
}
