/**
 * @module api/routes/docs — `GET /openapi.json` (the document, generated from the route table),
 * `GET /docs` (the API reference page, Scalar, reading /openapi.json) and `GET /docs/guide[/<page>]`
 * (the guide: docs/*.md rendered in the dashboard's look, api/guide.ts).
 */
import { Scalar } from '@scalar/hono-api-reference';
import { z } from 'zod';
import type { AppEnv } from '../context.js';
import { API_VERSION } from '../version.js';
import { openapiDocument } from '../openapi.js';
import { GuidePage } from '../dashboard/guide.js';
import { renderPage } from '../dashboard/layout.js';
import { guide, GUIDE_PATH } from '../guide.js';
import { defineRoute, html, type RouteDef } from '../route.js';
import { scriptComponentSchemas } from './scripts.js';

const apiReference = Scalar<AppEnv>({ url: '/openapi.json', pageTitle: 'Switchyard API reference' });

// The guide's pages are our own escaped HTML and one stylesheet: nothing else may load.
const GUIDE_HEADERS = { 'content-security-policy': "default-src 'none'; style-src 'self'", 'x-content-type-options': 'nosniff' };

/** The documentation routes; `table` gives the route table they describe (read per request). */
export function docsRoutes(table: () => readonly RouteDef[]): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI document',
      description:
        "With a secret key, the component schemas also hold the models of the scripts deployed to the key's environment (pre-built scripts' models are always there).",
      tag: 'docs',
      auth: 'none',
      responses: { 200: z.object({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }).catchall(z.unknown()) },
      errors: [],
    }).handle(async ({ deps }, c) => {
      const schemas = await scriptComponentSchemas(deps, c.req.header('authorization'));
      return openapiDocument(table(), API_VERSION, deps.config.publicUrl, schemas) as { openapi: string; paths: Record<string, unknown> };
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getApiReference',
      summary: 'The API reference page (reads /openapi.json)',
      tag: 'docs',
      auth: 'none',
      responses: { 200: html('The API reference') },
      errors: [],
    }).handle(async (_input, c) => (await apiReference(c, async () => undefined)) as Response),
    defineRoute({
      method: 'get',
      path: `${GUIDE_PATH}/:page`,
      serves: [GUIDE_PATH, `${GUIDE_PATH}/*`],
      operationId: 'getGuidePage',
      summary: 'A page of the guide (docs/*.md as HTML); /docs/guide is its contents',
      tag: 'docs',
      auth: 'none',
      responses: { 200: html('The page'), 404: html("No such page: a page saying so, with the guide's contents") },
      errors: [],
    }).handle(async (_input, c) => {
      const { pages, order } = guide();
      const slug = c.req.path.slice(GUIDE_PATH.length).replace(/^\/+|\/+$/g, '');
      const page = pages.get(slug);
      for (const [k, v] of Object.entries(GUIDE_HEADERS)) c.header(k, v);
      if (!page) {
        const body = `<h1>Page not found</h1><p>The guide has no page here. Its pages are listed on the left; start at <a href="${GUIDE_PATH}">the contents</a>.</p>`;
        return renderPage(c, 404, GuidePage({ title: 'Page not found', pages: order, current: null, body }));
      }
      return renderPage(c, 200, GuidePage({ title: page.title, pages: order, current: page.href, body: page.html }));
    }),
  ];
}
