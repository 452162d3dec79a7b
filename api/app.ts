/**
 * @module api/app — the Hono application: middleware, routes and the error mapping.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { NotFound } from '../lib/errors.js';
import { redactPath } from '../lib/http/redact.js';
import type { AppDeps, AppEnv } from './context.js';
import { errorResponse } from './errors.js';
import { clientVersion } from './middleware/client-version.js';
import { requestId } from './middleware/request-id.js';
import { bodyLimit } from './middleware/body-limit.js';
import { requestLogContext } from '../lib/log-context.js';
import { alertRoutes } from './routes/alerts.js';
import { integrationStatusRoutes } from './routes/integration-status.js';
import { openapiDocument } from './openapi.js';
import { diagnosticsRoutes } from './routes/diagnostics.js';
import { healthRoutes } from './routes/health.js';
import { connectRoutes } from './routes/connect.js';
import { actionRoutes } from './routes/actions.js';
import { syncRoutes } from './routes/syncs.js';
import { unifiedEndpointRoutes } from './routes/unified-endpoints.js';
import { connectUiRoutes } from './routes/connect-ui.js';
import { connectionRoutes } from './routes/connections.js';
import { integrationRoutes } from './routes/integrations.js';
import { legacyConnectionRoutes } from './routes/legacy-connection.js';
import { environmentRoutes } from './routes/environment.js';
import { webhookDeliveryRoutes } from './routes/webhook-deliveries.js';
import { logRoutes } from './routes/logs.js';
import { proxyRoutes } from './routes/proxy.js';
import { recordRoutes, serveRecords } from './routes/records.js';
import { scriptComponentSchemas, scriptRoutes } from './routes/scripts.js';
import { dashboardRoutes } from './dashboard/index.js';
import { providerWebhookRoutes } from './routes/provider-webhooks.js';
import { incomingWebhookSecretRoutes } from './routes/incoming-webhook-secrets.js';

export const API_VERSION = '0.67.0';

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', requestId);
  // Every log line of the request carries its reqId; with telemetry, the request is a SERVER span.
  app.use('*', requestLogContext);
  if (deps.telemetry) app.use('*', deps.telemetry.apiMiddleware);
  app.use(
    '*',
    cors({
      origin: '*',
      maxAge: 600,
      // Without a fixed list the preflight's requested headers are allowed, so browsers can send
      // the prefixed proxy headers (Nango-Proxy-*, Switchyard-Proxy-*).
      exposeHeaders: ['Content-Type', 'Content-Length', 'Location', 'X-Request-Id'],
    }),
  );
  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    deps.log.info(
      { reqId: c.get('requestId'), method: c.req.method, path: redactPath(c.req.path), status: c.res.status, ms: Math.round(performance.now() - started) },
      'http',
    );
  });
  app.use('*', clientVersion);
  app.use('*', bodyLimit(deps.config.SWITCHYARD_REQUEST_BODY_LIMIT_BYTES));

  app.route('/', healthRoutes(deps));
  app.route('/', diagnosticsRoutes(deps));
  app.route('/', integrationRoutes(deps));
  app.route('/', connectionRoutes(deps));
  app.route('/', connectRoutes(deps));
  app.route('/', actionRoutes(deps));
  app.route('/', syncRoutes(deps));
  app.route('/', connectUiRoutes(deps));
  app.route('/', environmentRoutes(deps));
  app.route('/', webhookDeliveryRoutes(deps));
  app.route('/', proxyRoutes(deps));
  app.route('/', logRoutes(deps));
  app.route('/', scriptRoutes(deps));
  app.route('/', alertRoutes(deps));
  app.route('/', integrationStatusRoutes(deps));
  app.route(
    '/',
    legacyConnectionRoutes(deps, (req) => app.fetch(req)),
  );

  app.get('/openapi.json', async (c) =>
    c.json(openapiDocument(API_VERSION, deps.config.publicUrl, await scriptComponentSchemas(deps, c.req.header('authorization'))) as object),
  );

  app.route('/', recordRoutes(deps));

  app.route('/', providerWebhookRoutes(deps));
  app.route('/', incomingWebhookSecretRoutes(deps));

  app.route('/', dashboardRoutes(deps));

  // Last: the endpoints scripts declare. Platform routes above always win.
  app.route('/', unifiedEndpointRoutes(deps, serveRecords(deps)));

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
