import type { PluginDeps } from '../integrations/plugin.js';

/**
 * What activities need from the outside world (the same as provider plugins' activities:
 * integrations/plugin.ts); tests hand in their own. `temporal` starts workflows from activities
 * (webhook deliveries of the events they emit).
 */
export type ActivityDeps = PluginDeps;
