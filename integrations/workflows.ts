/**
 * @module integrations/workflows — the workflows of provider plugins, re-exported by the worker's
 * bundle entry (workflows/index.ts). Workflow code only: deterministic, no I/O.
 */
export { backgroundCheckWorkflow } from './checkr-partner/workflows/background-check.js';
