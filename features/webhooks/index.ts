/**
 * @module features/webhooks — signed, durable webhooks to the developer's backend: emit an event, and a
 * `webhookDeliveryWorkflow` per target URL delivers it.
 */
export {
  emitEvent,
  recoverFailedDeliveries,
  replayDelivery,
  startDeliverySweeper,
  sweepPendingDeliveries,
  type EmitDeps,
  type EmitOptions,
  type EmitResult,
} from './emit.js';
export { markDeliveryDead } from './deliveries.js';
export { getSettings, rotateSigningKey, signingKeys, updateSettings } from './settings.js';
export { signatureHeaders, stableStringify } from './sign.js';
export { verifyWebhook } from './verify.js';
