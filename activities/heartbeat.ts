/**
 * @module activities/heartbeat — heartbeats for long activities (a script run, a webhook POST), so
 * a worker killed mid-run is noticed within the activity's heartbeat timeout.
 */
import { Context } from '@temporalio/activity';

/** The current activity's context, or null when called outside an activity (tests). */
export function activityContext(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

/**
 * Heartbeats the current activity every intervalMs until the returned function is called. Outside
 * an activity it does nothing.
 */
export function heartbeating(intervalMs: number): () => void {
  const ctx = activityContext();
  if (!ctx) return () => undefined;
  const timer = setInterval(() => ctx.heartbeat(), intervalMs);
  return () => clearInterval(timer);
}
