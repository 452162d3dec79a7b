/**
 * @module features/providers/alias — Nango's `alias`: an entry that names another provider
 * (`alias: square`) is that provider's entry with the alias's own keys over it, so one API and one
 * credential type can go by two names (Nango's and ours) without two definitions to keep in step.
 * The result keeps `alias`, which is what lets two names share a definition (catalog.test.ts).
 */

type Entry = Record<string, unknown>;

export class UnknownAlias extends Error {
  constructor(readonly alias: string) {
    super(`"${alias}" is not a provider this one can be an alias of`);
  }
}

/** The entry with its alias's keys under its own; `lookup` gives another entry as written (itself maybe an alias). */
export function resolveAlias(entry: Entry, lookup: (name: string) => Entry | undefined, seen: ReadonlySet<string> = new Set()): Entry {
  const alias = entry.alias;
  if (typeof alias !== 'string') return entry;
  const base = seen.has(alias) ? undefined : lookup(alias);
  if (!base) throw new UnknownAlias(alias);
  const resolved = resolveAlias(base, lookup, new Set([...seen, alias, String(entry.name)]));
  const { alias: _theirs, ...inherited } = resolved;
  return { ...inherited, ...entry };
}
