/**
 * @module sdk/errors — errors a script can throw on purpose.
 */

/**
 * A structured failure of an action (Nango's shape: `new ActionError(payload?)`, with `type` and
 * `payload`): the caller gets `action_script_runtime_error` with this payload.
 */
export class ActionError<T = Record<string, unknown>> extends Error {
  type: string = 'action_script_runtime_error';
  payload?: Record<string, unknown> | undefined;
  constructor(payload?: T) {
    super(typeof payload === 'object' && payload !== null && 'message' in payload ? String((payload as { message: unknown }).message) : 'action failed');
    this.name = 'ActionError';
    this.payload = payload as Record<string, unknown> | undefined;
  }
}
