/**
 * @module test/deploy-scripts — compiles script sources as `switchyard compile` does (bundle +
 * manifest) and deploys them, activated, through `POST /scripts/deploy`: for tests whose scripts must
 * run in another process (a worker started apart), where pre-built scripts registered in the test
 * process are not known.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, manifestOf, typecheck } from '../cli/build.js';
import { CLI_VERSION, findScripts } from '../cli/project.js';
import type { TestPlatform } from './harness.js';

const ZOD = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'), 'node_modules', 'zod');

/**
 * Deploys `files` (paths under the integration's folder, e.g. `actions/x.ts`) for the integration
 * `integration`. With `dir`, the project is written there and kept (a later call adds to it);
 * with `typecheck`, every script is type-checked first, strictly, as `switchyard compile` does.
 */
export async function deployScripts(
  t: TestPlatform,
  integration: string,
  files: Record<string, string>,
  opts: { dir?: string; typecheck?: boolean } = {},
): Promise<void> {
  const work = opts.dir ?? (await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'deploy-')));
  try {
    await mkdir(path.join(work, 'node_modules'), { recursive: true });
    await symlink(ZOD, path.join(work, 'node_modules', 'zod'), 'dir').catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(work, integration, file)), { recursive: true });
      await writeFile(path.join(work, integration, file), content);
    }
    const found = await findScripts(work);
    if (opts.typecheck) {
      await typecheck(
        work,
        found.map((s) => s.file),
        ZOD,
      );
    }
    const scripts = [];
    for (const s of found) {
      const code = await bundle(work, s);
      scripts.push({ integration: s.integration, name: s.name, bundle: code, manifest: await manifestOf(work, s, code) });
    }
    const deployed = await t.api('/scripts/deploy', { method: 'POST', json: { scripts, activate: true, cli_version: CLI_VERSION } });
    assert.equal(deployed.status, 200, await deployed.clone().text());
  } finally {
    if (!opts.dir) await rm(work, { recursive: true, force: true });
  }
}
