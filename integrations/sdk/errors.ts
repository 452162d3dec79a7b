/**
 * @module sdk/errors — errors a script can throw on purpose.
 */

/** A structured failure of an action, returned to the caller as `action_script_runtime_error`. */
export class ActionError<P = unknown> extends Error {
  readonly payload: P;
  constructor(payload: P) {
    super(typeof payload === 'object' && payload !== null && 'message' in payload ? String((payload as { message: unknown }).message) : 'action failed');
    this.name = 'ActionError';
    this.payload = payload;
  }
}
