/**
 * @module otel/spans — the CLIENT spans of outbound calls: each provider request (lib/http) and
 * each webhook attempt. They come from the global tracer: without a registered SDK it is the API's
 * no-op tracer, the span does not record and no attribute is computed. Labels (environment,
 * integration, connection, script, run) are inherited from the activity or API span around them.
 */
import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { redactUrl } from '../http/redact.js';
import { ATTR } from './attributes.js';

const tracer = () => trace.getTracer('switchyard');

export interface ProviderSpanContext {
  integration?: string;
  connectionId?: string;
  runId?: string;
  kind: string;
  environmentId: number;
}

export function providerSpan(method: string, url: URL, ctx: ProviderSpanContext): Span {
  const span = tracer().startSpan(`HTTP ${method}`, { kind: SpanKind.CLIENT });
  if (!span.isRecording()) return span;
  span.setAttributes({
    [ATTR.component]: 'http',
    [ATTR.kind]: ctx.kind,
    'switchyard.environment_id': ctx.environmentId,
    'http.request.method': method,
    'url.full': redactUrl(url),
    'server.address': url.hostname,
    ...(url.port ? { 'server.port': Number(url.port) } : {}),
    ...(ctx.integration ? { [ATTR.integration]: ctx.integration } : {}),
    ...(ctx.connectionId ? { [ATTR.connection]: ctx.connectionId } : {}),
    ...(ctx.runId ? { [ATTR.runId]: ctx.runId } : {}),
  });
  return span;
}

export function endProviderSpan(span: Span, status: number | null, error?: unknown): void {
  if (span.isRecording()) {
    if (status !== null) span.setAttribute('http.response.status_code', status);
    if (status === 429) span.addEvent('rate_limited');
    if (error !== undefined) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.setAttribute('error.type', error instanceof Error ? error.name : 'error');
    } else if (status !== null && status >= 400) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', String(status));
    }
  }
  span.end();
}

export function webhookSpan(d: { id: string; type: string; url: string }, attempt: number): Span {
  const span = tracer().startSpan(`webhook POST ${d.type}`, { kind: SpanKind.CLIENT });
  if (!span.isRecording()) return span;
  span.setAttributes({
    [ATTR.component]: 'webhook',
    'http.request.method': 'POST',
    'url.full': redactUrl(d.url),
    'switchyard.webhook.type': d.type,
    'switchyard.webhook.delivery_id': d.id,
    'switchyard.webhook.attempt': attempt,
  });
  return span;
}

export function endWebhookSpan(span: Span, result: { kind: string; status: number | null; error?: string }): void {
  if (span.isRecording()) {
    if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
    span.setAttribute('switchyard.webhook.outcome', result.kind);
    if (result.kind !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
  }
  span.end();
}
