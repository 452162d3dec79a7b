/**
 * @module otel — OpenTelemetry for one platform: traces over OTLP/HTTP (JSON) that follow a request
 * from the API span through the Temporal workflow and activity to every outbound HTTP call and
 * webhook delivery, and metrics (lib/otel/metrics.ts).
 *
 * startTelemetry returns null, and nothing is started, unless OTEL_EXPORTER_OTLP_ENDPOINT is set or
 * an environment has its own otlp_endpoint: spans and metrics then go through the API's no-op
 * tracer and meter. With telemetry on:
 * - OTEL_EXPORTER_OTLP_ENDPOINT receives every span (`<endpoint>/v1/traces`) and the metrics
 *   (`<endpoint>/v1/metrics`); OTEL_EXPORTER_OTLP_HEADERS and the other standard variables apply.
 * - each environment with an otlp_endpoint also receives the spans labelled with its name
 *   (lib/otel/env-router.ts), with its own headers. Metrics go to the operator's endpoint only.
 * An environment's first otlp_endpoint, in a deployment without OTEL_EXPORTER_OTLP_ENDPOINT, takes
 * effect at the next start; later changes are picked up within SWITCHYARD_OTEL_SETTINGS_REFRESH_MS.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ClientInterceptors } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { apiSpans } from './api.js';
import { EnvironmentSpanRouter, type OtlpTargetsReader } from './env-router.js';
import { acquireSdk, signalUrl } from './sdk.js';
import { clientInterceptors, workerInterceptors, workflowSpanSinks } from './temporal.js';

export { annotate, ATTR, runIdOf, type SpanLabels } from './attributes.js';
export { metric } from './metrics.js';
export type { EnvironmentOtlpTarget, OtlpTargetsReader } from './env-router.js';
export { workflowSpanSinks } from './temporal.js';

export interface Telemetry {
  clientInterceptors: ClientInterceptors;
  workerInterceptors(taskQueuePrefix: string): WorkerInterceptors;
  sinks: InjectedSinks<OpenTelemetrySinks>;
  apiMiddleware: MiddlewareHandler;
  /** Exports what is buffered now. */
  flush(): Promise<void>;
  /** Flushes, detaches this platform's exporters, and stops the SDK when no other platform uses it. */
  stop(): Promise<void>;
}

export interface TelemetryDeps {
  config: Config;
  log: Logger;
  /** The environments' own OTLP endpoints (features/webhooks/settings.ts reads them; lib reads no feature table). */
  environmentOtlpTargets: OtlpTargetsReader;
}

export async function startTelemetry(deps: TelemetryDeps): Promise<Telemetry | null> {
  const endpoint = deps.config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint && (await deps.environmentOtlpTargets()).length === 0) return null;
  const sdk = acquireSdk();
  const processors: SpanProcessor[] = [];
  if (endpoint) {
    const operator = new BatchSpanProcessor(new OTLPTraceExporter({ url: signalUrl(endpoint, 'traces') }));
    sdk.addSpanProcessor(operator);
    processors.push(operator);
    sdk.ensureMetrics(endpoint);
  }
  const router = new EnvironmentSpanRouter({
    readTargets: deps.environmentOtlpTargets,
    allowedPrivateHosts: deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS,
    log: deps.log,
  });
  await router.start();
  sdk.addSpanProcessor(router);
  processors.push(router);
  deps.log.info({ endpoint: endpoint ?? null, perEnvironment: true }, 'OpenTelemetry export on');

  let stopped = false;
  return {
    clientInterceptors: clientInterceptors(),
    workerInterceptors: (prefix) => workerInterceptors(prefix),
    sinks: workflowSpanSinks({ processor: sdk.processor, resource: sdk.resource }),
    apiMiddleware: apiSpans(),
    async flush() {
      await sdk.processor.forceFlush();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const p of processors) await sdk.removeSpanProcessor(p);
      await sdk.release();
    },
  };
}
