/**
 * @module otel/env-router — per-environment OTLP export. An environment may name its own OTLP/HTTP
 * endpoint and headers (PATCH /environment: otlp_endpoint, otlp_headers). Every span carrying
 * `switchyard.environment` (set at the API's auth, on activities, on workflow spans, and inherited
 * by their children) is also handed to that environment's exporter.
 *
 * The environments' settings are re-read every SWITCHYARD_OTEL_SETTINGS_REFRESH_MS (default 30 s),
 * through the reader the caller hands in (start/platform.ts: features/webhooks/settings.ts owns the
 * table; infrastructure reads no feature table).
 * The exporter is ours rather than the SDK's OTLPTraceExporter so that the operator's
 * OTEL_EXPORTER_OTLP_HEADERS never reach a tenant's collector, and so that the address policy
 * applies: the endpoint is user-supplied, so it may not resolve to a private address unless
 * allow-listed (SWITCHYARD_ALLOWED_PRIVATE_HOSTS), exactly like webhook URLs.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Agent } from 'undici';
import { createPinnedLookup } from '../http/address-policy.js';
import { redactUrl } from '../http/redact.js';
import type { Logger } from '../log.js';
import { ATTR } from './attributes.js';
import { signalUrl } from './sdk.js';

const EXPORT_TIMEOUT_MS = 10_000;

export function settingsRefreshMs(): number {
  const n = Number(process.env.SWITCHYARD_OTEL_SETTINGS_REFRESH_MS);
  return Number.isFinite(n) && n >= 50 ? n : 30_000;
}

/** OTLP/HTTP JSON to one URL with fixed headers, through an agent that enforces the address policy. */
export class TenantOtlpExporter implements SpanExporter {
  private readonly url: URL;
  constructor(
    url: string,
    private readonly headers: Record<string, string>,
    private readonly agent: Agent,
    private readonly log?: Logger,
  ) {
    this.url = new URL(url);
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const body = JsonTraceSerializer.serializeRequest(spans);
    if (!body) return done({ code: ExportResultCode.SUCCESS });
    this.agent
      .request({
        origin: this.url.origin,
        path: `${this.url.pathname}${this.url.search}`,
        method: 'POST',
        headers: { ...this.headers, 'content-type': 'application/json' },
        body: Buffer.from(body),
        headersTimeout: EXPORT_TIMEOUT_MS,
        bodyTimeout: EXPORT_TIMEOUT_MS,
      })
      .then(async (res) => {
        await res.body.dump().catch(() => undefined);
        if (res.statusCode >= 200 && res.statusCode < 300) return done({ code: ExportResultCode.SUCCESS });
        this.log?.warn({ url: redactUrl(this.url.toString()), status: res.statusCode }, 'environment OTLP export refused');
        done({ code: ExportResultCode.FAILED });
      })
      .catch((err: unknown) => {
        this.log?.warn({ url: redactUrl(this.url.toString()), err: (err as Error).message }, 'environment OTLP export failed');
        done({ code: ExportResultCode.FAILED, error: err as Error });
      });
  }

  async shutdown(): Promise<void> {}
}

interface Route {
  key: string;
  processor: BatchSpanProcessor;
}

/** One environment's own OTLP/HTTP export: spans whose `switchyard.environment` is `environment` go to `endpoint`. */
export interface EnvironmentOtlpTarget {
  environment: string;
  endpoint: string;
  headers: Record<string, string>;
}

/** The environments that have their own OTLP endpoint, read afresh at each call. */
export type OtlpTargetsReader = () => Promise<EnvironmentOtlpTarget[]>;

export interface RouterDeps {
  readTargets: OtlpTargetsReader;
  allowedPrivateHosts: readonly string[];
  log?: Logger;
}

export class EnvironmentSpanRouter implements SpanProcessor {
  private readonly routes = new Map<string, Route>();
  private readonly agent: Agent;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: RouterDeps) {
    this.agent = new Agent({ keepAliveTimeout: 10_000, connect: { lookup: createPinnedLookup(deps.allowedPrivateHosts), timeout: EXPORT_TIMEOUT_MS } });
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), settingsRefreshMs());
    this.timer.unref();
  }

  /** Re-reads the environments' endpoints; changed or removed ones are flushed and replaced. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load()
      .catch((err: unknown) => this.deps.log?.warn({ err }, 'reading the environments’ OTLP settings failed'))
      .finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async load(): Promise<void> {
    const wanted = new Map<string, { url: string; headers: Record<string, string> }>();
    for (const target of await this.deps.readTargets()) {
      wanted.set(target.environment, { url: signalUrl(target.endpoint, 'traces'), headers: target.headers });
    }
    if (this.stopped) return;
    for (const [env, route] of this.routes) {
      const w = wanted.get(env);
      if (w && route.key === JSON.stringify(w)) continue;
      this.routes.delete(env);
      void route.processor.shutdown().catch(() => undefined);
    }
    for (const [env, w] of wanted) {
      if (this.routes.has(env)) continue;
      const exporter = new TenantOtlpExporter(w.url, w.headers, this.agent, this.deps.log);
      this.routes.set(env, { key: JSON.stringify(w), processor: new BatchSpanProcessor(exporter) });
    }
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    const env = span.attributes[ATTR.environment];
    if (typeof env === 'string') this.routes.get(env)?.processor.onEnd(span);
  }

  async forceFlush(): Promise<void> {
    await Promise.allSettled([...this.routes.values()].map((r) => r.processor.forceFlush()));
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.refreshing?.catch(() => undefined);
    await Promise.allSettled([...this.routes.values()].map((r) => r.processor.shutdown()));
    this.routes.clear();
    await this.agent.close().catch(() => undefined);
  }
}
