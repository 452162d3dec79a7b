/**
 * @module features/scripts/response-data — a provider's response body as a script's get/post/…
 * gives it, by the request's `responseType` as Nango's axios on Node does: the bytes (a Buffer) for
 * `arraybuffer` and `stream`, the text for `text` and `blob`, otherwise JSON when it is JSON.
 * The platform's context and the CLI's dryrun both answer with it.
 */
import type { ProxyConfig } from '../../sdk/types.js';
import type { PageResponse } from './paginate.js';
import { trailingMember } from './trailing-member.js';

function parseBody(body: Buffer | null, headers: Record<string, string | string[]>): unknown {
  if (!body || body.length === 0) return null;
  const type = String(headers['content-type'] ?? '');
  const text = body.toString('utf8');
  if (/json/i.test(type) || /^[[{]/.test(text.trim())) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** The response body as `responseType` asks, as Nango's axios on Node gives it. */
export function responseData(body: Buffer | null, headers: Record<string, string | string[]>, type: ProxyConfig['responseType']): unknown {
  if (type === 'arraybuffer' || type === 'stream') return body ?? Buffer.alloc(0);
  if (type === 'text' || type === 'blob') return (body?.toString('utf8') ?? '').replace(/^\uFEFF/, '');
  return parseBody(body, headers);
}

/**
 * A paginated page's response: `data` as responseData gives it, parsed when it is first read, and
 * `peek`, which reads a member that ends a JSON body (trailingMember) before that.
 */
export function pageResponse(status: number, headers: Record<string, string | string[]>, body: Buffer | null, type: ProxyConfig['responseType']): PageResponse {
  let data: unknown;
  let parsed = false;
  const res = { status, headers } as PageResponse;
  Object.defineProperty(res, 'data', {
    enumerable: true,
    configurable: true,
    get: () => {
      if (!parsed) [data, parsed] = [responseData(body, headers, type), true];
      return data;
    },
    set: (value: unknown) => void ([data, parsed] = [value, true]),
  });
  const json = (type === undefined || type === 'json') && /json/i.test(String(headers['content-type'] ?? ''));
  Object.defineProperty(res, 'peek', { configurable: true, value: (key: string) => (json && body && !parsed ? trailingMember(body, key) : undefined) });
  return res;
}
