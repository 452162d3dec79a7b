/**
 * @module features/scripts/uncontrolled-fetch — a function's `nango.uncontrolledFetch`: a request to
 * a URL the script builds itself, through the provider HTTP client (so the outbound address policy
 * checks the address it connects to, and the call is in the request log), never with the
 * connection's credentials. As Nango's runner: a URL the policy refuses is an ActionError
 * `url_not_allowed`; any HTTP status is answered (not thrown). Redirects are not followed.
 */
import { ActionError } from '../../sdk/errors.js';
import type { FetchResponse, UncontrolledFetchOptions } from '../../sdk/types.js';
import { AddressNotAllowed, InvalidUrl, type ProviderHttpClient, type RequestContext } from '../../lib/http/index.js';

/** Statuses whose response has no body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

export async function uncontrolledFetch(http: ProviderHttpClient, options: UncontrolledFetchOptions, context: RequestContext): Promise<FetchResponse> {
  const href = typeof options?.url === 'string' ? options.url : String(options?.url?.href ?? '');
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw new ActionError({ code: 'url_not_allowed', message: 'This URL is not allowed by server configuration.' });
  }
  try {
    const res = await http.request({
      method: (options.method ?? 'GET').toUpperCase(),
      baseUrl: url.origin,
      path: `${url.pathname}${url.search}`,
      headers: options.headers ?? {},
      body: options.body ?? undefined,
      auth: { type: 'none' },
      context,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers))
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) headers.append(name, v);
    const body = NO_BODY.has(res.status) ? null : new Uint8Array(res.body ?? Buffer.alloc(0));
    const response = new Response(body, { status: res.status, headers });
    Object.defineProperty(response, 'url', { value: res.url });
    return response;
  } catch (err) {
    if (err instanceof AddressNotAllowed || err instanceof InvalidUrl) {
      throw new ActionError({ code: 'url_not_allowed', message: 'This URL is not allowed by server configuration.' });
    }
    throw err;
  }
}
