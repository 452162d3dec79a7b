/**
 * @module features/providers/catalog — the catalogue of provider definitions that ships with
 * Switchyard: one YAML file per provider in features/providers/catalog/, written from each
 * provider's own public documentation (the `docs` field names the page). Read and validated once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { providerDefinitionSchema, unknownKeys, type ProviderDefinition } from './definition.js';

export const CATALOG_DIR = fileURLToPath(new URL('./catalog', import.meta.url));

export class CatalogEntryInvalid extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
  }
}

/** Parses and validates one catalogue file; its `name` must match the file name. */
export function readCatalogEntry(file: string): ProviderDefinition {
  const raw = parse(readFileSync(file, 'utf8')) as unknown;
  const result = providerDefinitionSchema.safeParse(raw);
  if (!result.success)
    throw new CatalogEntryInvalid(
      file,
      result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  const problems: string[] = [];
  const extra = unknownKeys(raw as Record<string, unknown>);
  if (extra.length > 0) problems.push(`unknown keys ${extra.join(', ')}`);
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
