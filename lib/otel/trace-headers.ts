/**
 * @module lib/otel/trace-headers — the Temporal headers that switch workflow tracing on. Shared by
 * the workflow interceptors (in the bundle) and the client side (lib/otel/temporal.ts).
 */

/** Where @temporalio/interceptors-opentelemetry carries the W3C trace context. */
export const TRACE_CONTEXT_HEADER = '_tracer-data';

/**
 * Set on schedule actions created while tracing is on: runs a schedule starts have no caller to
 * take a trace context from, so they start their own trace.
 */
export const TRACE_MARKER_HEADER = 'switchyard-trace';
