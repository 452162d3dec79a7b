/**
 * @module sdk/experimental — `nango/experimental`: Nango's trigger-agnostic `createFunction`
 * primitive (marked "not production ready" by Nango). Switchyard does not run it; importing it
 * type-checks, calling it fails at compile time with its name.
 */
import type { Unsupported } from './nango.js';

export const createFunction =
  undefined as unknown as Unsupported<'createFunction is not supported by Switchyard (experimental in Nango): use createSync or createAction'>;
export const deriveFunctionCapabilities =
  undefined as unknown as Unsupported<'deriveFunctionCapabilities is not supported by Switchyard (experimental in Nango)'>;
