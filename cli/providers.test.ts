/**
 * The provider definitions a project keeps (cli/providers.ts): `providers.yaml` at the root (a map
 * name → definition, Nango's shape) and `<integration>/provider.yaml` (its name defaulting to the
 * folder); a name given twice, or a map key and a `name` that disagree, is refused before anything
 * is sent.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { projectProviders } from './providers.js';
import { CliError } from './ui.js';

const dirs: string[] = [];
async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-providers-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('project providers', () => {
  test('providers.yaml entries take their map key as name; provider.yaml defaults to its folder', async () => {
    const dir = await project({
      'providers.yaml': 'acme:\n  display_name: Acme\n  auth_mode: NONE\nbeta:\n  name: beta\n  display_name: Beta\n  auth_mode: NONE\n',
      'crm/provider.yaml': 'display_name: CRM\nauth_mode: API_KEY\n',
      'other/provider.json': '{"name":"other-api","display_name":"Other","auth_mode":"BASIC"}',
      'nothing/syncs/x.ts': '',
    });
    const all = await projectProviders(dir);
    assert.deepEqual(
      all.map((p) => [p.name, p.file, p.integration ?? null, p.definition.name]),
      [
        ['acme', 'providers.yaml', null, 'acme'],
        ['beta', 'providers.yaml', null, 'beta'],
        ['crm', 'crm/provider.yaml', 'crm', 'crm'],
        ['other-api', 'other/provider.json', 'other', 'other-api'],
      ],
    );
    assert.deepEqual(
      (await projectProviders(dir, ['crm'])).map((p) => p.name),
      ['acme', 'beta', 'crm'],
    );
  });

  test('a name given twice, a key and a name that disagree, or unreadable YAML are refused', async () => {
    const twice = await project({ 'providers.yaml': 'crm:\n  display_name: CRM\n', 'crm/provider.yaml': 'display_name: CRM too\n' });
    await assert.rejects(projectProviders(twice), (e: unknown) => e instanceof CliError && /crm is defined twice/.test(e.message));
    const mismatch = await project({ 'providers.yaml': 'acme:\n  name: other\n' });
    await assert.rejects(projectProviders(mismatch), (e: unknown) => e instanceof CliError && /entry acme says name: other/.test(e.message));
    const broken = await project({ 'crm/provider.yaml': 'display_name: [unclosed\n' });
    await assert.rejects(projectProviders(broken), (e: unknown) => e instanceof CliError && /crm\/provider\.yaml is not valid YAML/.test(e.message));
    const list = await project({ 'providers.yaml': '- acme\n' });
    await assert.rejects(projectProviders(list), (e: unknown) => e instanceof CliError && /must be a map/.test(e.message));
  });
});
