/**
 * @module otel/metrics — the platform's metrics: runs, failures, durations, records saved,
 * webhook deliveries, provider 429s, alerts. Instruments come from the global meter: until a meter
 * provider is registered (lib/otel/sdk.ts) it is the API's no-op meter and recording costs nothing.
 */
import { metrics, type Attributes, type Counter, type Histogram } from '@opentelemetry/api';

interface Instruments {
  runs: Counter;
  failures: Counter;
  duration: Histogram;
  recordsSaved: Counter;
  deliveries: Counter;
  rateLimited: Counter;
  providerRequests: Counter;
  alerts: Counter;
}

let cached: Instruments | null = null;

/** Called when a meter provider is registered or removed: instruments are rebuilt from the new one. */
export function resetInstruments(): void {
  cached = null;
}

function instruments(): Instruments {
  if (cached) return cached;
  const meter = metrics.getMeter('switchyard');
  cached = {
    runs: meter.createCounter('switchyard.runs', { description: 'Finished sync and action runs, by kind and status' }),
    failures: meter.createCounter('switchyard.run.failures', { description: 'Failed sync and action runs' }),
    duration: meter.createHistogram('switchyard.run.duration', { description: 'Duration of sync and action runs', unit: 'ms' }),
    recordsSaved: meter.createCounter('switchyard.records.saved', { description: 'Records added or updated by syncs' }),
    deliveries: meter.createCounter('switchyard.webhook.deliveries', { description: 'Webhook delivery attempts, by outcome' }),
    rateLimited: meter.createCounter('switchyard.provider.rate_limited', { description: 'Provider answers with HTTP 429' }),
    providerRequests: meter.createCounter('switchyard.provider.requests', { description: 'Requests to third-party APIs' }),
    alerts: meter.createCounter('switchyard.alerts.raised', { description: 'Alerts opened, by kind' }),
  };
  return cached;
}

export interface RunLabels {
  environment?: string;
  integration?: string;
  script?: string;
}

function attrs(l: RunLabels, extra: Attributes = {}): Attributes {
  return {
    ...(l.environment ? { 'switchyard.environment': l.environment } : {}),
    ...(l.integration ? { 'switchyard.integration': l.integration } : {}),
    ...(l.script ? { 'switchyard.script': l.script } : {}),
    ...extra,
  };
}

export const metric = {
  run(kind: 'sync' | 'action', l: RunLabels, ok: boolean, durationMs: number | null): void {
    const i = instruments();
    const a = attrs(l, { 'switchyard.kind': kind, status: ok ? 'success' : 'error' });
    i.runs.add(1, a);
    if (!ok) i.failures.add(1, a);
    if (durationMs !== null && durationMs >= 0) i.duration.record(durationMs, a);
  },
  recordsSaved(l: RunLabels, count: number): void {
    if (count > 0) instruments().recordsSaved.add(count, attrs(l));
  },
  delivery(l: RunLabels & { type: string }, outcome: 'delivered' | 'retry' | 'refused' | 'dead'): void {
    instruments().deliveries.add(1, attrs(l, { 'webhook.type': l.type, outcome }));
  },
  providerRequest(l: { integration?: string; kind: string }, status: number | null): void {
    const i = instruments();
    const a = attrs({ integration: l.integration }, { 'switchyard.kind': l.kind, 'http.response.status_code': status ?? 0 });
    i.providerRequests.add(1, a);
    if (status === 429) i.rateLimited.add(1, a);
  },
  alert(kind: string, environment: string): void {
    instruments().alerts.add(1, { 'switchyard.environment': environment, 'alert.kind': kind });
  },
};
