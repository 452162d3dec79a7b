/**
 * @module canonical-json — JSON with object keys sorted recursively (code-unit order), otherwise
 * JSON.stringify's semantics (toJSON, undefined dropped in objects and null in arrays), from
 * safe-stable-stringify. Used where bytes must be reproducible: webhook bodies (signed; a receiver
 * that re-serializes the parsed body gets the same bytes), record content hashes, deploy plans.
 */
import { configure } from 'safe-stable-stringify';

const stringify = configure({ deterministic: true, bigint: true, circularValue: TypeError });

/** The canonical JSON text of `value` (`null` for a value JSON cannot represent, like undefined). */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? 'null';
}
