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
import { bundle, manifestOf } from '../cli/build.js';
import { CLI_VERSION, findScripts } from '../cli/project.js';
import type { TestPlatform } from './harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Deploys `files` (paths under the integration's folder, e.g. `actions/x.ts`) for the integration `integration`. */
export async function deployScripts(t: TestPlatform, integration: string, files: Record<string, string>): Promise<void> {
  const work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'deploy-'));
  try {
    await mkdir(path.join(work, 'node_modules'), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules', 'zod'), path.join(work, 'node_modules', 'zod'), 'dir');
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(work, integration, file)), { recursive: true });
      await writeFile(path.join(work, integration, file), content);
    }
    const scripts = [];
    for (const s of await findScripts(work)) {
      const code = await bundle(work, s);
      scripts.push({ integration: s.integration, name: s.name, bundle: code, manifest: await manifestOf(work, s, code) });
    }
    const deployed = await t.api('/scripts/deploy', { method: 'POST', json: { scripts, activate: true, cli_version: CLI_VERSION } });
    assert.equal(deployed.status, 200, await deployed.clone().text());
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
