/**
 * @module api/middleware/body-limit — one limit on every request body, counted on the stream: a
 * declared Content-Length over it is refused before anything is read, and a chunked body fails the
 * moment it passes it. The body is not buffered here, so the proxy still streams uploads.
 */
import type { MiddlewareHandler } from 'hono';
import { PayloadTooLarge } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';

/**
 * After an overflow the rest of the body is read and dropped, up to this much: a client that is
 * still sending then gets to read its 413 (closing the socket mid-upload resets it), and the
 * connection stays usable. Past it the body is cancelled and the connection dropped.
 */
const MAX_DISCARD_BYTES = 64 * 1024 * 1024;

/** Methods whose fetch Request cannot carry a body (fetch refuses TRACE and CONNECT outright). */
const WITHOUT_FETCH_BODY = new Set(['GET', 'HEAD', 'TRACE', 'CONNECT']);

function tooLarge(limit: number): PayloadTooLarge {
  return new PayloadTooLarge('payload_too_large', `Request bodies are limited to ${limit} bytes`);
}

async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let dropped = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    dropped += value.byteLength;
    if (dropped > MAX_DISCARD_BYTES) return reader.cancel();
  }
}

/**
 * The body, failing with PayloadTooLarge once more than `limit` bytes have come. The request's own
 * body is first touched on the first read: a body nobody reads is left to the server, which drains
 * it so that the connection can carry the next request.
 */
function limitedStream(raw: Request, limit: number): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let seen = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= raw.body!.getReader();
        const { done, value } = await reader.read();
        if (done) return controller.close();
        seen += value.byteLength;
        if (seen <= limit) return controller.enqueue(value);
        controller.error(tooLarge(limit));
        discardRest(reader).catch(() => undefined);
      },
      cancel: (reason) => reader?.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

export function bodyLimit(limit: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    const chunked = raw.headers.has('transfer-encoding');
    const declared = raw.headers.get('content-length');
    if (!chunked && Number(declared) > limit) throw tooLarge(limit);
    if (WITHOUT_FETCH_BODY.has(raw.method) || (!chunked && !(Number(declared) > 0))) return next();
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      signal: raw.signal,
      body: limitedStream(raw, limit),
      duplex: 'half',
    } as RequestInit);
    return next();
  };
}
