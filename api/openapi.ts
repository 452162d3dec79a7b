/**
 * @module api/openapi — the OpenAPI document, generated from the route declarations of the route
 * table (api/route.ts, api/routes/index.ts): the same zod schemas the routes parse with.
 */
import { z } from 'zod';
import { errorEnvelope } from './errors.js';
import {
  ALL_METHODS,
  isZod,
  type ErrorStatus,
  type HeaderDoc,
  type RawResponse,
  type ResponseSpec,
  type RouteDef,
  type RouteSpec,
  requiredScopes,
} from './route.js';

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'Bad request: a request that fails validation (invalid_body, invalid_query_params, invalid_headers, invalid_uri_params) or, as in Nango, names an unknown resource',
  401: 'Unauthorized: missing or unknown secret key, connect-session token or webhook signature',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone: a removed endpoint, naming its replacement',
  413: 'The request body is too large',
  415: 'The body is not JSON (Content-Type must be application/json)',
  424: 'The provider refused a request the action script made (its status, headers and body in payload)',
  426: 'The client (User-Agent or Switchyard-Client-Version) is older than the minimum supported version',
  500: 'An unexpected error, with an id to quote',
  502: 'The provider could not be reached or answered with an error',
  503: 'A dependency (database, Temporal) is unavailable',
  504: 'The provider did not answer in time',
};

const SECURITY: Record<RouteSpec['auth'], Record<string, string[]>[]> = {
  secret_key: [{ bearer: [] }],
  secret_key_or_connect_session: [{ bearer: [] }, { connectSession: [] }],
  connect_session: [{ connectSession: [] }],
  secret_key_or_agent_session: [{ bearer: [] }, { agentSession: [] }],
  agent_session: [{ agentSession: [] }],
  // Proven by the integration's secret (a signature header or the URL's token), described on the operation.
  webhook_secret: [],
  none: [],
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any', io }) as Record<string, unknown>;
  return rest;
}

function parametersOf(schema: z.ZodType | undefined, where: 'query' | 'header' | 'path'): Record<string, unknown>[] {
  if (!schema) return [];
  const js = jsonSchema(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required?.includes(name) ?? false),
    schema: s,
    // `tags[end_user_id]=x`: api/validate reads nested objects from bracketed keys.
    ...(where === 'query' && s.type === 'object' ? { style: 'deepObject', explode: true } : {}),
  }));
}

/** The error statuses of a route: its own and those every route of its kind can give. */
export function errorStatuses(spec: RouteSpec): ErrorStatus[] {
  const r = { ...spec.handlerParses, ...spec.request };
  const out = new Set<ErrorStatus>(spec.errors);
  if (r.params || r.query || r.headers || r.body) out.add(400);
  if (spec.auth !== 'none') out.add(401);
  // An API key without the route's scope.
  if (spec.auth.startsWith('secret_key')) out.add(403);
  if (r.body) {
    out.add(413);
    out.add(415);
  }
  out.add(426);
  out.add(500);
  // A route that needs a database connection and finds none free within DATABASE_POOL_WAIT_MS: database_busy.
  out.add(503);
  return [...out].sort((a, b) => a - b);
}

function headersDoc(headers: Record<string, HeaderDoc> | undefined): Record<string, unknown> {
  return headers ? { headers } : {};
}

function responseDoc(spec: ResponseSpec): Record<string, unknown> {
  if (isZod(spec)) return { description: 'Success', content: { 'application/json': { schema: jsonSchema(spec, 'output') } } };
  if ('schema' in spec && isZod(spec.schema)) {
    return {
      description: spec.description ?? 'Success',
      content: { 'application/json': { schema: jsonSchema(spec.schema, 'output') } },
      ...headersDoc(spec.headers),
    };
  }
  const raw = spec as RawResponse;
  return { description: raw.description, ...(raw.content ? { content: raw.content } : {}), ...headersDoc(raw.headers) };
}

function bodyRequired(schema: z.ZodType): boolean {
  return !schema.safeParse(undefined).success;
}

/** The OpenAPI paths of one declaration. */
function operationsOf(spec: RouteSpec): [string, string, Record<string, unknown>][] {
  const oaPath = spec.path.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, '{$1}');
  const r = { ...spec.handlerParses, ...spec.request };
  const declared = new Set(Object.keys((r.params && (jsonSchema(r.params, 'input').properties as object)) ?? {}));
  const pathParams = [
    ...parametersOf(r.params, 'path'),
    ...[...spec.path.matchAll(/:([A-Za-z_]+)/g)]
      .map((m) => m[1]!)
      .filter((name) => !declared.has(name))
      .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
  ];
  const operation = (method: string, operationId: string) => ({
    operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    // OpenAPI 3.1 lets any scheme list what it needs: the scopes of which an API key must hold one.
    security: SECURITY[spec.auth].map((r) => ('bearer' in r ? { ...r, bearer: [...requiredScopes(spec)] } : r)),
    parameters: [...pathParams, ...parametersOf(r.query, 'query'), ...parametersOf(r.headers, 'header')],
    ...(r.body && method !== 'get'
      ? { requestBody: { required: bodyRequired(r.body), content: { 'application/json': { schema: jsonSchema(r.body, 'input') } } } }
      : {}),
    responses: {
      ...Object.fromEntries(Object.entries(spec.responses).map(([status, res]) => [status, responseDoc(res)])),
      ...Object.fromEntries(
        errorStatuses(spec)
          .filter((s) => !(s in spec.responses))
          .map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]),
      ),
      '431': { $ref: '#/components/responses/E431' },
    },
  });
  if (spec.method !== 'all') return [[oaPath, spec.method, operation(spec.method, spec.operationId)]];
  return ALL_METHODS.map((m) => [oaPath, m, operation(m, `${spec.operationId}${m[0]!.toUpperCase()}${m.slice(1)}`)]);
}

/** `schemas`: extra component schemas (the models of deployed and pre-built scripts). */
export function openapiDocument(routes: readonly RouteDef[], version: string, serverUrl: string, schemas: Record<string, unknown> = {}): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of routes) {
    if (spec.hidden) continue;
    for (const [path, method, op] of operationsOf(spec)) (paths[path] ??= {})[method] = op;
  }
  const errorResponses = Object.fromEntries(
    (Object.entries(ERROR_DESCRIPTIONS) as [string, string][]).map(([status, description]) => [
      `E${status}`,
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: { title: 'Switchyard API', version },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An environment secret key (UUID v4)' },
        connectSession: {
          type: 'http',
          scheme: 'bearer',
          description: 'A connect-session token (nango_connect_session_…), as a bearer token or in ?connect_session_token=',
        },
        agentSession: {
          type: 'http',
          scheme: 'bearer',
          description: 'An agent-session token (switchyard_agent_session_…), accepted only on /mcp and /session/{sessionId}/mcp',
        },
      },
      responses: {
        ...errorResponses,
        // Node's HTTP server refuses a request line and headers over its limit before the app sees them.
        E431: { description: 'The URL and headers are larger than the server accepts (no body)' },
      },
      schemas: { ...schemas, Error: jsonSchema(errorEnvelope, 'output') },
    },
    paths,
  };
}
