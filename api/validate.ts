/**
 * @module api/validate — request parsing with zod: JSON bodies, bracketed query strings
 * (`tags[end_user_id]=x`), headers and path params, each failing with its own 400 code and the
 * path of every bad field.
 */
import type { Context } from 'hono';
import qs from 'qs';
import { z } from 'zod';
import { nodeRequest } from './node-response.js';
import { BadRequest, UnsupportedMediaType, ValidationFailed, type FieldProblem } from '../lib/errors.js';

export type ValidationCode = 'invalid_body' | 'invalid_query_params' | 'invalid_headers' | 'invalid_uri_params';

export function problemsOf(error: z.ZodError): FieldProblem[] {
  return error.issues.map((i) => ({ code: i.code, message: i.message, path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)) }));
}

export function check<S extends z.ZodType>(schema: S, data: unknown, code: ValidationCode): z.output<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw new ValidationFailed(code, problemsOf(result.error));
  return result.data;
}

const MAX_JSON_DEPTH = 64;

// PostgreSQL text and jsonb cannot hold NUL, and jsonb refuses unpaired UTF-16 surrogates: such a
// string would fail at the database as a 500, so it is refused here as bad input, naming the field.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (text: string) => text.includes('\u0000') || LONE_SURROGATE.test(text);

function unstorableStrings(value: unknown, path: (string | number)[] = [], out: FieldProblem[] = []): FieldProblem[] {
  if (out.length >= 10) return out;
  if (typeof value === 'string') {
    if (unstorable(value)) out.push({ code: 'invalid_string', message: 'must not contain NUL characters or unpaired UTF-16 surrogates', path });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => unstorableStrings(v, [...path, i], out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (unstorable(k)) out.push({ code: 'invalid_key', message: 'must not contain NUL characters or unpaired UTF-16 surrogates', path: [...path, k] });
      // JSON.parse keeps `__proto__` as an own key; any later copy by assignment would make it the copy's prototype.
      if (k === '__proto__') out.push({ code: 'invalid_key', message: 'must not be __proto__', path: [...path, k] });
      unstorableStrings(v, [...path, k], out);
    }
  }
  return out;
}

/** Refuses strings that the database cannot store (NUL characters, unpaired UTF-16 surrogates) and `__proto__` keys. */
export function assertStorable<T>(value: T, code: ValidationCode): T {
  const problems = unstorableStrings(value);
  if (problems.length > 0) throw new ValidationFailed(code, problems);
  return value;
}

function depthOf(value: unknown, depth = 0): number {
  if (depth > MAX_JSON_DEPTH || value === null || typeof value !== 'object') return depth;
  let max = depth;
  for (const v of Object.values(value as object)) {
    max = Math.max(max, depthOf(v, depth + 1));
    if (max > MAX_JSON_DEPTH) break;
  }
  return max;
}

/** Reads the body as JSON. An empty body reads as `undefined`. */
export async function readJson(c: Context): Promise<unknown> {
  const type = c.req.header('content-type');
  if (type && !/^application\/(?:[\w.+-]*\+)?json\b/i.test(type)) {
    throw new UnsupportedMediaType('invalid_content_type', 'Content-Type header must be application/json');
  }
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new BadRequest('invalid_json', `The body is not valid JSON: ${(err as Error).message}`);
  }
  if (depthOf(parsed) > MAX_JSON_DEPTH) throw new BadRequest('invalid_json', `The body nests deeper than ${MAX_JSON_DEPTH} levels`);
  return assertStorable(parsed, 'invalid_body');
}

export async function body<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  return check(schema, await readJson(c), 'invalid_body');
}

type QueryValue = string | string[] | QueryObject;
interface QueryObject {
  [key: string]: QueryValue;
}

// A key segment that names an object's prototype would, in any code that walks keys into nested
// objects, add a property every object in the process inherits.
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
// Repeated keys may gather as many values as the query holds parameters: a schema's own max then names the field.
const QUERY_LIMITS = { depth: 5, parameterLimit: 1000, arrayLimit: 1000 };

function keySegments(rawKey: string): string[] {
  const m = /^([^[\]]*)((?:\[[^[\]]*\])*)$/.exec(rawKey);
  return m ? [m[1]!, ...[...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!)] : [rawKey];
}

/**
 * Parses a query string with qs (`a[b]=1` → {a:{b:'1'}}, repeated keys and `a[]=` → arrays) into
 * objects without a prototype. A key naming `__proto__`, `constructor` or `prototype` is refused with
 * a 400 before parsing, so nothing downstream can be led to write to Object.prototype.
 */
export function parseQuery(url: string): QueryObject {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return Object.create(null) as QueryObject;
  const search = url.slice(queryAt + 1).replace(/#.*$/s, '');
  const problems: FieldProblem[] = [];
  for (const rawKey of new URLSearchParams(search).keys()) {
    const segments = keySegments(rawKey);
    if (segments.some((s) => PROTOTYPE_KEYS.has(s))) {
      problems.push({ code: 'invalid_key', message: 'must not name __proto__, constructor or prototype', path: segments });
    }
    if (problems.length >= 10) break;
  }
  if (problems.length > 0) throw new ValidationFailed('invalid_query_params', problems);
  try {
    return qs.parse(search, { ...QUERY_LIMITS, plainObjects: true, allowPrototypes: false, strictDepth: true, throwOnLimitExceeded: true }) as QueryObject;
  } catch (err) {
    if (err instanceof RangeError) throw new BadRequest('invalid_query_params', `The query string is too large: ${err.message}`);
    throw err;
  }
}

export function query<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return check(schema, assertStorable(parseQuery(c.req.url), 'invalid_query_params'), 'invalid_query_params');
}

export function params<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return check(schema, assertStorable(c.req.param(), 'invalid_uri_params'), 'invalid_uri_params');
}

/** Parsed header sets by schema, keyed by the values read: a client sends the same few on every call (the proxy's). */
const parsedHeaders = new WeakMap<z.ZodType, { names: string[]; lower: string[]; seen: Map<string, unknown> }>();
const PARSED_HEADERS_KEPT = 1000;
const ABSENT = '\u0001';

/**
 * An object schema reads the headers it names (case-insensitively, so it may name them `Connection-Id`);
 * any other, all of them. An object schema's output is parsed once per set of values and then shared,
 * frozen (the HTTP parser refuses control characters in header values, so the joined key is unambiguous).
 */
export function headers<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  if (!(schema instanceof z.ZodObject)) return check(schema, c.req.header(), 'invalid_headers');
  let memo = parsedHeaders.get(schema);
  if (!memo)
    parsedHeaders.set(schema, (memo = { names: Object.keys(schema.shape), lower: Object.keys(schema.shape).map((n) => n.toLowerCase()), seen: new Map() }));
  // The node request's own headers when there is one (lower-case names, repeats joined as Headers.get joins them): no web Headers lookups.
  const node = nodeRequest(c);
  const values = node
    ? memo.lower.map((name) => {
        const v = node.headers[name];
        return Array.isArray(v) ? v.join(', ') : v;
      })
    : memo.names.map((name) => c.req.header(name));
  const key = values.map((v) => v ?? ABSENT).join('\0');
  const hit = memo.seen.get(key);
  if (hit !== undefined) return hit as z.output<S>;
  const parsed = Object.freeze(check(schema, Object.fromEntries(memo.names.map((name, i) => [name, values[i]])), 'invalid_headers')) as z.output<S>;
  if (memo.seen.size >= PARSED_HEADERS_KEPT) memo.seen.clear();
  memo.seen.set(key, parsed);
  return parsed;
}

/** zod helper for 'true'/'false'/'1'/'0' query flags. */
export const stringBool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');
