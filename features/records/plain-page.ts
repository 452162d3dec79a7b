/**
 * @module features/records/plain-page — whether a page handed to batchSave is plain data: objects
 * whose prototype is Object.prototype (or null), arrays, primitives and Dates, as JSON.parse and zod
 * give. V8's copy of such a page (`deserialize(serialize(page))`) validates and saves exactly as the
 * page itself; a class instance loses its prototype in the copy (its toJSON, its getters), so a page
 * holding one is not plain.
 */

/** Deeper values are not looked into (nor is a cycle): the page counts as not plain. */
const MAX_DEPTH = 64;

function isPlain(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function' && typeof value !== 'symbol';
  if (depth >= MAX_DEPTH) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Date.prototype) return !Object.hasOwn(value, 'toJSON');
  if (proto === Array.prototype) {
    for (const item of value as unknown[]) if (!isPlain(item, depth + 1)) return false;
    return true;
  }
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.hasOwn(value, 'toJSON')) return false;
  for (const key in value) if (!isPlain((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

/** True when every record of the page is plain data (see the module). */
export function isPlainPage(records: readonly unknown[]): boolean {
  for (const record of records) if (!isPlain(record, 0)) return false;
  return true;
}
