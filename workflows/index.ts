/**
 * @module workflows — every workflow the worker runs. Deterministic code only: no I/O and no Node
 * APIs here (eslint enforces it); all I/O is in activities/. Their names, inputs, results, ids and
 * signals are in contracts.ts, which callers use to start them (typed starts).
 */
export { diagnosticsWorkflow } from './diagnostics.js';
export { connectionCheckWorkflow } from './connection-check.js';
export { actionWorkflow } from './action.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.js';
export { webhookEndpointWorkflow } from './webhook-endpoint.js';
export { syncWorkflow } from './sync.js';
export { backgroundCheckWorkflow } from '../integrations/workflows.js';
export { onEventWorkflow, syncWebhookWorkflow } from './scripts.js';
