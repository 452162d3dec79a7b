/**
 * @module sandbox/isolate/fetch-response — what `nango.uncontrolledFetch` answers inside the isolate:
 * the parts of a fetch Response functions read (status, headers, a buffered body read once as text,
 * JSON or bytes), built from the host's answer (lib/sandbox/bridge.ts).
 */
import { fromBase64 } from './bytes.js';
import type { Headers } from './polyfills/headers.js';
import { utf8Decode } from './polyfills/utf8.js';

export interface FetchAnswer {
  status: number;
  statusText: string;
  url: string;
  headers: [string, string][];
  /** base64 */
  body: string;
}

/** The isolate's `Headers` (./polyfills/headers.ts, installed before this runs), so `instanceof Headers` holds. */
const HeadersClass = (globalThis as unknown as { Headers: typeof Headers }).Headers;

export class FetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly redirected = false;
  readonly type = 'basic';
  private used = false;
  private readonly data: Uint8Array;
  constructor(private readonly answer: FetchAnswer) {
    this.status = answer.status;
    this.statusText = answer.statusText;
    this.url = answer.url;
    this.ok = answer.status >= 200 && answer.status < 300;
    this.headers = new HeadersClass(answer.headers);
    this.data = fromBase64(answer.body);
  }
  get bodyUsed(): boolean {
    return this.used;
  }
  private consume(): Uint8Array {
    if (this.used) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
    return this.data;
  }
  async text(): Promise<string> {
    return utf8Decode(this.consume());
  }
  async json(): Promise<unknown> {
    return JSON.parse(utf8Decode(this.consume()));
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.consume();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
  async bytes(): Promise<Uint8Array> {
    return this.consume().slice();
  }
  clone(): FetchResponse {
    if (this.used) throw new TypeError('Response.clone: Body has already been consumed.');
    return new FetchResponse(this.answer);
  }
}
