/**
 * @module api/route — one declaration per route: `defineRoute(spec, handler)` registers the route
 * on Hono, parses its request with the zod schemas it names, types the handler's input (z.output)
 * and its JSON answer, and is what api/openapi.ts turns into the OpenAPI document. The route table
 * (api/routes/index.ts) lists every declaration; nothing else registers routes.
 *
 * Why not @hono/zod-openapi: requests are parsed by api/validate.ts, whose failures carry
 * Nango's error codes (invalid_body, invalid_query_params, invalid_headers, invalid_uri_params)
 * with the path of every bad field, which read query strings qs-style (`tags[end_user_id]=x`) and
 * which refuse NUL characters and unpaired surrogates that PostgreSQL cannot store. zod-openapi
 * validates with its own hook and error shape and wants its own `z` extension; zod 4's
 * `z.toJSONSchema` already gives the JSON Schema, so a small declaration of our own keeps our
 * parsing and wire format and still derives types and document from one set of schemas.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { AppDeps, AppEnv } from './context.js';
import { authenticate, type Auth } from './middleware/authenticate.js';
import { FULL_ENVIRONMENT_ACCESS, type Scope } from '../features/environments/scopes.js';
import { check, headers, params, query, readJson } from './validate.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export const ALL_METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

export type { Auth };

/** Statuses answered with the JSON error envelope (api/errors.ts). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 424 | 426 | 500 | 502 | 503 | 504;

export interface RequestSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  headers?: z.ZodType;
  body?: z.ZodType;
}

/** A header of a response, for the document. */
export interface HeaderDoc {
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

/** An answer that is not a JSON body described by a zod schema: HTML, a redirect, a file, free-form. */
export interface RawResponse {
  description: string;
  /** Media type → JSON Schema (or {} for any content). Absent: no body. */
  content?: Record<string, { schema?: Record<string, unknown> }>;
  headers?: Record<string, HeaderDoc>;
}

/** A JSON answer: its zod schema, and optionally the headers that come with it. */
export interface JsonResponse<S extends z.ZodType = z.ZodType> {
  description?: string;
  schema: S;
  headers?: Record<string, HeaderDoc>;
}

export type ResponseSpec = z.ZodType | JsonResponse | RawResponse;
/** By status; `default`: any other status (the proxy's upstream answers). */
export type Responses = { [status: number]: ResponseSpec } & { default?: RawResponse };

export interface RouteSpec<Req extends RequestSchemas = RequestSchemas, Res extends Responses = Responses> {
  /** `all`: any method (the proxy and the catch-alls); documented as GET, POST, PUT, PATCH and DELETE. */
  method: Method | 'all';
  /** The documented path, in Hono syntax (`/connections/:connectionId`). */
  path: string;
  /** The Hono paths that serve it when they differ from `path` (a trailing slash, a wildcard). */
  serves?: string[];
  /** Unique in the document. With `method: 'all'` the method is appended (proxyGet, proxyPost, …). */
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** How the caller proves who it is: the kind's middleware (api/middleware/authenticate.ts) runs before anything else of the route. */
  auth: Auth;
  /** Answers a refused credential itself instead of the JSON 401 (a page that reports to the opener). */
  refuse?: (err: unknown, c: Context<AppEnv>, deps: AppDeps) => Response;
  /**
   * With a secret key: the scope an API key needs here (Nango's), or any one of several. Without
   * one, only a full-access key (`environment:*`) passes. Default secret keys hold every scope.
   */
  scope?: Scope | readonly Scope[];
  request?: Req;
  /** Documented, but parsed by the handler itself (whose failures are not the JSON envelope, e.g. an HTML page). */
  handlerParses?: RequestSchemas;
  /** Reads the body instead of api/validate's readJson (e.g. with a tighter size limit). */
  readBody?: (c: Context<AppEnv>, deps: AppDeps) => Promise<unknown>;
  /** Success (and other non-envelope) answers by status. */
  responses: Res;
  /**
   * Statuses answered with the error envelope besides those every route of its kind can give
   * (400 when it has request schemas, 401 when it needs auth, 413/415 with a body, 426, 500).
   */
  errors: readonly ErrorStatus[];
  /** Left out of the document (the dashboard's HTML pages). */
  hidden?: boolean;
  /** A sub-app mounted here: every route under this prefix is its own (the dashboard). */
  mount?: string;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;
type JsonOf<T> = T extends z.ZodType ? z.output<T> : T extends JsonResponse<infer S> ? z.output<S> : never;
/** What a handler may return as a plain object: the body of the route's 200 (else 201) answer. */
type PlainBody<Res> = 200 extends keyof Res ? JsonOf<Res[200]> : 201 extends keyof Res ? JsonOf<Res[201]> : never;
type JsonStatus<Res> = { [S in keyof Res]: [JsonOf<Res[S]>] extends [never] ? never : S }[keyof Res] & number;

export interface RouteInput<Req extends RequestSchemas, Res extends Responses> {
  params: Out<Req['params']>;
  query: Out<Req['query']>;
  headers: Out<Req['headers']>;
  body: Out<Req['body']>;
  deps: AppDeps;
  /** A JSON answer with one of the declared statuses, its body typed by that status's schema. */
  reply: <S extends JsonStatus<Res>>(status: S, body: JsonOf<Res[S]>, headers?: Record<string, string>) => Response;
}

export type Handler<Req extends RequestSchemas, Res extends Responses> = (
  input: RouteInput<Req, Res>,
  c: Context<AppEnv>,
) => Promise<PlainBody<Res> | Response>;

export interface RouteDef {
  spec: RouteSpec;
  /** Adds the route to `app`; `deps` are handed to the handler. */
  register(app: Hono<AppEnv>, deps: AppDeps): void;
}

export function isZod(x: unknown): x is z.ZodType {
  return x instanceof z.ZodType;
}

/** The scopes of which a secret key must hold one to call the route. */
export function requiredScopes(spec: Pick<RouteSpec, 'scope'>): readonly string[] {
  if (spec.scope === undefined) return [FULL_ENVIRONMENT_ACCESS];
  return typeof spec.scope === 'string' ? [spec.scope] : spec.scope;
}

/** The Hono paths a declaration serves. */
export function servedPaths(spec: RouteSpec): string[] {
  return spec.serves ?? [spec.path];
}

function defaultStatus(responses: Responses): ContentfulStatusCode {
  return (200 in responses ? 200 : 201) as ContentfulStatusCode;
}

/**
 * Declares a route: `defineRoute(spec).handle(handler)`. (Two steps so that the spec's schemas are
 * fixed before the handler is checked against them: TypeScript then keeps the literal types of the
 * handler's answer, which one generic call would widen.)
 */
export function defineRoute<const Req extends RequestSchemas = RequestSchemas, const Res extends Responses = Responses>(
  spec: RouteSpec<Req, Res>,
): { handle(handler: Handler<Req, Res>): RouteDef } {
  return { handle: (handler) => declare(spec, handler) };
}

function declare<Req extends RequestSchemas, Res extends Responses>(spec: RouteSpec<Req, Res>, handler: Handler<Req, Res>): RouteDef {
  const request: RequestSchemas = spec.request ?? {};
  const success = defaultStatus(spec.responses);
  const scopes = requiredScopes(spec);
  const setScopes: MiddlewareHandler<AppEnv> = (c, next) => {
    c.set('requiredScopes', scopes);
    return next();
  };
  return {
    spec: spec as unknown as RouteSpec,
    register(app, deps) {
      const run: MiddlewareHandler<AppEnv> = async (c) => {
        // Parsed in this order, so that the first problem reported is the same as before.
        const input = {
          params: request.params ? params(c, request.params) : undefined,
          headers: request.headers ? headers(c, request.headers) : undefined,
          query: request.query ? query(c, request.query) : undefined,
          body: request.body ? check(request.body, spec.readBody ? await spec.readBody(c, deps) : await readJson(c), 'invalid_body') : undefined,
          deps,
          reply: jsonReply(c),
        } as unknown as RouteInput<Req, Res>;
        const out = await handler(input, c);
        return out instanceof Response ? out : c.json(out as object, success);
      };
      const auth = authenticate(spec.auth, deps);
      // The scopes are set in the same step as the auth that reads them: one middleware fewer per request.
      const guard = auth && (spec.refuse ? refusing(auth, spec.refuse, deps) : auth);
      const chain: MiddlewareHandler<AppEnv>[] = guard
        ? [
            (c, next) => {
              c.set('requiredScopes', scopes);
              return guard(c, next);
            },
            run,
          ]
        : [setScopes, run];
      // Hono's overloads type each arity of handlers; the chain is built at runtime.
      const loose = app as unknown as { on(method: string, path: string, ...handlers: MiddlewareHandler<AppEnv>[]): void };
      for (const path of servedPaths(spec as unknown as RouteSpec)) loose.on(spec.method === 'all' ? 'ALL' : spec.method.toUpperCase(), path, ...chain);
    },
  };
}

/** `reply` of a handler's input; made here, not bound to a name in the handler's step: tsx names each such closure per request (`__name`). */
function jsonReply(c: Context<AppEnv>) {
  return (status: number, body: unknown, extra?: Record<string, string>) => c.json(body as object, status as ContentfulStatusCode, extra);
}

/** `auth`, with its refusals (not the route's own errors after it) answered by `refuse`. */
function refusing(auth: MiddlewareHandler<AppEnv>, refuse: NonNullable<RouteSpec['refuse']>, deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let passed = false;
    try {
      await auth(c, async () => {
        passed = true;
        await next();
      });
    } catch (err) {
      if (passed) throw err;
      return refuse(err, c, deps);
    }
  };
}

/** A redirect answer, for the document. */
export function redirect(description: string): RawResponse {
  return { description, headers: { Location: { description: 'Where to go', required: true, schema: { type: 'string' } } } };
}

/** An HTML page, for the document. */
export function html(description: string): RawResponse {
  return { description, content: { 'text/html': { schema: { type: 'string' } } } };
}

/** Any content at all (the proxy's upstream answers), for the document. */
export function anyContent(description: string): RawResponse {
  return { description, content: { '*/*': { schema: {} } } };
}
