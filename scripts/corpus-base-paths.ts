/**
 * Issue 30 "Done when", to run by hand against a local copy of Nango's public function library
 * (NangoHQ/integration-templates, Elastic-licensed: read here as input, nothing of it committed):
 * for each integration folder, is there a catalogue entry of that name whose `proxy.base_url` takes
 * every endpoint its functions pass to the proxy without a doubled prefix?
 *
 *   node --import tsx scripts/corpus-base-paths.ts --corpus /tmp/integration-templates \
 *     [--names names.txt] [--providers nango-providers.yaml] [--verbose]
 *
 * Endpoints are read from the functions' syntax tree: every string (or template) given as `endpoint`
 * in an object literal without `baseUrlOverride`, or a `const` of that name in the same file. A
 * doubled prefix is a base path whose last segments are the endpoint's first (`/api/v2` + `/api/v2/x`),
 * or a base path ending in an API version given an endpoint that starts with another. With
 * `--providers`, each endpoint is also joined to the same-named entry of that file, and a different
 * path than ours is reported: the functions were written against those base URLs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { ALTERNATIVES } from '../features/providers/definition.js';
import { getCatalogProvider } from '../features/providers/providers.js';
import { nangoEntries } from './compare-providers.js';

/** An endpoint as written: `${…}` parts replaced by `{}`; `dynamic` when it starts with one. */
export interface CalledEndpoint {
  file: string;
  endpoint: string;
}

const text = (node: ts.Expression): string[] | undefined => {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isTemplateExpression(node)) return [node.head.text + node.templateSpans.map((s) => `{}${s.literal.text}`).join('')];
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return text(node.expression);
  if (ts.isConditionalExpression(node)) {
    const both = [text(node.whenTrue), text(node.whenFalse)];
    return both.every(Boolean) ? (both.flat() as string[]) : undefined;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = text(node.left);
    return left?.map((l) => `${l}{}`);
  }
  return undefined;
};

const propName = (p: ts.ObjectLiteralElementLike) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined);

/** The endpoints one source file passes to the proxy; `unresolved` counts those whose text is not in the file. */
export function endpointsIn(source: string, file: string): { endpoints: CalledEndpoint[]; unresolved: number } {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const consts = new Map<string, string[]>();
  const objects: ts.ObjectLiteralExpression[] = [];
  // `config.baseUrlOverride = …` after `const config = { endpoint, … }`: that call names its own base too.
  const overridden = new Set([...source.matchAll(/\b(\w+)\.baseUrlOverride\s*=[^=]/g)].map((m) => m[1]!));
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const t = text(node.initializer);
      if (t) consts.set(node.name.text, [...(consts.get(node.name.text) ?? []), ...t]);
      if (overridden.has(node.name.text) && ts.isObjectLiteralExpression(node.initializer)) {
        ts.forEachChild(node.initializer, visit);
        return;
      }
    }
    if (ts.isObjectLiteralExpression(node)) objects.push(node);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const endpoints: CalledEndpoint[] = [];
  let unresolved = 0;
  for (const o of objects) {
    const names = o.properties.map(propName);
    const i = names.indexOf('endpoint');
    // `baseUrlOverride`, also as `...(host && { baseUrlOverride })`: the call names its own base.
    if (i === -1 || names.includes('baseUrlOverride') || o.properties.some((q) => ts.isSpreadAssignment(q) && /\bbaseUrlOverride\b/.test(q.getText())))
      continue;
    const p = o.properties[i]!;
    let value: string[] | undefined;
    if (ts.isShorthandPropertyAssignment(p)) value = consts.get(p.name.text);
    else if (ts.isPropertyAssignment(p)) {
      if (ts.isObjectLiteralExpression(p.initializer)) continue; // a function's own endpoint declaration ({ method, path })
      value = ts.isIdentifier(p.initializer) ? consts.get(p.initializer.text) : text(p.initializer);
    } else continue;
    if (!value) unresolved++;
    else for (const endpoint of value) endpoints.push({ file, endpoint });
  }
  return { endpoints, unresolved };
}

const segments = (p: string) => p.split(/[?#]/)[0]!.split('/').filter(Boolean);
const VERSION = /^(v\d+(\.\d+)*[a-z]*|\d+\.\d+)$/i;

/** Why an endpoint on a base path doubles its prefix, or undefined when it does not. */
export function doubledPrefix(basePath: string, endpoint: string): string | undefined {
  const base = segments(basePath);
  const ep = segments(endpoint);
  for (let k = Math.min(base.length, ep.length); k >= 1; k--) {
    const tail = base.slice(-k);
    if (!tail.some((s) => s.includes('{}')) && tail.join('/') === ep.slice(0, k).join('/')) return `/${tail.join('/')} twice`;
  }
  const last = base.at(-1);
  if (last && VERSION.test(last) && ep[0] && VERSION.test(ep[0]) && last !== ep[0]) return `two API versions (${last}, ${ep[0]})`;
  return undefined;
}

/** The path of each alternative of a base URL template, placeholders as `{}`; undefined: the whole URL is a connection's value. */
export function basePaths(template: string): string[] | undefined {
  const paths: string[] = [];
  for (const alt of template.split(ALTERNATIVES)) {
    const filled = alt.replace(/\$\{[^}]*\}/g, '{}');
    const m = /^https?:\/\/[^/]*(\/.*)?$/.exec(filled);
    if (!m) return undefined;
    paths.push((m[1] ?? '').replace(/\/+$/, ''));
  }
  return paths;
}

export interface IntegrationResult {
  name: string;
  problem?: string;
  endpoints: number;
  unresolved: number;
  doubled: string[];
  /** Endpoints whose path on the other file's base URL differs from ours. */
  unlike: string[];
}

function filesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) return n === 'node_modules' || n === 'tests' || n.startsWith('.') ? [] : filesOf(p);
    return /\.ts$/.test(n) && !/\.(test|d)\.ts$/.test(n) ? [p] : [];
  });
}

export function checkIntegration(dir: string, theirs?: Map<string, Record<string, unknown>>): IntegrationResult {
  const name = path.basename(dir);
  const found = filesOf(dir).map((f) => endpointsIn(readFileSync(f, 'utf8'), path.relative(dir, f)));
  const all = found.flatMap((f) => f.endpoints);
  const result: IntegrationResult = { name, endpoints: all.length, unresolved: found.reduce((n, f) => n + f.unresolved, 0), doubled: [], unlike: [] };
  const provider = getCatalogProvider(name);
  if (!provider) return { ...result, problem: 'no catalogue entry' };
  const ours = basePaths(provider.baseUrl);
  const relative = [...new Set(all.map((e) => e.endpoint))].filter((e) => !e.startsWith('{}') && !/^https?:/.test(e));
  const other = theirs?.get(name)?.proxy as { base_url?: unknown } | undefined;
  const theirPaths = typeof other?.base_url === 'string' ? basePaths(other.base_url) : undefined;
  if (ours)
    for (const e of relative) {
      const why = ours.map((b) => doubledPrefix(b, e)).find(Boolean);
      // A function that doubles the prefix on the file's own base URL as well is wrong there too.
      const there = theirPaths?.some((b) => doubledPrefix(b, e)) ? " (on the file's base URL too)" : '';
      if (why) result.doubled.push(`${e}: ${why}${there}`);
    }
  if (ours && theirPaths && ours[0] !== theirPaths[0]) result.unlike.push(`base path ${theirPaths[0] || '/'} there, ${ours[0] || '/'} here`);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { corpus: { type: 'string' }, names: { type: 'string' }, providers: { type: 'string' }, verbose: { type: 'boolean' } },
  });
  if (!values.corpus) {
    console.error('usage: node --import tsx scripts/corpus-base-paths.ts --corpus <integration-templates> [--names file] [--providers file] [--verbose]');
    process.exit(2);
  }
  const root = path.join(values.corpus, 'integrations');
  const names = values.names
    ? readFileSync(values.names, 'utf8')
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean)
    : readdirSync(root).filter((n) => !n.startsWith('.') && n !== 'node_modules' && statSync(path.join(root, n)).isDirectory());
  const theirs = values.providers ? nangoEntries(readFileSync(values.providers, 'utf8')) : undefined;
  const results = names.map((n) => checkIntegration(path.join(root, n), theirs));
  const ownFault = (r: IntegrationResult) => r.doubled.some((d) => !d.endsWith('too)'));
  const bad = results.filter((r) => r.problem || ownFault(r));
  const theirFault = results.filter((r) => !r.problem && !ownFault(r) && r.doubled.length > 0);
  for (const r of results) {
    if (r.problem) console.log(`${r.name}: ${r.problem}`);
    for (const d of r.doubled) console.log(`${r.name}: ${d}`);
    for (const u of r.unlike) console.log(`${r.name}: ${u}`);
    if (values.verbose) console.log(`${r.name}: ${r.endpoints} endpoints, ${r.unresolved} not literal`);
  }
  const endpoints = results.reduce((n, r) => n + r.endpoints, 0);
  const unresolved = results.reduce((n, r) => n + r.unresolved, 0);
  console.log(
    `\n${results.length} integrations: ${results.length - bad.length} with a catalogue entry whose base path takes every endpoint; ` +
      `${results.filter((r) => r.problem).length} without an entry, ${results.filter((r) => !r.problem && ownFault(r)).length} with a doubled prefix` +
      `${theirs ? ` (and ${theirFault.length} whose functions double it on the file's base URL too)` : ''}` +
      `${theirs ? `, ${results.filter((r) => r.unlike.length > 0).length} with another base path than the file's` : ''}. ` +
      `${endpoints} endpoints read, ${unresolved} not literal (not checked).`,
  );
}
