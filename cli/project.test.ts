/**
 * The project rules the CLI enforces before compiling: zod is pinned to exactly 4.0.5 in
 * package.json (a Nango project's own zod 4 is accepted, its package.json untouched), a yaml
 * configuration is refused from the clock's 2025-12-01 switch (before it, a warning), a Nango
 * project's scripts are those its index.ts imports, and Nango's variable names authenticate the CLI.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { clockFrom, dates } from '../lib/clock.js';
import { checkZod, findScripts, hostOf, PACKAGE_ROOT, refuseYaml, secretKeyFor } from './project.js';
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

describe('a Nango zero-yaml project', () => {
  const nangoPkg = (zod: string) => JSON.stringify({ name: 'nango-integrations', type: 'module', devDependencies: { nango: '0.69.5', zod } }, null, 4);

  test('its own zod 4 is accepted and package.json is not rewritten', async () => {
    for (const zod of ['4.3.6', '^4.0.5']) {
      const dir = await project({ 'package.json': nangoPkg(zod), 'index.ts': '' });
      assert.equal(await checkZod(dir), path.join(dir, 'node_modules', 'zod'));
      assert.equal(await readFile(path.join(dir, 'package.json'), 'utf8'), nangoPkg(zod));
    }
  });
  test('zod 3 is refused without editing package.json', async () => {
    const dir = await project({ 'package.json': nangoPkg('3.23.8') });
    await assert.rejects(checkZod(dir), (err: Error) => err instanceof CliError && /scripts need zod 4/.test(err.message));
    assert.equal(await readFile(path.join(dir, 'package.json'), 'utf8'), nangoPkg('3.23.8'));
  });
  test('the scripts are those index.ts imports; an import of a missing file is an error', async () => {
    const dir = await project({ 'package.json': nangoPkg('4.3.6') });
    for (const f of ['github/syncs/issues.ts', 'github/actions/create-issue.ts', 'github/actions/draft.ts', 'slack/on-events/setup.ts']) {
      await mkdir(path.dirname(path.join(dir, f)), { recursive: true });
      await writeFile(path.join(dir, f), 'export default {};\n');
    }
    const index = [
      "import './github/syncs/issues.js';",
      "// import './github/actions/draft.js';",
      "import './github/actions/create-issue.js';",
      "import './slack/on-events/setup';",
      "import './models.js';",
    ];
    await writeFile(path.join(dir, 'index.ts'), `${index.join('\n')}\n`);
    const found = (await findScripts(dir)).map((s) => `${s.integration}/${s.kind}/${s.name}`);
    assert.deepEqual(found, ['github/action/create-issue', 'github/sync/issues', 'slack/on-event/setup']);
    await writeFile(path.join(dir, 'index.ts'), "import './github/syncs/gone.js';\n");
    await assert.rejects(findScripts(dir), (err: Error) => err instanceof CliError && /index\.ts lists scripts that are not there/.test(err.message));
  });
  test('NANGO_SECRET_KEY_<ENV> and NANGO_HOST are read when the SWITCHYARD_* ones are absent', () => {
    const saved = { ...process.env };
    try {
      for (const k of ['SWITCHYARD_HOST', 'SWITCHYARD_SECRET_KEY_PROD', 'NANGO_HOSTPORT']) delete process.env[k];
      process.env.NANGO_HOST = 'http://nango.internal:3003/';
      process.env.NANGO_SECRET_KEY_PROD = 'from-nango';
      assert.equal(hostOf(), 'http://nango.internal:3003');
      assert.deepEqual(secretKeyFor('prod'), { key: 'from-nango', variable: 'NANGO_SECRET_KEY_PROD' });
      process.env.SWITCHYARD_HOST = 'http://switchyard:3003';
      process.env.SWITCHYARD_SECRET_KEY_PROD = 'from-switchyard';
      assert.equal(hostOf(), 'http://switchyard:3003');
      assert.deepEqual(secretKeyFor('prod'), { key: 'from-switchyard', variable: 'SWITCHYARD_SECRET_KEY_PROD' });
    } finally {
      process.env = saved;
    }
  });
});
