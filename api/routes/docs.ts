/**
 * @module api/routes/docs — `GET /openapi.json` (the document, generated from the route table) and
 * `GET /docs` (the API reference page, Scalar, reading /openapi.json).
 */
import { Scalar } from '@scalar/hono-api-reference';
import { z } from 'zod';
import type { AppEnv } from '../context.js';
import { API_VERSION } from '../version.js';
import { openapiDocument } from '../openapi.js';
import { defineRoute, html, type RouteDef } from '../route.js';
import { scriptComponentSchemas } from './scripts.js';

const apiReference = Scalar<AppEnv>({ url: '/openapi.json', pageTitle: 'Switchyard API reference' });

/** The two documentation routes; `table` gives the route table they describe (read per request). */
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
  ];
}
