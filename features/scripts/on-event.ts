/**
 * @module features/scripts/on-event — runs the `createOnEvent` scripts of an integration (pre-built
 * in-process, deployed in the sandbox) for one connection event: `validate-connection` inside
 * saveConnection (a throw refuses the connection), `post-connection-creation` in a workflow after
 * the connection is created, `pre-connection-deletion` before it is deleted, bounded in time.
 */
import { randomUUID } from 'node:crypto';
import type { ConnectionDeps } from '../connections/service.js';
import type { Connection } from '../connections/store.js';
import { getIntegrationById, type Integration } from '../integrations/store.js';
import type { Logger } from '../../lib/log.js';
import type { ConnectionEvent } from '../../sdk/types.js';
import { modelsOf, onEventScriptsOf } from './catalog.js';
import { createScriptContext, type RunHooks } from './context.js';

/** The time a validate-connection or pre-connection-deletion script may take. */
export const ON_EVENT_TIMEOUT_MS = 30_000;

/** An on-event script failed (or ran out of time): `cause` is what it threw. */
export class OnEventScriptFailed extends Error {
  constructor(
    readonly script: string,
    readonly event: ConnectionEvent,
    override readonly cause: unknown,
  ) {
    super(`The ${event} script ${script} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'OnEventScriptFailed';
  }
}

export interface OnEventRun {
  runId: string;
  /** Wall time per script; unset: the sandbox's action limits. */
  timeoutMs?: number;
  log: RunHooks['log'];
  /** The run's durable marks of unkeyed writes, when the run may be retried (a workflow's). */
  writes?: RunHooks['writes'];
}

/**
 * Runs the integration's scripts for `event` one after the other; the first that fails stops the
 * rest and is thrown as OnEventScriptFailed. Resolves with the names of the scripts that ran.
 */
export async function runOnEventScripts(
  deps: ConnectionDeps,
  connection: Connection,
  integration: Pick<Integration, 'id' | 'provider'>,
  event: ConnectionEvent,
  run: OnEventRun,
): Promise<string[]> {
  const scripts = await onEventScriptsOf(deps, integration, event);
  if (scripts.length === 0) return [];
  const models = await modelsOf(deps, integration);
  for (const [name, handle] of scripts) {
    const ctx = createScriptContext(deps, connection, { kind: 'action', runId: run.runId, models, log: run.log, writes: run.writes });
    let timer: NodeJS.Timeout | undefined;
    try {
      const limit = run.timeoutMs;
      const exec = handle.exec(ctx, limit ? { wallMs: limit } : undefined);
      exec.catch(() => undefined); // a late failure of an abandoned run is not an unhandled rejection
      // A pre-built script cannot be stopped: past its time it is no longer waited for.
      await (limit
        ? Promise.race([
            exec,
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error(`it did not finish within ${limit} ms`)), limit + 1000);
            }),
          ])
        : exec);
    } catch (err) {
      throw new OnEventScriptFailed(name, event, err);
    } finally {
      clearTimeout(timer);
    }
  }
  return scripts.map(([name]) => name);
}

/**
 * The pre-connection-deletion scripts of a connection about to be deleted, each within
 * ON_EVENT_TIMEOUT_MS. A failure is logged and does not stop the deletion.
 */
export async function runPreConnectionDeletion(deps: ConnectionDeps & { log: Logger }, connection: Connection): Promise<void> {
  const runId = `pre-connection-deletion-${randomUUID()}`;
  const fields = { runId, integration: connection.integrationKey, connection: connection.connectionId };
  try {
    const integration = await getIntegrationById(deps.db, deps.box, connection.integrationId);
    if (!integration) return;
    await runOnEventScripts(deps, connection, integration, 'pre-connection-deletion', {
      runId,
      timeoutMs: ON_EVENT_TIMEOUT_MS,
      log: (e) => deps.log[e.level]({ ...fields, ...e.fields }, e.message),
    });
  } catch (err) {
    deps.log.warn({ ...fields, err }, `${(err as Error).message ?? String(err)}; the connection is deleted anyway`);
  }
}
