import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Honours a caller's X-Request-Id when it is safe to echo, else makes one. It is a prepared header
 * (api/middleware/cors.ts says why), set again on a handler's own `Response`, which lacks it.
 */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header('x-request-id');
  const id = given && SAFE_ID.test(given) ? given : randomUUID();
  c.set('requestId', id);
  c.header('X-Request-Id', id);
  await next();
  if (c.res.headers.get('x-request-id') !== id) c.header('X-Request-Id', id);
};
