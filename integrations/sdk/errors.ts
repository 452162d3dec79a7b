/**
 * @module sdk/errors — errors a script can throw on purpose.
 */

/** A structured failure of an action: the caller gets a 500 `action_script_runtime_error` (as from Nango) with this payload. */
export class ActionError<P = unknown> extends Error {
  readonly payload: P;
  constructor(payload: P) {
    super(typeof payload === 'object' && payload !== null && 'message' in payload ? String((payload as { message: unknown }).message) : 'action failed');
    this.name = 'ActionError';
    this.payload = payload;
  }
}
