/**
 * @module features/webhooks/post — one HTTP attempt of a webhook to the developer's backend, with undici
 * directly (not the provider client: no auth injection, no request log of a third party). The
 * address policy applies at connect time, so a webhook URL that starts resolving to a private
 * address is refused unless allow-listed.
 */
import { Agent } from 'undici';
import type { Readable } from 'node:stream';
import { assertLiteralHostAllowed, createPinnedLookup } from '../../lib/http/address-policy.js';
import { AddressNotAllowed, InvalidUrl } from '../../lib/http/errors.js';
import { retryAfterMs } from '../../lib/http/retry-after.js';

export const WEBHOOK_TIMEOUT_MS = 20_000;
export const USER_AGENT = 'switchyard/0.67.0';
export const EXCERPT_BYTES = 1024;

export type PostOutcome =
  | { kind: 'delivered'; status: number; excerpt: string | null }
  /** Worth another attempt: network error, timeout, 5xx, 408, 429. */
  | { kind: 'retry'; status: number | null; error: string; excerpt: string | null; retryAfterMs: number | null }
  /** Final: another attempt would get the same answer (3xx, 4xx other than 408/429, a refused address). */
  | { kind: 'final'; status: number | null; error: string; excerpt: string | null };

async function readExcerpt(body: Readable): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    chunks.push(buf);
    size += buf.length;
    if (size >= EXCERPT_BYTES) break; // leaving the loop destroys the stream: the rest is not read
  }
  if (size === 0) return null;
  return Buffer.concat(chunks)
    .subarray(0, EXCERPT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

export interface WebhookPoster {
  post(url: string, body: string, headers: Record<string, string>): Promise<PostOutcome>;
  close(): Promise<void>;
}

export function createWebhookPoster(allowedPrivateHosts: readonly string[], timeoutMs = WEBHOOK_TIMEOUT_MS): WebhookPoster {
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    connect: { lookup: createPinnedLookup(allowedPrivateHosts), timeout: Math.min(timeoutMs, 10_000) },
  });
  return {
    async post(url, body, headers) {
      let target: URL;
      try {
        target = new URL(url);
        if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new InvalidUrl(`the URL scheme must be http or https`);
        assertLiteralHostAllowed(target.hostname, allowedPrivateHosts);
      } catch (err) {
        return { kind: 'final', status: null, error: (err as Error).message, excerpt: null };
      }
      try {
        const res = await agent.request({
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const excerpt = await readExcerpt(res.body).catch(() => null);
        const status = res.statusCode;
        if (status >= 200 && status < 300) return { kind: 'delivered', status, excerpt };
        if (status >= 500 || status === 408 || status === 429) {
          return { kind: 'retry', status, error: `HTTP ${status}`, excerpt, retryAfterMs: retryAfterMs(res.headers) };
        }
        return { kind: 'final', status, error: `HTTP ${status}`, excerpt };
      } catch (err) {
        const cause = (err as { cause?: unknown }).cause;
        if (err instanceof AddressNotAllowed || cause instanceof AddressNotAllowed) {
          return { kind: 'final', status: null, error: (cause instanceof AddressNotAllowed ? cause : (err as Error)).message, excerpt: null };
        }
        const e = err as NodeJS.ErrnoException;
        const code = e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timeout' : (e.code ?? e.name);
        return { kind: 'retry', status: null, error: `${code}: ${e.message}`, excerpt: null, retryAfterMs: null };
      }
    },
    close: () => agent.close(),
  };
}
