/**
 * @module features/providers/catalog — the catalogue of provider definitions that ships with
 * Switchyard: one YAML file per provider in features/providers/catalog/, written from each
 * provider's own public documentation (the `docs` field names the page). Read and validated once.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { resolveAlias, UnknownAlias } from './alias.js';
import { definitionWarnings, providerDefinitionSchema, type ProviderDefinition } from './definition.js';

export const CATALOG_DIR = fileURLToPath(new URL('./catalog', import.meta.url));

export class CatalogEntryInvalid extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
  }
}

const readYaml = (file: string) => parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

/**
 * Parses and validates one catalogue file; its `name` must match the file name. An entry with an
 * `alias` is the named entry's definition with its own keys over it. Nothing may be kept unused: a
 * key or value the runtime would not act on (a definition warning) is refused here.
 */
export function readCatalogEntry(file: string): ProviderDefinition {
  let raw: Record<string, unknown>;
  try {
    raw = resolveAlias(readYaml(file), (name) => {
      const other = path.join(path.dirname(file), `${name}.yaml`);
      return existsSync(other) ? readYaml(other) : undefined;
    });
  } catch (err) {
    if (err instanceof UnknownAlias) throw new CatalogEntryInvalid(file, [`alias: ${err.message}`]);
    throw err;
  }
  const result = providerDefinitionSchema.safeParse(raw);
  if (!result.success)
    throw new CatalogEntryInvalid(
      file,
      result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  const problems = definitionWarnings(result.data);
  if (result.data.name !== path.basename(file, '.yaml')) problems.push(`name "${result.data.name}" differs from the file name`);
  if (problems.length > 0) throw new CatalogEntryInvalid(file, problems);
  return result.data;
}

let loaded: Map<string, ProviderDefinition> | undefined;

/** Every catalogue definition by name. */
export function catalog(): ReadonlyMap<string, ProviderDefinition> {
  if (!loaded) {
    loaded = new Map();
    for (const f of readdirSync(CATALOG_DIR)
      .filter((n) => n.endsWith('.yaml'))
      .sort()) {
      const def = readCatalogEntry(path.join(CATALOG_DIR, f));
      loaded.set(def.name, def);
    }
  }
  return loaded;
}
