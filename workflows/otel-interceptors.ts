/**
 * @module workflows/otel-interceptors — OpenTelemetry workflow interceptors, bundled with the
 * workflows (worker/index.ts: workflowInterceptorModules) and active per workflow only when its
 * start carried a trace context or the tracing marker (lib/otel/trace-headers.ts). A process
 * without telemetry never sends either, so its workflows create no spans and call no sink.
 *
 * Whether a run is traced is decided from its start headers, which are in its history: a replay
 * decides the same way. Spans are not commands, so tracing never changes what a workflow does.
 */
import type * as OtelWorkflow from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type {
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { TRACE_CONTEXT_HEADER, TRACE_MARKER_HEADER } from '../lib/otel/trace-headers.js';

/**
 * The OpenTelemetry interceptors' module, evaluated when a traced run starts. Each workflow has its
 * own module cache, so a static import evaluated OpenTelemetry's SDK for every run created, traced
 * or not: about 4 ms of the workflow thread per run (bench/RESULTS.md, issue 32, p6-sched). The
 * bundler resolves this require at build time and runs the module at the call, synchronously.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadOtel = (): typeof OtelWorkflow => require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js') as typeof OtelWorkflow;

export const interceptors = (): WorkflowInterceptors => {
  let inbound: OtelWorkflow.OpenTelemetryInboundInterceptor | null = null;
  let outbound: OtelWorkflow.OpenTelemetryOutboundInterceptor | null = null;
  let internals: OtelWorkflow.OpenTelemetryInternalsInterceptor | null = null;

  const gatedInbound: WorkflowInboundCallsInterceptor = {
    execute(input, next) {
      if (!(TRACE_CONTEXT_HEADER in input.headers) && !(TRACE_MARKER_HEADER in input.headers)) return next(input);
      const otel = loadOtel();
      inbound = new otel.OpenTelemetryInboundInterceptor();
      outbound = new otel.OpenTelemetryOutboundInterceptor();
      internals = new otel.OpenTelemetryInternalsInterceptor();
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

  // The OpenTelemetry internals interceptor only disables the context manager a traced run made.
  const gatedInternals: WorkflowInternalsInterceptor = {
    dispose: (input, next) => (internals ? internals.dispose(input, next) : next(input)),
  };

  return { inbound: [gatedInbound], outbound: [gatedOutbound], internals: [gatedInternals] };
};
