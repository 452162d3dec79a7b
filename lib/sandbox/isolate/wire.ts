/**
 * @module sandbox/isolate/wire — how a body crosses the bridge between the host and the isolate,
 * which carries JSON only: bytes (a Buffer, any typed array, an ArrayBuffer) as base64 under
 * `bytes`, anything else as itself under `data`. The wrapper, not a marker inside the value, says
 * which, so no provider's JSON can be taken for bytes. Inside the isolate bytes become a Buffer,
 * as Node's axios gives Nango's functions a binary body.
 */
import { base64Of, fromBase64 } from './bytes.js';

export type WireBody = { data: unknown } | { bytes: string };

/** The bytes of a binary value, or null for any other value. */
export const bytesOf = (v: unknown): Uint8Array | null => {
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return null;
};

/** base64 of a binary request body, or null when the body is not bytes (it then travels as JSON). */
export const bytesOut = (v: unknown): string | null => {
  const bytes = bytesOf(v);
  return bytes ? base64Of(bytes, false) : null;
};

interface BufferClass {
  from(bytes: ArrayBuffer): Uint8Array;
}

/** A body from the host, bytes rebuilt as the isolate's Buffer (polyfills/buffer.ts, installed before this runs). */
export const fromWire = (body: WireBody | null | undefined): unknown => {
  if (!body || typeof body !== 'object') return body;
  if ('bytes' in body) return (globalThis as unknown as { Buffer: BufferClass }).Buffer.from(fromBase64(body.bytes).buffer as ArrayBuffer);
  return body.data;
};

/**
 * A response body as Node's axios gives it for `responseType` (what Nango's functions expect):
 * a Buffer for `arraybuffer`, a readable stream of it for `stream`. Other types arrive as the
 * host made them (JSON, or text for `text` and `blob`).
 */
export const asResponseType = (data: unknown, responseType: unknown): unknown =>
  responseType === 'stream' && data instanceof Uint8Array ? new BodyStream(data) : data;

type Listener = (arg?: unknown) => void;

/**
 * The body of a `stream` response: already whole, read as a Node Readable is by functions (`for
 * await` of its chunks, or its `data` and `end` events), one chunk.
 */
class BodyStream {
  #listeners: Record<string, Listener[]> = {};
  #started = false;
  constructor(private readonly chunk: Uint8Array) {}
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array, void, undefined> {
    if (this.chunk.length > 0) yield this.chunk;
  }
  on(event: string, listener: Listener): this {
    (this.#listeners[event] ??= []).push(listener);
    if ((event === 'data' || event === 'end') && !this.#started) {
      this.#started = true;
      void Promise.resolve().then(() => {
        if (this.chunk.length > 0) for (const l of this.#listeners.data ?? []) l(this.chunk);
        for (const l of this.#listeners.end ?? []) l();
      });
    }
    return this;
  }
  once(event: string, listener: Listener): this {
    return this.on(event, listener);
  }
}
