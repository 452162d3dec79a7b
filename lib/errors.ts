/**
 * @module errors — the typed errors of the platform. The API maps them to HTTP in api/errors.ts;
 * activities map them to Temporal failures in features/scripts/failures.ts.
 */

export interface FieldProblem {
  code: string;
  message: string;
  path: (string | number)[];
}

export abstract class SwitchyardError extends Error {
  abstract readonly kind:
    | 'bad_request'
    | 'unauthorized'
    | 'forbidden'
    | 'not_found'
    | 'conflict'
    | 'gone'
    | 'unsupported_media_type'
    | 'too_large'
    | 'upgrade_required'
    | 'upstream'
    | 'unavailable'
    | 'internal';
  constructor(
    readonly code: string,
    message: string,
    readonly payload?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequest extends SwitchyardError {
  readonly kind = 'bad_request' as const;
}

export class ValidationFailed extends SwitchyardError {
  readonly kind = 'bad_request' as const;
  constructor(
    code: string,
    readonly errors: FieldProblem[],
    message = errors.map((e) => `${e.path.join('.') || '(root)'}: ${e.message}`).join('; '),
  ) {
    super(code, message);
  }
}

export class Unauthorized extends SwitchyardError {
  readonly kind = 'unauthorized' as const;
}

export class Forbidden extends SwitchyardError {
  readonly kind = 'forbidden' as const;
}

export class NotFound extends SwitchyardError {
  readonly kind = 'not_found' as const;
}

export class Conflict extends SwitchyardError {
  readonly kind = 'conflict' as const;
}

export class Gone extends SwitchyardError {
  readonly kind = 'gone' as const;
}

export class UnsupportedMediaType extends SwitchyardError {
  readonly kind = 'unsupported_media_type' as const;
}

export class PayloadTooLarge extends SwitchyardError {
  readonly kind = 'too_large' as const;
}

export class UpgradeRequired extends SwitchyardError {
  readonly kind = 'upgrade_required' as const;
}

export class Unavailable extends SwitchyardError {
  readonly kind = 'unavailable' as const;
}

/** An upstream (third-party) answer that the caller should see with its status. */
export class UpstreamError extends SwitchyardError {
  readonly kind = 'upstream' as const;
  constructor(
    code: string,
    message: string,
    readonly status: number,
    payload?: unknown,
    /** The provider's answer behind it (status, rate-limit headers, body), as Nango's `error.upstream`. */
    readonly upstream?: { status: number; headers: Record<string, unknown>; body: unknown },
  ) {
    super(code, message, payload);
  }
}
