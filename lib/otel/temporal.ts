/**
 * @module otel/temporal — the Temporal hops of a trace, with @temporalio/interceptors-opentelemetry:
 * the client interceptor puts the caller's trace context into the workflow's start headers; the
 * workflow interceptors (workflows/otel-interceptors.ts, bundled) continue it inside the workflow
 * and pass it on to each activity; the activity interceptor continues it in the worker, where the
 * provider HTTP client and webhook deliveries add their own spans. Workflow spans are made in the
 * workflow sandbox and leave it through the `exporter` sink.
 */
import { trace, type Attributes } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ActivityInboundCallsInterceptor, ActivityExecuteInput, Next } from '@temporalio/worker';
import type { Next as ClientNext } from '@temporalio/client';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ClientInterceptors, CreateScheduleInput, CreateScheduleOutput, ScheduleClientInterceptor } from '@temporalio/client';
import { createTraceState } from '@opentelemetry/api';
import { defaultPayloadConverter } from '@temporalio/common';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import { TRACE_MARKER_HEADER } from './trace-headers.js';
import { searchAttributeNames } from '../temporal/search-attributes.js';
import { ATTR, labelAttributes, runIdOf } from './attributes.js';

/** Schedules created while tracing is on start every run with the tracing marker (see lib/otel/trace-headers.ts). */
class TraceMarkerScheduleInterceptor implements ScheduleClientInterceptor {
  async create(input: CreateScheduleInput, next: ClientNext<ScheduleClientInterceptor, 'create'>): Promise<CreateScheduleOutput> {
    return next({ ...input, headers: { ...input.headers, [TRACE_MARKER_HEADER]: defaultPayloadConverter.toPayload(true) } });
  }
}

export function clientInterceptors(): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()], schedule: [new TraceMarkerScheduleInterceptor()] };
}

/** Labels the activity's span: component, environment (from the task queue `<prefix>-<env>`), workflow. */
class ActivityLabelsInterceptor implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: ActivityContext,
    private readonly taskQueuePrefix: string,
  ) {}
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const span = trace.getActiveSpan();
    if (span?.isRecording()) {
      const info = this.ctx.info;
      const prefix = `${this.taskQueuePrefix}-`;
      const attrs: Attributes = { [ATTR.component]: 'activity' };
      if (info.taskQueue.startsWith(prefix)) attrs[ATTR.environment] = info.taskQueue.slice(prefix.length);
      if (info.workflowExecution) {
        attrs[ATTR.workflowId] = info.workflowExecution.workflowId;
        attrs[ATTR.temporalRunId] = info.workflowExecution.runId;
      }
      span.setAttributes(attrs);
    }
    return next(input);
  }
}

export function workerInterceptors(taskQueuePrefix: string): WorkerInterceptors {
  return {
    activity: [
      (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) }),
      (ctx) => ({ inbound: new ActivityLabelsInterceptor(ctx, taskQueuePrefix) }),
    ],
  };
}

function searchAttribute(info: WorkflowInfo, name: string): string | undefined {
  const typed = info.typedSearchAttributes as unknown as { getAll?: () => { key: { name: string }; value: unknown }[] } | undefined;
  const pairs = typeof typed?.getAll === 'function' ? typed.getAll() : Array.isArray(typed) ? (typed as { key: { name: string }; value: unknown }[]) : [];
  const pair = pairs.find((p) => p.key?.name === name);
  if (typeof pair?.value === 'string') return pair.value;
  const legacy = (info.searchAttributes as Record<string, unknown> | undefined)?.[name];
  const v = Array.isArray(legacy) ? legacy[0] : legacy;
  return typeof v === 'string' ? v : undefined;
}

/** The switchyard.* labels of a workflow's spans, from its search attributes and ids. */
export function workflowSpanAttributes(info: WorkflowInfo): Attributes {
  const [environment, integration, connection, script] = searchAttributeNames.map((n) => searchAttribute(info, n));
  return {
    ...labelAttributes({ environment, integration, connection, script, runId: runIdOf(info.workflowType, info.workflowId, info.runId) }),
    [ATTR.component]: 'workflow',
    [ATTR.workflowId]: info.workflowId,
    [ATTR.temporalRunId]: info.runId,
    'temporal.workflow_type': info.workflowType,
  };
}

function toReadableSpan(s: SerializableSpan, attributes: Attributes, resource: Resource): ReadableSpan {
  const { traceState, ...rest } = s.spanContext;
  const spanContext = { ...rest, traceState: traceState ? createTraceState(traceState) : undefined };
  return {
    name: s.name,
    kind: s.kind,
    spanContext: () => spanContext,
    parentSpanId: s.parentSpanId,
    startTime: s.startTime,
    endTime: s.endTime,
    status: s.status,
    attributes: { ...s.attributes, ...attributes },
    links: s.links,
    events: s.events,
    duration: s.duration,
    ended: s.ended,
    resource,
    instrumentationLibrary: s.instrumentationLibrary,
    droppedAttributesCount: s.droppedAttributesCount,
    droppedEventsCount: s.droppedEventsCount,
    droppedLinksCount: s.droppedLinksCount,
  };
}

/**
 * The `exporter` sink the workflow interceptors call. Like the package's makeWorkflowExporter, but
 * it labels each span with the workflow's switchyard.* attributes instead of copying the whole
 * WorkflowInfo into them. Without telemetry the sink is still registered and does nothing, so a
 * workflow started with the tracing marker never finds it missing.
 */
export function workflowSpanSinks(target: { processor: SpanProcessor; resource: Resource } | null): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          if (!target) return;
          const attributes = workflowSpanAttributes(info);
          for (const s of spans) target.processor.onEnd(toReadableSpan(s, attributes, target.resource));
        },
        callDuringReplay: false,
      },
    },
  };
}
