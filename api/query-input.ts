/**
 * @module api/query-input — a GET action's input from its query string. Query values are strings;
 * each is read as the type the action's input JSON Schema gives its property (`id=007` is the
 * number 7 for an integer `id`). A value that does not read as that type stays a string, so the
 * input validation names the field.
 */
import { parseQuery } from './validate.js';

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; items?: JsonSchema; properties?: Record<string, JsonSchema> };

function typesOf(schema: JsonSchema | undefined): Set<string> {
  if (!schema || typeof schema !== 'object') return new Set();
  const own = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const alternatives = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((s) => [...typesOf(s)]);
  return new Set([...own, ...alternatives]);
}

const NUMBER = /^-?(?:\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function readValue(value: string, schema: JsonSchema | undefined): unknown {
  const types = typesOf(schema);
  if (types.size === 0 || types.has('string')) return value;
  if ((types.has('number') || types.has('integer')) && NUMBER.test(value)) {
    const n = Number(value);
    if (Number.isFinite(n)) return n;
  }
  if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  if (types.has('null') && value === 'null') return null;
  return value;
}

/** One query key's value(s): repeated keys, or one value for an array property, become an array. */
function readEntry(value: string | string[], schema: JsonSchema | undefined): unknown {
  const types = typesOf(schema);
  const wantsArray = types.has('array') && !types.has('string');
  if (Array.isArray(value) || wantsArray) return [value].flat().map((item) => readValue(item, wantsArray ? schema?.items : undefined));
  return readValue(value, schema);
}

export function queryAsInput(url: string, inputSchema: unknown): Record<string, unknown> {
  const properties = (inputSchema as JsonSchema | null)?.properties ?? {};
  return Object.fromEntries(
    Object.entries(parseQuery(url)).map(([k, v]) => [
      k,
      typeof v === 'object' && !Array.isArray(v) ? v : readEntry(v, Object.hasOwn(properties, k) ? properties[k] : undefined),
    ]),
  );
}
