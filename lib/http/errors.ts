/**
 * @module http/errors — the failures of a call to a third party. Plain classes, not SwitchyardError:
 * the API maps them to HTTP answers and the activities to Temporal failures, each by `retryable`.
 */

export type ResponseHeaders = Record<string, string | string[]>;

/** What an error keeps of the upstream answer. `url` is redacted; `body` is JSON when it parses, else text. */
export interface UpstreamResponseInfo {
  status: number;
  headers: ResponseHeaders;
  body: unknown;
  url: string;
}

export abstract class ProviderError extends Error {
  abstract readonly retryable: boolean;
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A 429. `retryAfterMs` comes from the response headers when `fromHeaders`, else it is a default. */
export class RateLimited extends ProviderError {
  readonly retryable = true;
  readonly status = 429;
  constructor(
    readonly retryAfterMs: number,
    readonly fromHeaders: boolean,
    readonly response: UpstreamResponseInfo,
  ) {
    super('rate_limited', `rate limited by ${response.url}; retry after ${retryAfterMs} ms${fromHeaders ? '' : ' (default)'}`);
  }
}

/** Any other status ≥ 400. 5xx and 408 are worth retrying; other 4xx are the caller's to fix. */
export class UpstreamHttpError extends ProviderError {
  readonly retryable: boolean;
  constructor(
    readonly status: number,
    readonly headers: ResponseHeaders,
    readonly body: unknown,
    readonly url: string,
  ) {
    super('upstream_http_error', `upstream answered ${status} for ${url}`);
    this.retryable = status >= 500 || status === 408;
  }
}

/**
 * The exchange failed below HTTP: refused, reset, DNS, or `timeout`. Retryable, except TLS
 * certificate failures, which do not heal by waiting. `sent` is false only when the request surely
 * never left (no connection was made); a reset or timeout afterwards may follow a delivered request.
 */
export class NetworkError extends ProviderError {
  readonly retryable: boolean;
  readonly sent: boolean;
  constructor(code: string, message: string, options?: { cause?: unknown; retryable?: boolean; sent?: boolean }) {
    super(code, message, options);
    this.retryable = options?.retryable ?? true;
    this.sent = options?.sent ?? true;
  }
}

export class AddressNotAllowed extends ProviderError {
  readonly retryable = false;
  constructor(
    readonly host: string,
    readonly address?: string,
  ) {
    super(
      'address_not_allowed',
      address && address !== host
        ? `${host} resolves to ${address}, a private, loopback or link-local address that is not allowed`
        : `${host} is a private, loopback or link-local address that is not allowed`,
    );
  }
}

/** A URL that cannot be called at all: unparsable, or a scheme other than http(s). */
export class InvalidUrl extends ProviderError {
  readonly retryable = false;
  constructor(message: string) {
    super('invalid_url', message);
  }
}

export class ResponseTooLarge extends ProviderError {
  readonly retryable = false;
  constructor(readonly limit: number) {
    super('response_too_large', `the response body is larger than ${limit} bytes`);
  }
}
