/**
 * @module otel/sdk — the process-global OpenTelemetry SDK: one tracer provider (and at most one
 * meter provider) per process, shared by every platform started in it and reference-counted, so
 * tests can start and stop platforms repeatedly. Nothing here runs unless a platform asks for
 * telemetry (an OTLP endpoint is configured): without it the API's no-op tracer and meter stay in
 * place and no span or metric is ever recorded.
 *
 * Span processors are per platform (added and removed through the handle): the operator's OTLP
 * exporter and the per-environment router both hang off one multiplexing processor.
 */
import { context, metrics, propagation, trace, type Attributes, type Context } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import os from 'node:os';
import { INHERITED } from './attributes.js';
import { resetInstruments } from './metrics.js';

export const SERVICE_VERSION = '0.67.0';

/** Fans every span out to the processors currently attached. */
export class MultiplexSpanProcessor implements SpanProcessor {
  private readonly children = new Set<SpanProcessor>();
  add(p: SpanProcessor): void {
    this.children.add(p);
  }
  remove(p: SpanProcessor): void {
    this.children.delete(p);
  }
  onStart(span: Span, parent: Context): void {
    for (const c of this.children) c.onStart(span, parent);
  }
  onEnd(span: ReadableSpan): void {
    for (const c of this.children) c.onEnd(span);
  }
  async forceFlush(): Promise<void> {
    await Promise.allSettled([...this.children].map((c) => c.forceFlush()));
  }
  async shutdown(): Promise<void> {
    await Promise.allSettled([...this.children].map((c) => c.shutdown()));
    this.children.clear();
  }
}

/**
 * Copies the switchyard.* labels of an in-process parent span onto a child when it starts, so an
 * outbound HTTP span started inside an activity carries the activity's environment, connection,
 * script and run without each call site passing them.
 */
export class InheritAttributesProcessor implements SpanProcessor {
  onStart(span: Span, parentContext: Context): void {
    const from = (trace.getSpan(parentContext) as unknown as { attributes?: Attributes } | undefined)?.attributes;
    if (!from) return;
    for (const key of INHERITED) {
      const v = from[key];
      if (v !== undefined && span.attributes[key] === undefined) span.setAttribute(key, v);
    }
  }
  onEnd(): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

interface GlobalSdk {
  provider: NodeTracerProvider;
  multiplex: MultiplexSpanProcessor;
  resource: Resource;
  meterProvider: MeterProvider | null;
  refs: number;
}

let sdk: GlobalSdk | null = null;

export interface SdkHandle {
  resource: Resource;
  /** What workflow spans (exported by the worker's sink) are handed to. */
  processor: SpanProcessor;
  addSpanProcessor(p: SpanProcessor): void;
  /** Flushes and shuts the processor down, then detaches it. */
  removeSpanProcessor(p: SpanProcessor): Promise<void>;
  /** Starts the process's metric export to this OTLP base URL, unless one runs already. */
  ensureMetrics(baseUrl: string): void;
  /** Drops this platform's reference; the last one flushes and unregisters everything. */
  release(): Promise<void>;
}

/** `base` + `/v1/<signal>` (the OTLP/HTTP rule for OTEL_EXPORTER_OTLP_ENDPOINT), unless it names the signal's path already. */
export function signalUrl(base: string, signal: 'traces' | 'metrics'): string {
  const path = `/v1/${signal}`;
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith(path) ? trimmed : `${trimmed}${path}`;
}

function metricIntervalMs(): number {
  const n = Number(process.env.OTEL_METRIC_EXPORT_INTERVAL);
  return Number.isFinite(n) && n >= 100 ? n : 60_000;
}

export function acquireSdk(): SdkHandle {
  if (!sdk) {
    const resource = Resource.default().merge(
      new Resource({
        [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || 'switchyard',
        [ATTR_SERVICE_VERSION]: SERVICE_VERSION,
        'service.instance.id': `${os.hostname()}:${process.pid}`,
      }),
    );
    const multiplex = new MultiplexSpanProcessor();
    const provider = new NodeTracerProvider({ resource, spanProcessors: [new InheritAttributesProcessor(), multiplex] });
    // AsyncLocalStorage context manager and the W3C trace-context propagator, process-wide.
    provider.register();
    sdk = { provider, multiplex, resource, meterProvider: null, refs: 0 };
    resetInstruments();
  }
  const s = sdk;
  s.refs++;
  let released = false;
  return {
    resource: s.resource,
    processor: s.multiplex,
    addSpanProcessor: (p) => s.multiplex.add(p),
    async removeSpanProcessor(p) {
      await p.forceFlush().catch(() => undefined);
      s.multiplex.remove(p);
      await p.shutdown().catch(() => undefined);
    },
    ensureMetrics(baseUrl) {
      if (s.meterProvider) return;
      s.meterProvider = new MeterProvider({
        resource: s.resource,
        readers: [
          new PeriodicExportingMetricReader({
            exporter: new OTLPMetricExporter({ url: signalUrl(baseUrl, 'metrics') }),
            exportIntervalMillis: metricIntervalMs(),
          }),
        ],
      });
      metrics.setGlobalMeterProvider(s.meterProvider);
      resetInstruments();
    },
    async release() {
      if (released) return;
      released = true;
      s.refs--;
      if (s.refs > 0 || sdk !== s) return;
      sdk = null;
      await s.provider.forceFlush().catch(() => undefined);
      await s.provider.shutdown().catch(() => undefined);
      if (s.meterProvider) await s.meterProvider.shutdown().catch(() => undefined);
      trace.disable();
      context.disable();
      propagation.disable();
      metrics.disable();
      resetInstruments();
    },
  };
}
