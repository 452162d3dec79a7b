/**
 * @module sandbox/isolate/fetch — the global `fetch` Nango's runtime (Node) gives functions. It goes
 * through the host's `uncontrolledFetch` (features/scripts/uncontrolled-fetch.ts): the outbound
 * address policy, the request log, never the connection's credentials, redirects not followed; a
 * refused address rejects as `nango.uncontrolledFetch` does. Bodies: a string, URLSearchParams
 * (form-encoded, as Node sends it) or bytes (./wire.ts). There is no Request class: a Request-like
 * object with `url` (and `method`, `headers`) is read as one.
 */
import type { FetchResponse } from './fetch-response.js';
import type { Headers } from './polyfills/headers.js';
import { bytesOut } from './wire.js';

type Send = (options: { url: string; method: string; headers: Record<string, string>; body: string | null }, bytes: string | null) => Promise<FetchResponse>;
type Init = { method?: unknown; headers?: unknown; body?: unknown } | null | undefined;

const G = globalThis as unknown as { Headers: typeof Headers; URLSearchParams: new () => object; fetch?: unknown };

const urlOf = (input: unknown): string => {
  if (input !== null && typeof input === 'object') {
    if ('href' in input) return String(input.href);
    if ('url' in input) return String(input.url);
  }
  return String(input);
};

/** Node's content type for a body the caller did not type. */
const defaultType = (body: unknown): string | null => {
  if (typeof body === 'string') return 'text/plain;charset=UTF-8';
  if (body instanceof G.URLSearchParams) return 'application/x-www-form-urlencoded;charset=UTF-8';
  return null;
};

export const installFetch = (send: Send): void => {
  G.fetch = async (input: unknown, init?: Init): Promise<FetchResponse> => {
    const request = (input !== null && typeof input === 'object' && !('href' in input) ? input : {}) as NonNullable<Init>;
    const options = { ...request, ...init };
    const headers = new G.Headers((options.headers ?? undefined) as ConstructorParameters<typeof Headers>[0]);
    const body = options.body ?? null;
    const type = defaultType(body);
    if (type && !headers.has('content-type')) headers.set('content-type', type);
    const bytes = bytesOut(body);
    const plain: Record<string, string> = {};
    headers.forEach((value, name) => (plain[name] = value));
    const method = String(options.method ?? 'GET').toUpperCase();
    return send({ url: urlOf(input), method, headers: plain, body: bytes === null && body !== null ? String(body) : null }, bytes);
  };
};
