/**
 * @module api/openapi — the OpenAPI document, generated from the same zod schemas the routes
 * validate with. Each route file registers its routes here.
 */
import { z } from 'zod';

export type Auth = 'secret_key' | 'none' | 'connect_session' | 'secret_key_or_connect_session';

export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'head' | 'all';
  path: string;
  summary: string;
  tag: string;
  auth?: Auth;
  query?: z.ZodType;
  body?: z.ZodType;
  headers?: z.ZodType;
  response?: z.ZodType;
  status?: number;
}

const routes: RouteDoc[] = [];

export function describeRoute(doc: RouteDoc): void {
  routes.push(doc);
}

function jsonSchema(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' });
}

function parametersOf(schema: z.ZodType | undefined, where: 'query' | 'header'): unknown[] {
  if (!schema) return [];
  const js = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({ name, in: where, required: js.required?.includes(name) ?? false, schema: s }));
}

/** `schemas`: extra component schemas (the models of deployed and pre-built scripts). */
export function openapiDocument(version: string, serverUrl: string, schemas: Record<string, unknown> = {}): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const oaPath = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const pathParams = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const methods = r.method === 'all' ? ['get', 'post', 'put', 'patch', 'delete'] : [r.method];
    for (const method of methods) {
      (paths[oaPath] ??= {})[method] = {
        summary: r.summary,
        tags: [r.tag],
        security: r.auth === 'none' ? [] : [{ bearer: [] }],
        parameters: [...pathParams, ...parametersOf(r.query, 'query'), ...parametersOf(r.headers, 'header')],
        ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(r.body) } } } } : {}),
        responses: {
          [String(r.status ?? 200)]: {
            description: 'Success',
            ...(r.response ? { content: { 'application/json': { schema: jsonSchema(r.response) } } } : {}),
          },
          default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Switchyard API', version },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An environment secret key (UUID v4)' } },
      schemas: {
        ...schemas,
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code'],
              properties: {
                code: { type: 'string' },
                message: { type: 'string' },
                errors: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { code: { type: 'string' }, message: { type: 'string' }, path: { type: 'array', items: { type: ['string', 'number'] } } },
                  },
                },
                payload: {},
              },
            },
          },
        },
      },
    },
    paths,
  };
}
