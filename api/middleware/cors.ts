/**
 * @module api/middleware/cors — CORS for every route, any origin. A preflight is Hono's `cors()`
 * answer. Any other request gets its headers as prepared headers (`c.header`), which every answer
 * built with `c.body`/`c.json`/`c.newResponse` starts from: Hono's `cors()` sets them on `c.res`
 * instead, which builds a spare `Response` before the handler and a copy of the handler's after it.
 * A handler's own `Response` does not carry prepared headers: they are set on it after the handler.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

export interface CorsOptions {
  maxAge: number;
  exposeHeaders: string[];
}

export function corsHeaders(opts: CorsOptions): MiddlewareHandler {
  const preflight = cors({ origin: '*', maxAge: opts.maxAge, exposeHeaders: opts.exposeHeaders });
  const expose = opts.exposeHeaders.join(',');
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') return preflight(c, next);
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Access-Control-Expose-Headers', expose);
    await next();
    if (c.res.headers.get('access-control-allow-origin') !== '*') {
      c.header('Access-Control-Allow-Origin', '*');
      c.header('Access-Control-Expose-Headers', expose);
    }
  };
}
