/**
 * Measures the table of issue 31: Nango's published OpenAPI document (`docs/spec.yaml` of
 * NangoHQ/nango, a local copy: none is committed) against ours, to run by hand:
 *
 *   node --import tsx scripts/compare-nango-api.ts path/to/spec.yaml [--openapi http://localhost:3003/openapi.json | ours.json] [--list]
 *
 * Without --openapi it compares the document our route table generates (api/openapi.ts). Each Nango
 * operation (method and path, path parameters by position) is `same` when we serve it and it
 * matches; `different` when we serve it but its request or answer differs (a query parameter or
 * top-level body property of Nango's we do not declare, a success status of Nango's we do not
 * answer, a top-level property of Nango's success body ours lacks); `missing` when we do not serve
 * it. The `/connection` and `/connection/*` operations are counted apart: our product answers them
 * 410 (api/routes/legacy-connection.ts). `--list` prints every operation with its verdict.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface Verdict {
  key: string;
  verdict: 'same' | 'different' | 'missing' | 'removed';
  differences: string[];
}

/** `/connections/{connectionId}` → `/connections/{}`: parameters match by position, not by name. */
function normalPath(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}').replace(/\/+$/, '') || '/';
}

function deref(doc: Json, node: unknown, depth = 0): Json {
  if (!node || typeof node !== 'object' || depth > 20) return {};
  const ref = (node as Json).$ref;
  if (typeof ref !== 'string') return node as Json;
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((at, part) => (at && typeof at === 'object' ? (at as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
  return deref(doc, target, depth + 1);
}

/** The top-level property names of a schema (through $ref, allOf, and the object branches of anyOf/oneOf). */
function propertiesOf(doc: Json, schema: unknown, depth = 0): Set<string> {
  const s = deref(doc, schema);
  const out = new Set<string>(Object.keys((s.properties as Json | undefined) ?? {}));
  if (depth > 10) return out;
  for (const part of [...((s.allOf as unknown[]) ?? []), ...((s.anyOf as unknown[]) ?? []), ...((s.oneOf as unknown[]) ?? [])]) {
    for (const p of propertiesOf(doc, part, depth + 1)) out.add(p);
  }
  return out;
}

/** Whether a schema accepts any property (no declared properties, or additionalProperties/catchall). */
function isOpen(doc: Json, schema: unknown): boolean {
  const s = deref(doc, schema);
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return true;
  return propertiesOf(doc, s).size === 0;
}

function jsonSchemaOf(doc: Json, holder: unknown): unknown {
  const content = deref(doc, holder).content as Json | undefined;
  if (!content) return undefined;
  const json = Object.entries(content).find(([type]) => type.includes('json'));
  return json ? (json[1] as Json).schema : undefined;
}

function queryParams(doc: Json, pathItem: Json, op: Json): Set<string> {
  const params = [...((pathItem.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])].map((p) => deref(doc, p));
  return new Set(params.filter((p) => p.in === 'query').map((p) => String(p.name)));
}

function operations(doc: Json): Map<string, { pathItem: Json; op: Json }> {
  const out = new Map<string, { pathItem: Json; op: Json }>();
  for (const [path, item] of Object.entries((doc.paths as Json) ?? {})) {
    for (const method of METHODS) {
      const op = (item as Json)[method];
      if (op) out.set(`${method.toUpperCase()} ${normalPath(path)}`, { pathItem: item as Json, op: op as Json });
    }
  }
  return out;
}

/** Where ours differs from Nango's operation; empty when it serves it as Nango documents it. */
function differences(nango: Json, ours: Json, n: { pathItem: Json; op: Json }, o: { pathItem: Json; op: Json }): string[] {
  const out: string[] = [];
  const ourQuery = queryParams(ours, o.pathItem, o.op);
  // Nango's `$ANY_QUERY_PARAMS` (the proxy's) stands for any parameter, not one named so.
  for (const q of queryParams(nango, n.pathItem, n.op)) if (!q.startsWith('$') && !ourQuery.has(q)) out.push(`query ${q}`);
  const nBody = jsonSchemaOf(nango, n.op.requestBody);
  const oBody = jsonSchemaOf(ours, o.op.requestBody);
  if (nBody !== undefined && oBody === undefined) out.push('request body');
  if (nBody !== undefined && oBody !== undefined && !isOpen(ours, oBody)) {
    const ourProps = propertiesOf(ours, oBody);
    for (const p of propertiesOf(nango, nBody)) if (!ourProps.has(p)) out.push(`body ${p}`);
  }
  const nResponses = (n.op.responses as Json) ?? {};
  const oResponses = (o.op.responses as Json) ?? {};
  for (const status of Object.keys(nResponses).filter((s) => /^2/.test(s))) {
    if (!(status in oResponses)) {
      out.push(
        `status ${status} (ours: ${
          Object.keys(oResponses)
            .filter((s) => /^2/.test(s))
            .join(', ') || 'none'
        })`,
      );
      continue;
    }
    const nSchema = jsonSchemaOf(nango, nResponses[status]);
    const oSchema = jsonSchemaOf(ours, oResponses[status]);
    if (nSchema === undefined || oSchema === undefined || isOpen(ours, oSchema)) continue;
    const ourProps = propertiesOf(ours, oSchema);
    for (const p of propertiesOf(nango, nSchema)) if (!ourProps.has(p)) out.push(`${status} body ${p}`);
  }
  return out;
}

const isLegacyConnection = (key: string) => / \/connection(\/|$)/.test(key);

export function compare(nango: Json, ours: Json): Verdict[] {
  const ourOps = operations(ours);
  return [...operations(nango)].map(([key, n]) => {
    if (isLegacyConnection(key)) return { key, verdict: 'removed' as const, differences: [] };
    const o = ourOps.get(key);
    if (!o) return { key, verdict: 'missing' as const, differences: [] };
    const diff = differences(nango, ours, n, o);
    return { key, verdict: diff.length ? ('different' as const) : ('same' as const), differences: diff };
  });
}

async function ourDocument(source: string | undefined): Promise<Json> {
  if (source && /^https?:\/\//.test(source)) return (await (await fetch(source)).json()) as Json;
  if (source) return JSON.parse(readFileSync(source, 'utf8')) as Json;
  const { routeTable } = await import('../api/routes/index.js');
  const { openapiDocument } = await import('../api/openapi.js');
  return openapiDocument(routeTable, 'local', 'http://localhost') as Json;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const specPath = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--openapi');
  if (!specPath) throw new Error('usage: compare-nango-api.ts path/to/spec.yaml [--openapi URL|file] [--list]');
  const at = args.indexOf('--openapi');
  const verdicts = compare(parse(readFileSync(specPath, 'utf8')) as Json, await ourDocument(at >= 0 ? args[at + 1] : undefined));
  const count = (v: Verdict['verdict']) => verdicts.filter((x) => x.verdict === v).length;
  const compared = verdicts.length - count('removed');
  console.log(`Nango operations: ${verdicts.length} (${count('removed')} /connection* answered 410 by our product rule; ${compared} compared)`);
  console.log(`same: ${count('same')}, different: ${count('different')}, missing: ${count('missing')}`);
  for (const v of verdicts) {
    if (v.verdict === 'different') console.log(`  different ${v.key}: ${v.differences.join('; ')}`);
    if (v.verdict === 'missing') console.log(`  missing   ${v.key}`);
    if (v.verdict === 'same' && args.includes('--list')) console.log(`  same      ${v.key}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
