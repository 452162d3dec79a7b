/**
 * The project rules the CLI enforces before compiling: zod is pinned to exactly 4.0.5 in
 * package.json, and a yaml configuration is refused from the clock's 2025-12-01 switch (before it,
 * a warning).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { clockFrom, dates } from '../lib/clock.js';
import { checkZod, PACKAGE_ROOT, refuseYaml } from './project.js';
import { CliError } from './ui.js';

const dirs: string[] = [];
async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-project-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  await mkdir(path.join(dir, 'node_modules'));
  await symlink(path.join(PACKAGE_ROOT, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'), 'dir');
  return dir;
}
const pkg = (zod: string) => JSON.stringify({ name: 'p', private: true, dependencies: { zod } }, null, 2);
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('checkZod: zod is exactly 4.0.5', () => {
  for (const declared of ['^4.0.5', '>=4.0.5', '~4.0.5', '4.1.0', '4.0.6', '^3.23.8']) {
    test(`"${declared}" is refused and package.json is pinned to 4.0.5`, async () => {
      const dir = await project({ 'package.json': pkg(declared) });
      await assert.rejects(checkZod(dir), (err: Error) => err instanceof CliError && /Switchyard scripts need zod 4\.0\.5/.test(err.message));
      assert.equal((JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { dependencies: { zod: string } }).dependencies.zod, '4.0.5');
    });
  }
  test('"4.0.5" passes', async () => {
    const dir = await project({ 'package.json': pkg('4.0.5') });
    assert.equal(await checkZod(dir), path.join(dir, 'node_modules', 'zod'));
  });
});

describe('refuseYaml follows the 2025-12-01 switch', () => {
  test('before the switch a yaml configuration is only a warning', async () => {
    const dir = await project({ 'nango.yaml': 'integrations: {}\n' });
    assert.doesNotThrow(() => refuseYaml(dir, clockFrom(new Date(dates.yamlRefused.getTime() - 60_000))));
  });
  test('from the switch it is refused with the migration message', async () => {
    const dir = await project({ 'nango.yaml': 'integrations: {}\n' });
    assert.throws(
      () => refuseYaml(dir, clockFrom(dates.yamlRefused)),
      (err: Error) => err instanceof CliError && /nango\.yaml found: Switchyard does not read yaml/.test(err.message),
    );
  });
  test('SWITCHYARD_NOW sets the CLI clock as it sets the platform one', async () => {
    const dir = await project({ 'nango.yaml': 'integrations: {}\n' });
    process.env.SWITCHYARD_NOW = '2025-11-15T00:00:00Z';
    try {
      assert.doesNotThrow(() => refuseYaml(dir));
    } finally {
      delete process.env.SWITCHYARD_NOW;
    }
    assert.throws(() => refuseYaml(dir), CliError);
  });
});
