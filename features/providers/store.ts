/**
 * @module features/providers/store — user-defined providers, per environment (table `providers`),
 * and `findProvider`, the one lookup every runtime path uses: the environment's own definition
 * first, then the catalogue. A new user-defined provider may not take a catalogue name; one defined
 * before a catalogue update added its name keeps serving its environment (its connections'
 * credentials stay with the origins they were issued for) and is listed with `shadowsCatalog`. A
 * provider is not deleted while an integration of its environment uses it.
 */
import type { Queryable } from '../../lib/db/pool.js';
import { Conflict, NotFound, ValidationFailed } from '../../lib/errors.js';
import { countIntegrationsOfProvider } from '../integrations/store.js';
import { catalog } from './catalog.js';
import { providerDefinitionSchema, unknownKeys, type ProviderDefinition } from './definition.js';
import { getCatalogProvider, providerFromDefinition, type Provider } from './providers.js';

export interface StoredProvider {
  id: number;
  environmentId: number;
  name: string;
  definition: ProviderDefinition;
  createdAt: Date;
  updatedAt: Date;
}

/** A definition checked against the schema: 400 naming each bad field; unknown keys come back as warnings. */
export function parseProviderDefinition(input: unknown): { definition: ProviderDefinition; warnings: string[] } {
  const result = providerDefinitionSchema.safeParse(input);
  if (!result.success)
    throw new ValidationFailed(
      'invalid_body',
      result.error.issues.map((i) => ({ code: i.code, message: i.message, path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)) })),
    );
  return { definition: result.data, warnings: definitionWarnings(result.data) };
}

/** The warnings of a parsed definition: its unknown keys, kept but not used. */
export function definitionWarnings(definition: ProviderDefinition): string[] {
  return unknownKeys(definition).map((k) => `unknown key "${k}" kept but not used`);
}

/** Where a provider comes from: shipped in the catalogue, or defined by the environment. */
export type ProviderSource = 'catalog' | 'user';

interface Row {
  id: number;
  environment_id: number;
  name: string;
  definition: ProviderDefinition;
  created_at: Date;
  updated_at: Date;
}

function fromRow(r: Row): StoredProvider {
  return { id: r.id, environmentId: r.environment_id, name: r.name, definition: r.definition, createdAt: r.created_at, updatedAt: r.updated_at };
}

export function isCatalogProvider(name: string): boolean {
  return catalog().has(name);
}

/** Saves a new user-defined provider (a definition already parsed). 409 when the name is taken here or by the catalogue. */
export async function createProvider(db: Queryable, environmentId: number, definition: ProviderDefinition): Promise<StoredProvider> {
  if (isCatalogProvider(definition.name))
    throw new Conflict('provider_name_taken', `"${definition.name}" is a catalogue provider; a user-defined provider needs another name`);
  const { rows } = await db.query<Row>(
    `INSERT INTO providers (environment_id, name, definition) VALUES ($1, $2, $3)
     ON CONFLICT (environment_id, name) DO NOTHING RETURNING *`,
    [environmentId, definition.name, JSON.stringify(definition)],
  );
  if (!rows[0]) throw new Conflict('provider_exists', `A provider named "${definition.name}" already exists in this environment`);
  return fromRow(rows[0]);
}

export async function getStoredProvider(db: Queryable, environmentId: number, name: string): Promise<StoredProvider | null> {
  const { rows } = await db.query<Row>('SELECT * FROM providers WHERE environment_id = $1 AND name = $2', [environmentId, name]);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function listStoredProviders(db: Queryable, environmentId: number): Promise<StoredProvider[]> {
  const { rows } = await db.query<Row>('SELECT * FROM providers WHERE environment_id = $1 ORDER BY name', [environmentId]);
  return rows.map(fromRow);
}

/** Replaces a user-defined provider's definition; its name cannot change (404 when there is none). */
export async function updateProvider(db: Queryable, environmentId: number, name: string, definition: ProviderDefinition): Promise<StoredProvider> {
  if (definition.name !== name)
    throw new ValidationFailed('invalid_body', [{ code: 'invalid_name', message: `must be "${name}": a provider cannot be renamed`, path: ['name'] }]);
  const { rows } = await db.query<Row>('UPDATE providers SET definition = $3, updated_at = now() WHERE environment_id = $1 AND name = $2 RETURNING *', [
    environmentId,
    name,
    JSON.stringify(definition),
  ]);
  if (!rows[0]) throw unknownOwnProvider(name);
  return fromRow(rows[0]);
}

/** Deletes a user-defined provider; refused (409) while an integration of the environment uses it. */
export async function deleteProvider(db: Queryable, environmentId: number, name: string): Promise<void> {
  if (!(await getStoredProvider(db, environmentId, name))) throw unknownOwnProvider(name);
  const used = await countIntegrationsOfProvider(db, environmentId, name);
  if (used > 0) throw new Conflict('provider_in_use', `${used} integration(s) use provider "${name}"; delete them first`);
  const { rowCount } = await db.query('DELETE FROM providers WHERE environment_id = $1 AND name = $2', [environmentId, name]);
  if (!rowCount) throw unknownOwnProvider(name);
}

function unknownOwnProvider(name: string): NotFound {
  return isCatalogProvider(name)
    ? new NotFound('unknown_provider', `"${name}" is a catalogue provider; only your own can be replaced or deleted`)
    : new NotFound('unknown_provider', `No user-defined provider named "${name}" in this environment`);
}

/** A provider as an environment sees it, where it comes from, and whether it hides a catalogue provider of the same name. */
export interface ProviderLookup {
  provider: Provider;
  source: ProviderSource;
  shadowsCatalog: boolean;
}

function ownLookup(stored: StoredProvider): ProviderLookup {
  return { provider: providerFromDefinition(stored.definition), source: 'user', shadowsCatalog: isCatalogProvider(stored.name) };
}

/**
 * The provider of this name as the environment sees it: its own, else the catalogue's. Own first:
 * a catalogue update that adds the name of an existing own provider must not move that provider's
 * integrations (and their credentials) to another definition.
 */
export async function lookupProvider(db: Queryable, environmentId: number, name: string): Promise<ProviderLookup | undefined> {
  const stored = await getStoredProvider(db, environmentId, name);
  if (stored) return ownLookup(stored);
  const known = getCatalogProvider(name);
  return known ? { provider: known, source: 'catalog', shadowsCatalog: false } : undefined;
}

export async function findProvider(db: Queryable, environmentId: number, name: string): Promise<Provider | undefined> {
  return (await lookupProvider(db, environmentId, name))?.provider;
}

/** Every provider the environment can use: the catalogue's whose names it has not taken, then its own. */
export async function listProviders(db: Queryable, environmentId: number): Promise<ProviderLookup[]> {
  const own = (await listStoredProviders(db, environmentId)).map(ownLookup);
  const taken = new Set(own.map((p) => p.provider.name));
  return [
    ...[...catalog().keys()]
      .filter((name) => !taken.has(name))
      .map((name) => ({ provider: getCatalogProvider(name)!, source: 'catalog' as const, shadowsCatalog: false })),
    ...own,
  ];
}
