/**
 * @module bench/lib/hops — where a workflow's round trip goes, from its own history: each task's
 * wait in the server (scheduled → started: the history service's transfer queue and matching) and
 * its run in the worker (started → completed). The client's total minus the history's span is the
 * start call before the first event plus the result's long poll after the last.
 */
import type { Client } from '@temporalio/client';
import { round } from './stats.js';

type Event = { eventType?: number | null; eventTime?: { seconds?: unknown; nanos?: number | null } | null };

const T = {
  started: 1,
  completed: 2,
  wftScheduled: 5,
  wftStarted: 6,
  wftCompleted: 7,
  actScheduled: 10,
  actStarted: 11,
  actCompleted: 12,
} as const;

const ms = (e: Event | undefined): number => (e?.eventTime ? Number(e.eventTime.seconds) * 1000 + (e.eventTime.nanos ?? 0) / 1e6 : NaN);

/** One history's hops in ms (NaN where an event is missing, e.g. a task that started eagerly). */
export function hopsOf(events: Event[]): Record<string, number> {
  const all = (t: number) => events.filter((e) => e.eventType === t);
  const [s1, s2] = all(T.wftScheduled);
  const [st1, st2] = all(T.wftStarted);
  const [c1, c2] = all(T.wftCompleted);
  const as = all(T.actScheduled)[0];
  const ast = all(T.actStarted)[0];
  const ac = all(T.actCompleted)[0];
  return {
    'workflow task 1 wait': ms(st1) - ms(s1),
    'workflow task 1 run': ms(c1) - ms(st1),
    'activity wait': ms(ast) - ms(as),
    'activity run': ms(ac) - ms(ast),
    'activity done → workflow task 2 started': ms(st2) - ms(ac),
    'workflow task 2 wait': ms(st2) - ms(s2),
    'workflow task 2 run': ms(c2) - ms(st2),
    'history span (started → completed)': ms(all(T.completed)[0]) - ms(all(T.started)[0]),
  };
}

/** Median of each hop over the workflows' histories. */
export async function medianHops(client: Client, workflowIds: string[]): Promise<Record<string, number>> {
  const per = await Promise.all(workflowIds.map(async (id) => hopsOf(((await client.workflow.getHandle(id).fetchHistory()).events ?? []) as Event[])));
  const out: Record<string, number> = {};
  for (const key of Object.keys(per[0] ?? {})) {
    const xs = per
      .map((h) => h[key]!)
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    if (xs.length) out[key] = round(xs[Math.floor(xs.length / 2)]!, 1);
  }
  return out;
}

/** The ids of the latest closed workflows on a task queue (visibility). */
export async function latestWorkflowIds(client: Client, taskQueue: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Completed'`, pageSize: n })) {
    ids.push(w.workflowId);
    if (ids.length >= n) break;
  }
  return ids;
}
