/**
 * @module test/nango-cli — a Nango zero-yaml project as a migrating user has it: a copy of a fixture
 * with `zod` installed (offline: this repository's) and Nango's `.env` names, and the real
 * `switchyard` CLI run on it with only that `.env` to authenticate.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  // Only the project's .env authenticates the CLI: no SWITCHYARD_* or NANGO_* from this process.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SWITCHYARD_(HOST|SECRET_KEY_)|NANGO_)/.test(k)));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'cli', 'index.ts'), ...args], {
      cwd: ROOT,
      env: { ...base, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Copies `fixture` to `<work>/nango-integrations`, installs zod, and writes the `.env` the CLI reads. */
export async function prepareNangoProject(fixture: string, platform: { url: string; devKey: string }): Promise<{ work: string; proj: string }> {
  const work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'nango-project-'));
  const proj = path.join(work, 'nango-integrations');
  await cp(fixture, proj, { recursive: true });
  // `npm install`, offline: zod from this repository; nothing from Nango is installed.
  await mkdir(path.join(proj, 'node_modules'));
  await symlink(path.join(ROOT, 'node_modules', 'zod'), path.join(proj, 'node_modules', 'zod'), 'dir');
  // The CLI authenticates with Nango's variable names, as a Nango project's .env has them.
  await writeFile(path.join(proj, '.env'), `NANGO_SECRET_KEY_DEV=${platform.devKey}\nNANGO_HOST=${platform.url}\n`);
  return { work, proj };
}
