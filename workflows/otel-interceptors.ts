/**
 * @module workflows/otel-interceptors — OpenTelemetry workflow interceptors, bundled with the
 * workflows (worker/index.ts: workflowInterceptorModules) and active per workflow only when its
 * start carried a trace context or the tracing marker (lib/otel/trace-headers.ts). A process
 * without telemetry never sends either, so its workflows create no spans and call no sink.
 *
 * Whether a run is traced is decided from its start headers, which are in its history: a replay
 * decides the same way. Spans are not commands, so tracing never changes what a workflow does.
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type { WorkflowInboundCallsInterceptor, WorkflowInterceptors, WorkflowOutboundCallsInterceptor } from '@temporalio/workflow';
import { TRACE_CONTEXT_HEADER, TRACE_MARKER_HEADER } from '../lib/otel/trace-headers.js';

export const interceptors = (): WorkflowInterceptors => {
  let inbound: OpenTelemetryInboundInterceptor | null = null;
  let outbound: OpenTelemetryOutboundInterceptor | null = null;

  const gatedInbound: WorkflowInboundCallsInterceptor = {
    execute(input, next) {
      if (!(TRACE_CONTEXT_HEADER in input.headers) && !(TRACE_MARKER_HEADER in input.headers)) return next(input);
      inbound = new OpenTelemetryInboundInterceptor();
      outbound = new OpenTelemetryOutboundInterceptor();
      return inbound.execute(input, next);
    },
    handleSignal: (input, next) => (inbound ? inbound.handleSignal(input, next) : next(input)),
  };

  const gatedOutbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => (outbound ? outbound.scheduleActivity(input, next) : next(input)),
    scheduleLocalActivity: (input, next) => (outbound ? outbound.scheduleLocalActivity(input, next) : next(input)),
    startChildWorkflowExecution: (input, next) => (outbound ? outbound.startChildWorkflowExecution(input, next) : next(input)),
    continueAsNew: (input, next) => (outbound ? outbound.continueAsNew(input, next) : next(input)),
    signalWorkflow: (input, next) => (outbound ? outbound.signalWorkflow(input, next) : next(input)),
    getLogAttributes: (input, next) => (outbound ? outbound.getLogAttributes(input, next) : next(input)),
  };

  return { inbound: [gatedInbound], outbound: [gatedOutbound], internals: [new OpenTelemetryInternalsInterceptor()] };
};
