/**
 * @module log-context — the fields every log line written while serving one API request or running
 * one activity carries (request id; workflow id, run id, activity type and attempt), kept in an
 * AsyncLocalStorage and added by the logger's mixin (lib/log.ts). With tracing on, the line also
 * carries the active span's trace and span ids.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { trace } from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import type { MiddlewareHandler } from 'hono';

export type LogFields = Record<string, string | number>;

const storage = new AsyncLocalStorage<LogFields>();

/** The current request's or activity's fields, plus trace ids when a span is recording. */
export function logFields(): LogFields {
  const fields = storage.getStore();
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return fields ?? {};
  const { traceId, spanId } = span.spanContext();
  return { ...fields, traceId, spanId };
}

export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, fn);
}

/** After request-id.ts: every line logged while the request is handled carries its reqId. */
export const requestLogContext: MiddlewareHandler = (c, next) => withLogFields({ reqId: c.get('requestId') as string }, () => next());

class ActivityLogContext implements ActivityInboundCallsInterceptor {
  constructor(private readonly ctx: ActivityContext) {}
  execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const info = this.ctx.info;
    const fields: LogFields = { activity: info.activityType, attempt: info.attempt };
    if (info.workflowExecution) {
      fields.workflowId = info.workflowExecution.workflowId;
      fields.temporalRunId = info.workflowExecution.runId;
    }
    return withLogFields(fields, () => next(input));
  }
}

/** Worker interceptor: every line an activity logs carries its workflow id, run id, type and attempt. */
export const activityLogContext: ActivityInterceptorsFactory = (ctx) => ({ inbound: new ActivityLogContext(ctx) });
