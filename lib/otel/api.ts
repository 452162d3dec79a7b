/**
 * @module otel/api — one SERVER span per API request. It continues a caller's W3C trace context
 * (`traceparent`), and is the active span while the route runs, so the Temporal client interceptor
 * carries it into the workflows the route starts. Installed only when telemetry is on.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { redactPath } from '../http/redact.js';
import { ATTR } from './attributes.js';

const headerGetter = {
  keys: (carrier: Headers) => [...carrier.keys()],
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
};

/** The route pattern of the handler that answered (after next(), routeIndex points at it). */
function route(c: Context): string {
  try {
    const path = routePath(c, c.req.routeIndex);
    return path && path !== '*' && path !== '/*' ? path : redactPath(c.req.path);
  } catch {
    return redactPath(c.req.path);
  }
}

export function apiSpans(): MiddlewareHandler {
  const tracer = trace.getTracer('switchyard-api');
  return async (c, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, c.req.raw.headers, headerGetter);
    const attributes: Attributes = {
      [ATTR.component]: 'api',
      'http.request.method': c.req.method,
      'url.path': redactPath(c.req.path),
    };
    const requestId = c.get('requestId') as string | undefined;
    if (requestId) attributes[ATTR.requestId] = requestId;
    // The Nango-style headers name the connection of most per-connection calls.
    const connection = c.req.header('connection-id') ?? c.req.query('connection_id');
    const integration = c.req.header('provider-config-key') ?? c.req.query('provider_config_key');
    if (connection) attributes[ATTR.connection] = connection;
    if (integration) attributes[ATTR.integration] = integration;
    const span = tracer.startSpan(`${c.req.method} ${redactPath(c.req.path)}`, { kind: SpanKind.SERVER, attributes }, parent);
    try {
      await context.with(trace.setSpan(parent, span), () => next());
    } finally {
      const status = c.res.status;
      span.updateName(`${c.req.method} ${route(c)}`);
      span.setAttributes({ 'http.route': route(c), 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
