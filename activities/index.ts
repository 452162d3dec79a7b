/**
 * @module activities — all I/O the workflows do, built by createActivities(deps).
 */
import type { ActivityDeps } from './deps.js';
import { actionActivities } from './actions.js';
import { connectionActivities } from './connections.js';
import { syncActivities } from './syncs.js';
import { diagnosticsActivities } from './diagnostics.js';
import { webhookActivities } from './webhooks.js';
import { backgroundCheckActivities } from './background-checks.js';
import { scriptActivities } from './scripts.js';

export function createActivities(deps: ActivityDeps) {
  return {
    ...diagnosticsActivities(deps),
    ...connectionActivities(deps),
    ...actionActivities(deps),
    ...syncActivities(deps),
    ...webhookActivities(deps),
    ...backgroundCheckActivities(deps),
    ...scriptActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps };
