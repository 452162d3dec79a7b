/**
 * @module features/alerts — alerts on errors: a failed sync run, an auth refresh failure, a connection check
 * failure and a dead-lettered webhook each raise one (stored, one open per cause, counted on
 * repeats), sent to the environment's alert webhook, and resolved by the next success.
 */
export * from './store.js';
export { environmentName, raiseAlert, resolveAlerts, type AlertDeps } from './notify.js';
export * as alertHooks from './hooks.js';
