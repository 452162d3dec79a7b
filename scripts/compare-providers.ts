/**
 * Compares a Nango-format providers file with Switchyard (issue 30, item 7), to run by hand against
 * a local copy (none is committed):
 *
 *   node --import tsx scripts/compare-providers.ts path/to/providers.yaml [--list]
 *
 * It prints how many entries our definition schema accepts, which it refuses and why (grouped by
 * reason; `--list` names every refused entry), how many are refused only because their auth mode is
 * not supported yet, and, for the names our catalogue also has, where ours differ in base URL, auth
 * mode and connection-config keys. Aliases are resolved first (the entry named by `alias`, overridden
 * by the alias's own keys; an alias of an alias too), as features/providers/alias.ts resolves ours.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { resolveAlias, UnknownAlias } from '../features/providers/alias.js';
import { catalog } from '../features/providers/catalog.js';
import { providerAuthModes, providerDefinitionSchema, type ProviderDefinition } from '../features/providers/definition.js';

type Entry = Record<string, unknown>;

/** The file's entries by name, aliases resolved, each with its `name`. */
export function nangoEntries(text: string): Map<string, Entry> {
  const file = parse(text) as Record<string, Entry> | null;
  if (!file || typeof file !== 'object') throw new Error('not a providers file: expected a map of provider names to entries');
  const out = new Map<string, Entry>();
  for (const [name, entry] of Object.entries(file)) {
    try {
      out.set(
        name,
        resolveAlias({ ...entry, name }, (other) => file[other] && { ...file[other], name: other }),
      );
    } catch (err) {
      if (!(err instanceof UnknownAlias)) throw err;
      out.set(name, { ...entry, name });
    }
  }
  return out;
}

export interface EntryCheck {
  name: string;
  ok: boolean;
  /** `path: message` of each problem, the entry's own keys replaced by `*` so that reasons group. */
  reasons: string[];
  /** Refused for nothing but an auth mode the schema does not know (yet). */
  onlyAuthMode?: string;
}

/** Containers whose keys are the entry's own (field names, header names), not the format's. */
const OWN_KEYS = new Set([
  'connection_config',
  'credentials',
  'integration_config',
  'assertion_option',
  'headers',
  'query',
  'authorization_params',
  'token_params',
  'refresh_params',
]);

function reasonPath(path: PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' || (i > 0 && OWN_KEYS.has(String(path[i - 1]))) ? '*' : String(p))).join('.');
}

export function checkEntry(entry: Entry): EntryCheck {
  const name = String(entry.name);
  const result = providerDefinitionSchema.safeParse(entry);
  if (result.success) return { name, ok: true, reasons: [] };
  const reasons = [
    ...new Set(
      result.error.issues.flatMap((i) =>
        i.code === 'unrecognized_keys'
          ? i.keys.map((k) => `${reasonPath([...i.path, k])}: not a key of the format`)
          : [`${reasonPath(i.path) || '(root)'}: ${i.message}`],
      ),
    ),
  ];
  const mode = entry.auth_mode;
  const onlyMode =
    typeof mode === 'string' &&
    !(providerAuthModes as readonly string[]).includes(mode) &&
    result.error.issues.every((i) => i.path.length === 1 && i.path[0] === 'auth_mode');
  return { name, ok: false, reasons, ...(onlyMode && { onlyAuthMode: mode }) };
}

export interface Difference {
  name: string;
  field: 'base URL' | 'auth mode' | 'connection-config keys';
  theirs: string;
  ours: string;
}

/** Where a catalogue entry of the same name differs from the file's. */
export function differences(entry: Entry, ours: ProviderDefinition): Difference[] {
  const name = ours.name;
  const out: Difference[] = [];
  const proxy = entry.proxy as { base_url?: unknown } | undefined;
  const theirBase = typeof proxy?.base_url === 'string' ? proxy.base_url : '';
  const ourBase = ours.proxy?.base_url ?? '';
  if (trimSlash(theirBase) !== trimSlash(ourBase)) out.push({ name, field: 'base URL', theirs: theirBase, ours: ourBase });
  const theirMode = typeof entry.auth_mode === 'string' ? entry.auth_mode : '';
  if (theirMode !== ours.auth_mode) out.push({ name, field: 'auth mode', theirs: theirMode, ours: ours.auth_mode });
  const theirKeys = Object.keys((entry.connection_config as Entry | undefined) ?? {}).sort();
  const ourKeys = Object.keys(ours.connection_config ?? {}).sort();
  if (theirKeys.join() !== ourKeys.join()) out.push({ name, field: 'connection-config keys', theirs: theirKeys.join(', '), ours: ourKeys.join(', ') });
  return out;
}

const trimSlash = (s: string) => s.replace(/\/+$/, '');

/** The whole report, as printed. */
export function compareReport(text: string, opts: { list?: boolean } = {}): string {
  const entries = nangoEntries(text);
  const checks = [...entries.values()].map(checkEntry);
  const refused = checks.filter((c) => !c.ok);
  const modeOnly = refused.filter((c) => c.onlyAuthMode);
  const lines = [`${entries.size} entries: ${entries.size - refused.length} parse, ${refused.length} refused`];
  if (modeOnly.length > 0) {
    const byMode = count(modeOnly.map((c) => c.onlyAuthMode!));
    lines.push(`${modeOnly.length} of the refused only for an auth mode not supported yet: ${byMode.map(([m, n]) => `${m} ${n}`).join(', ')}`);
  }
  const other = refused.filter((c) => !c.onlyAuthMode);
  if (other.length > 0) {
    lines.push('', `Reasons (${other.length} entries refused for more than the auth mode; entries per reason):`);
    for (const [reason, n] of count(other.flatMap((c) => c.reasons))) lines.push(`  ${n}\t${reason}`);
  }
  if (opts.list && refused.length > 0) {
    lines.push('', 'Refused entries:');
    for (const c of refused) lines.push(`  ${c.name}: ${c.reasons.join('; ')}`);
  }
  const ours = catalog();
  const shared = [...entries.keys()].filter((n) => ours.has(n));
  const diffs = shared.flatMap((n) => differences(entries.get(n)!, ours.get(n)!));
  lines.push('', `${shared.length} names in both; ${new Set(diffs.map((d) => d.name)).size} differ:`);
  for (const field of ['auth mode', 'base URL', 'connection-config keys'] as const) {
    const of = diffs.filter((d) => d.field === field);
    lines.push(`  ${field}: ${of.length}`);
    for (const d of of) lines.push(`    ${d.name}: theirs ${d.theirs || '(none)'} | ours ${d.ours || '(none)'}`);
  }
  return lines.join('\n');
}

/** Values with how often each occurs, most frequent first. */
function count(values: string[]): [string, number][] {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv.slice(2).find((a) => !a.startsWith('--'));
  if (!file) {
    console.error('usage: node --import tsx scripts/compare-providers.ts path/to/providers.yaml [--list]');
    process.exit(2);
  }
  console.log(compareReport(readFileSync(file, 'utf8'), { list: process.argv.includes('--list') }));
}
