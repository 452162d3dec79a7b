/**
 * The contract cannot drift from the routes: every route Hono serves comes from a declaration of
 * the route table, and every declaration is in the OpenAPI document with a unique operationId, its
 * success answer and its error envelopes. (No platform: the routes are only registered, never called.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Hono } from 'hono';
import type { AppDeps, AppEnv } from '../api/context.js';
import { openapiDocument } from '../api/openapi.js';
import { loadConfig } from '../lib/config.js';
import { ALL_METHODS, defineRoute, servedPaths } from '../api/route.js';
import { assertDeclared, registerRoutes, routeTable } from '../api/routes/index.js';

type Operation = { operationId?: string; responses: Record<string, { $ref?: string; content?: Record<string, unknown> }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, unknown> } };

// Registering a route only captures its dependencies (the dashboard reads its configuration); no handler runs in this file.
const unusedDeps = { config: loadConfig({}) } as AppDeps;
const doc = openapiDocument(routeTable, '0.0.0', 'http://localhost') as Doc;
const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
const oaPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

describe('the OpenAPI document covers the route table', () => {
  test('every route Hono serves is declared in the table', () => {
    const app = registerRoutes(new Hono<AppEnv>(), unusedDeps);
    const declared = new Set(
      routeTable.flatMap(({ spec }) => servedPaths(spec).map((p) => `${spec.method === 'all' ? 'ALL' : spec.method.toUpperCase()} ${p}`)),
    );
    const served = app.routes.filter((r) => !r.path.startsWith('/dashboard'));
    assert.ok(served.length > 50);
    for (const r of served) assert.ok(declared.has(`${r.method} ${r.path}`), `${r.method} ${r.path} is not declared`);
  });

  test('a route registered without a declaration is refused', () => {
    const app = registerRoutes(new Hono<AppEnv>(), unusedDeps);
    app.get('/undeclared', (c) => c.text('hi'));
    assert.throws(() => assertDeclared(app, routeTable), /Routes registered without a declaration in the route table: GET \/undeclared/);
    // Declared, it is served and documented.
    const declaredRoute = defineRoute({
      method: 'get',
      path: '/undeclared',
      operationId: 'undeclared',
      summary: 'x',
      tag: 'x',
      auth: 'none',
      responses: {},
      errors: [],
    }).handle(async (_i, c) => c.text('hi'));
    assert.doesNotThrow(() => assertDeclared(app, [...routeTable, declaredRoute]));
    assert.ok((openapiDocument([...routeTable, declaredRoute], '0', 'http://x') as Doc).paths['/undeclared']?.get);
  });

  test('every declaration is in the document, with an operationId unique in it', () => {
    for (const { spec } of routeTable) {
      if (spec.hidden) continue;
      for (const method of spec.method === 'all' ? ALL_METHODS : [spec.method]) {
        const op = doc.paths[oaPath(spec.path)]?.[method];
        assert.ok(op, `${method.toUpperCase()} ${spec.path} is missing from the document`);
        assert.ok(op.operationId, `${method.toUpperCase()} ${spec.path} has no operationId`);
      }
    }
    const ids = operations.map((o) => o.op.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are not unique');
    assert.ok(operations.length >= 60, `only ${operations.length} operations`);
  });

  test('every operation documents its success answer and its error envelopes', () => {
    for (const { path, method, op } of operations) {
      const statuses = Object.keys(op.responses);
      assert.ok(
        // `default` alone is not a success answer: a client generator or schemathesis reads it as the error case.
        statuses.some((s) => /^[23]\d\d$/.test(s)),
        `${method} ${path} documents no success answer`,
      );
      const errors = statuses.filter((s) => /^[45]\d\d$/.test(s));
      assert.ok(
        errors.some((s) => s.startsWith('4')),
        `${method} ${path} documents no 4xx`,
      );
      for (const s of errors) {
        const res = op.responses[s]!;
        if (res.$ref) assert.ok(doc.components.responses[res.$ref.split('/').pop()!], `${method} ${path} ${s}: dangling ${res.$ref}`);
        else assert.ok(res.content, `${method} ${path} ${s} has no content`);
      }
      for (const s of statuses.filter((x) => x === '200' || x === '201')) {
        assert.ok(op.responses[s]!.content, `${method} ${path} ${s} has no body schema`);
      }
    }
  });

  test('the routes named in the issue are documented', () => {
    assert.ok(doc.paths['/connect/session']?.delete?.operationId);
    assert.ok(doc.paths['/providers/{provider}']?.get?.operationId);
    assert.ok(doc.paths['/docs']?.get);
    // Issue 31: Nango's functions API and the routes of Nango's CLI.
    assert.ok(doc.paths['/integrations/{uniqueKey}/functions']?.get?.operationId);
    assert.ok(doc.paths['/integrations/{uniqueKey}/functions/{name}']?.get?.operationId);
    assert.ok(doc.paths['/integrations/{uniqueKey}/functions/{name}']?.delete?.operationId);
    assert.ok(doc.paths['/integrations/{uniqueKey}/functions/{name}/code']?.get?.operationId);
    assert.ok(doc.paths['/sync/deploy/confirmation']?.post?.operationId);
    assert.ok(doc.paths['/sync/deploy']?.post?.operationId);
  });

  test('the proxy operations document their success as any content type', () => {
    const proxyOps = operations.filter((o) => o.path === '/proxy/{path}');
    assert.equal(proxyOps.length, 5);
    for (const { method, op } of proxyOps) assert.deepEqual(op.responses['200']?.content, { '*/*': { schema: {} } }, `${method} /proxy/{path}`);
  });
});
