/**
 * @module activities — all I/O the workflows do, built by createActivities(deps).
 */
import type { ActivityDeps } from './deps.js';
import { actionActivities } from './actions.js';
import { connectionActivities } from './connections.js';
import { syncActivities } from './syncs.js';
import { diagnosticsActivities } from './diagnostics.js';
import { webhookActivities } from './webhooks.js';
import { scriptActivities } from './scripts.js';
import { pluginActivities } from '../integrations/plugins.js';

function platformActivities(deps: ActivityDeps) {
  return {
    ...diagnosticsActivities(deps),
    ...connectionActivities(deps),
    ...actionActivities(deps),
    ...syncActivities(deps),
    ...webhookActivities(deps),
    ...scriptActivities(deps),
  };
}

/** The platform's activities and those of provider plugins' workflows (integrations/plugins.ts; typed by each plugin). */
export function createActivities(deps: ActivityDeps) {
  return { ...pluginActivities(deps), ...platformActivities(deps) };
}

/** The platform's activities, as workflows/ call them. */
export type Activities = ReturnType<typeof platformActivities>;
export type { ActivityDeps };
