/**
 * @module cli/providers — provider definitions kept in a project, deployed by `switchyard deploy`
 * before the scripts: `providers.yaml` (or `.yml`/`.json`) at the root, a map name → definition
 * like Nango's file, and `<integration>/provider.yaml` (one definition, its name defaulting to the
 * folder). Each is created (`POST /providers`) or replaced (`PUT /providers/:name`); the platform
 * validates them and answers 400 naming the field. An integration whose folder holds a
 * `provider.yaml` and which does not exist yet is created with that provider, so a fresh platform
 * runs the project as scaffolded.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import type { Api, ApiErrorBody } from './api.js';
import { CliError, dim, green, info, warn, yellow } from './ui.js';

export interface ProjectProvider {
  name: string;
  definition: Record<string, unknown>;
  /** The file it was read from, relative to the project. */
  file: string;
  /** The integration folder of a `<integration>/provider.yaml`. */
  integration?: string;
}

const ROOT_FILES = ['providers.yaml', 'providers.yml', 'providers.json'];
const FOLDER_FILES = ['provider.yaml', 'provider.yml', 'provider.json'];

async function readData(file: string, shown: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  try {
    return file.endsWith('.json') ? JSON.parse(text) : parse(text);
  } catch (err) {
    throw new CliError(`${shown} is not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`, `fix ${shown}`);
  }
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Every provider definition of the project (`integrations`: only the provider.yaml of these folders). */
export async function projectProviders(dir: string, integrations?: string[]): Promise<ProjectProvider[]> {
  const out: ProjectProvider[] = [];
  const root = ROOT_FILES.find((f) => existsSync(path.join(dir, f)));
  if (root) {
    const data = await readData(path.join(dir, root), root);
    if (!isObject(data))
      throw new CliError(`${root} must be a map of provider name → definition`, `write it as Nango's providers.yaml: "my-api:\\n  display_name: …"`);
    for (const [name, def] of Object.entries(data)) {
      if (!isObject(def)) throw new CliError(`${root}: the entry ${name} is not a definition`, 'give it display_name, auth_mode, proxy.base_url, docs, …');
      if (def.name !== undefined && def.name !== name)
        throw new CliError(`${root}: the entry ${name} says name: ${String(def.name)}`, 'drop its name key, or make it match');
      out.push({ name, definition: { ...def, name }, file: root });
    }
  }
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.') || ['node_modules', 'build', 'dist'].includes(entry.name)) continue;
    if (integrations && !integrations.includes(entry.name)) continue;
    const file = FOLDER_FILES.find((f) => existsSync(path.join(dir, entry.name, f)));
    if (!file) continue;
    const shown = `${entry.name}/${file}`;
    const def = await readData(path.join(dir, entry.name, file), shown);
    if (!isObject(def)) throw new CliError(`${shown} must hold one provider definition`, 'give it name, display_name, auth_mode, proxy.base_url, docs, …');
    const name = typeof def.name === 'string' ? def.name : entry.name;
    out.push({ name, definition: { ...def, name }, file: shown, integration: entry.name });
  }
  const seen = new Map<string, string>();
  for (const p of out) {
    const other = seen.get(p.name);
    if (other) throw new CliError(`The provider ${p.name} is defined twice: in ${other} and in ${p.file}`, 'keep one definition per provider name');
    seen.set(p.name, p.file);
  }
  return out;
}

/** Creates or replaces each definition on the platform, then creates the integrations that provider.yaml files back. */
export async function deployProviders(api: Api, providers: ProjectProvider[]): Promise<void> {
  for (const p of providers) {
    const current = await api.fetch(`/providers/${encodeURIComponent(p.name)}`);
    let answer: { warnings?: string[] };
    if (current.status === 404) {
      answer = await withFile(p, () => api.json('POST', '/providers', p.definition));
      info(`  ${green('+')} provider ${p.name} ${dim(`(${p.file})`)} created`);
    } else if (current.ok) {
      const { data } = (await current.json()) as { data: { source?: string } };
      if (data.source === 'catalog') {
        throw new CliError(
          `${p.file}: ${p.name} is a catalogue provider; a project cannot redefine it`,
          `rename your provider, or delete ${p.file} to use the catalogue's ${p.name}`,
        );
      }
      answer = await withFile(p, () => api.json('PUT', `/providers/${encodeURIComponent(p.name)}`, p.definition));
      info(`  ${yellow('~')} provider ${p.name} ${dim(`(${p.file})`)} replaced`);
    } else {
      throw api.failure(current.status, (await current.json().catch(() => null)) as ApiErrorBody | null, '');
    }
    for (const w of answer.warnings ?? []) warn(`${p.file}: ${w}`);
  }
  for (const p of providers) {
    if (!p.integration) continue;
    const res = await api.fetch(`/integrations/${encodeURIComponent(p.integration)}`);
    if (res.status === 404) {
      await api.json('POST', '/integrations', { unique_key: p.integration, provider: p.name });
      info(`  ${green('+')} integration ${p.integration} ${dim(`(provider ${p.name})`)} created`);
    } else if (res.ok) {
      const { data } = (await res.json()) as { data: { provider: string } };
      if (data.provider !== p.name) warn(`the integration ${p.integration} uses the provider ${data.provider}, not ${p.name} from ${p.file}`);
    }
  }
}

async function withFile<T>(p: ProjectProvider, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (err instanceof CliError) throw new CliError(`${p.file}: ${err.message}`, err.next, err.details);
    throw err;
  }
}
