/**
 * @module canonical-json — JSON with object keys sorted recursively (code-unit order), otherwise
 * JSON.stringify's semantics (toJSON, undefined dropped in objects and null in arrays), from
 * safe-stable-stringify. Used where bytes must be reproducible: webhook bodies (signed; a receiver
 * that re-serializes the parsed body gets the same bytes), record content hashes, deploy plans.
 *
 * Plain data (what JSON.parse and zod give: plain objects, arrays, primitives, dates) takes a native
 * path with the same bytes: JSON.stringify with a property list writes every object's keys in the
 * list's order, so the sorted list of the keys in the value gives the sorted text, several times
 * faster than sorting in JavaScript. Anything else (class instances, a toJSON of its own, BigInt,
 * cycles, very deep values) takes safe-stable-stringify.
 */
import { configure } from 'safe-stable-stringify';

const stringify = configure({ deterministic: true, bigint: true, circularValue: TypeError });

/** Deeper values take safe-stable-stringify. */
const MAX_DEPTH = 100;
/**
 * JSON.stringify looks every key of its list up on every object, so one list serves many values
 * only while it is short; a value with more keys gets a list of its own.
 */
const SHARED_KEYS = 64;

/**
 * Adds the keys of every object in `value` to `keys`; false when a property list could serialise it
 * otherwise than safe-stable-stringify: a toJSON of its own, an object that is not plain (JSON.stringify
 * would look list keys up on its prototype), a BigInt, a cycle (`ancestors`) or a value too deep.
 */
function collectKeys(value: unknown, keys: Set<string>, ancestors: object[]): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'bigint';
  const proto: unknown = Object.getPrototypeOf(value);
  // A Date becomes its toJSON string in both; it has no keys to list.
  if (proto === Date.prototype) return !Object.hasOwn(value, 'toJSON');
  if ((proto !== Array.prototype && proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (ancestors.length >= MAX_DEPTH || ancestors.includes(value)) return false;
  ancestors.push(value);
  if (proto === Array.prototype) {
    for (const item of value as unknown[]) if (!collectKeys(item, keys, ancestors)) return false;
  } else {
    for (const key of Object.keys(value)) {
      keys.add(key);
      if (!collectKeys((value as Record<string, unknown>)[key], keys, ancestors)) return false;
    }
  }
  ancestors.pop();
  return true;
}

/**
 * The keys sorted as safe-stable-stringify sorts them; null when one is also a property of
 * Object.prototype that JSON.stringify would write for an object without it (`__proto__`).
 */
function sortedList(keys: Set<string>): string[] | null {
  const list = [...keys].sort();
  return list.some((k) => k in Object.prototype && typeof (Object.prototype as Record<string, unknown>)[k] !== 'function') ? null : list;
}

/** The canonical JSON text of `value` (`null` for a value JSON cannot represent, like undefined). */
export function canonicalJson(value: unknown): string {
  const keys = new Set<string>();
  const list = collectKeys(value, keys, []) ? sortedList(keys) : null;
  return (list ? JSON.stringify(value, list) : stringify(value)) ?? 'null';
}

/** canonicalJson of each value; values of one shape (a page of records) share one sorted key list. */
export function canonicalJsonEach(values: readonly unknown[]): string[] {
  const shared = new Set<string>();
  const plain = values.map((v) => collectKeys(v, shared, []));
  const list = shared.size <= SHARED_KEYS ? sortedList(shared) : null;
  return values.map((v, i) => (list && plain[i] ? (JSON.stringify(v, list) ?? 'null') : canonicalJson(v)));
}
