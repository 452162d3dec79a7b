/**
 * @module otel/attributes — the span attributes every Switchyard span carries where known, and
 * `annotate`, which sets them on the active span. Without a registered SDK the active span is the
 * API's non-recording span and annotate costs one lookup.
 */
import { trace, type Attributes, type Span } from '@opentelemetry/api';

export const ATTR = {
  environment: 'switchyard.environment',
  integration: 'switchyard.integration',
  connection: 'switchyard.connection',
  script: 'switchyard.script',
  runId: 'switchyard.run_id',
  /** api | temporal-client | workflow | activity | http | webhook */
  component: 'switchyard.component',
  requestId: 'switchyard.request_id',
  kind: 'switchyard.kind',
  workflowId: 'temporal.workflow_id',
  temporalRunId: 'temporal.run_id',
} as const;

/** The attributes children inherit from an in-process parent span (see InheritAttributesProcessor). */
export const INHERITED: readonly string[] = [ATTR.environment, ATTR.integration, ATTR.connection, ATTR.script, ATTR.runId];

export interface SpanLabels {
  environment?: string | null;
  integration?: string | null;
  connection?: string | null;
  script?: string | null;
  runId?: string | null;
}

export function labelAttributes(l: SpanLabels): Attributes {
  const out: Attributes = {};
  if (l.environment) out[ATTR.environment] = l.environment;
  if (l.integration) out[ATTR.integration] = l.integration;
  if (l.connection) out[ATTR.connection] = l.connection;
  if (l.script) out[ATTR.script] = l.script;
  if (l.runId) out[ATTR.runId] = l.runId;
  return out;
}

/** Sets the labels on `span`, or on the active span. */
export function annotate(l: SpanLabels, span: Span | undefined = trace.getActiveSpan()): void {
  if (!span || !span.isRecording()) return;
  span.setAttributes(labelAttributes(l));
}

/**
 * Switchyard's own run id for a workflow: a sync run is `workflowId/runId` (what sync_runs
 * stores), an action run the UUID at the end of `action:{env}:{uuid}`, a webhook delivery its id.
 */
export function runIdOf(workflowType: string, workflowId: string, temporalRunId: string): string {
  if (workflowType === 'actionWorkflow') return workflowId.slice(workflowId.lastIndexOf(':') + 1);
  if (workflowType === 'webhookDeliveryWorkflow' && workflowId.startsWith('webhook:')) return workflowId.slice('webhook:'.length);
  return `${workflowId}/${temporalRunId}`;
}
