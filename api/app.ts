/**
 * @module api/app — the Hono application: middleware, routes and the error mapping.
 */
import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { NotFound } from '../lib/errors.js';
import { redactPath } from '../lib/http/redact.js';
import type { AppDeps, AppEnv } from './context.js';
import { errorResponse } from './errors.js';
import { clientVersion } from './middleware/client-version.js';
import { corsHeaders } from './middleware/cors.js';
import { requestId } from './middleware/request-id.js';
import { bodyLimit } from './middleware/body-limit.js';
import { requestLogContext } from '../lib/log-context.js';
import { registerRoutes } from './routes/index.js';
import { PrefixMatchRouter } from './router.js';
import { connectUiAssets } from './routes/connect-ui.js';

export { API_VERSION } from './version.js';

const READ_ONLY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The routes a deploy uploads its bundles to: SWITCHYARD_DEPLOY_BODY_LIMIT_BYTES rather than the general limit. */
const DEPLOY_PATHS = new Set(['/scripts/deploy', '/scripts/deploy/preview']);

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ router: new PrefixMatchRouter('/proxy') });

  app.use('*', requestId);
  // Every log line of the request carries its reqId; with telemetry, the request is a SERVER span.
  app.use('*', requestLogContext);
  if (deps.telemetry) app.use('*', deps.telemetry.apiMiddleware);
  app.use(
    '*',
    corsHeaders({
      maxAge: 600,
      // Without a fixed list the preflight's requested headers are allowed, so browsers can send
      // the prefixed proxy headers (Nango-Proxy-*, Switchyard-Proxy-*).
      exposeHeaders: ['Content-Type', 'Content-Length', 'Location', 'X-Request-Id'],
    }),
  );
  const accessLog: MiddlewareHandler<AppEnv> = async (c, next) => {
    const started = performance.now();
    await next();
    deps.log.info(
      { reqId: c.get('requestId'), method: c.req.method, path: redactPath(c.req.path), status: c.res.status, ms: Math.round(performance.now() - started) },
      'http',
    );
  };
  // Below info the line is not written: nothing is timed or built for it, and no async step is added.
  app.use('*', (c, next) => (deps.log.isLevelEnabled('info') ? accessLog(c, next) : next()));
  // A write answered here is seen by every later request: the lookup caches have taken it in before
  // the answer goes out (the proxy writes none of our rows; its token refreshes wait by themselves).
  app.use('*', (c, next) => (READ_ONLY_METHODS.has(c.req.method) || c.req.path.startsWith('/proxy') ? next() : next().then(() => deps.lookups.settled())));
  app.use('*', clientVersion);
  const bodyLimits = { deploy: bodyLimit(deps.config.SWITCHYARD_DEPLOY_BODY_LIMIT_BYTES), other: bodyLimit(deps.config.SWITCHYARD_REQUEST_BODY_LIMIT_BYTES) };
  app.use('*', (c, next) => (DEPLOY_PATHS.has(c.req.path) ? bodyLimits.deploy : bodyLimits.other)(c, next));

  // The legacy /connection aliases answer through the whole app.
  const dispatch = (req: Request) => app.fetch(req);
  app.use('*', (c, next) => {
    c.set('dispatch', dispatch);
    return next();
  });

  // Every route comes from the route table (api/routes/index.ts), which the document describes.
  connectUiAssets(); // fails the start when the Connect UI is missing
  app.route('/', registerRoutes(new Hono<AppEnv>(), deps));

  app.notFound(() => {
    throw new NotFound('not_found', 'No such route');
  });
  app.onError((err, c) => {
    if (err instanceof HTTPException && !(err.cause instanceof Error)) {
      return c.json({ error: { code: err.status === 413 ? 'payload_too_large' : 'bad_request', message: err.message } }, err.status);
    }
    const { status, body, unexpected } = errorResponse(err);
    if (unexpected) deps.log.error({ reqId: c.get('requestId'), err, errorId: body.error.payload }, 'unexpected error');
    return c.json(body, status);
  });
  return app;
}

/**
 * `app.fetch` for @hono/node-server. A handler may answer on the node response itself (the proxy,
 * api/routes/proxy.ts); once its headers are sent, Hono's answer (which then only carried the status
 * for the middleware) is replaced by the node server's "already sent" marker, which it leaves alone.
 */
export function serveFetch(app: Hono<AppEnv>): (req: Request, env: HttpBindings | Http2Bindings) => Promise<Response> {
  return async (req, env) => {
    const res = await app.fetch(req, env);
    return env.outgoing.headersSent ? RESPONSE_ALREADY_SENT : res;
  };
}
