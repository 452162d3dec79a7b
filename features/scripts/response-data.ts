/**
 * @module features/scripts/response-data — a provider's response body as a script's get/post/…
 * gives it, by the request's `responseType` as Nango's axios on Node does: the bytes (a Buffer) for
 * `arraybuffer` and `stream`, the text for `text` and `blob`, otherwise JSON when it is JSON.
 * The platform's context and the CLI's dryrun both answer with it.
 */
import type { ProxyConfig } from '../../sdk/types.js';

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
