/**
 * @module sandbox/isolate/polyfills/buffer — the part of Node's `Buffer` Nango's functions use (they
 * run on Node, where it is a global): `from`, `alloc`, `allocUnsafe`, `concat`, `isBuffer`,
 * `isEncoding`, `byteLength`, `compare`, and on a buffer `toString`, `toJSON`, `equals`, `compare`,
 * `copy`, `slice`/`subarray` (views, as Node's), with Node's encodings. A Buffer is a Uint8Array, as
 * in Node. Also `atob` and `btoa`. What Node does with odd input (base64 with junk, an odd hex
 * string) is matched: lib/sandbox/buffer.test.ts compares each member with Node's own.
 */
import { base64Of, fromBase64, fromLatin1, hexOf, toLatin1 } from '../bytes.js';
import { utf8Decode, utf8Encode } from './utf8.js';

const ENCODINGS = ['utf8', 'utf-8', 'hex', 'base64', 'base64url', 'latin1', 'binary', 'ascii', 'ucs2', 'ucs-2', 'utf16le', 'utf-16le'];

type Encoding = 'utf8' | 'hex' | 'base64' | 'base64url' | 'latin1' | 'ascii' | 'utf16le';

function encodingOf(value: unknown): Encoding {
  if (value === undefined || value === null) return 'utf8';
  const e = String(value).toLowerCase();
  if (e === 'utf8' || e === 'utf-8') return 'utf8';
  if (e === 'binary' || e === 'latin1') return 'latin1';
  if (e === 'ucs2' || e === 'ucs-2' || e === 'utf16le' || e === 'utf-16le') return 'utf16le';
  if (e === 'hex' || e === 'base64' || e === 'base64url' || e === 'ascii') return e;
  throw new TypeError(`Unknown encoding: ${String(value)}`);
}

/** Node's hex decoding: pairs of hex digits up to the first pair that is not one. */
function decodeHex(s: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i + 1 < s.length; i += 2) {
    const pair = s.slice(i, i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) break;
    out.push(parseInt(pair, 16));
  }
  return new Uint8Array(out);
}

function encodeString(s: string, encoding: Encoding): Uint8Array {
  switch (encoding) {
    case 'utf8':
      return utf8Encode(s);
    case 'hex':
      return decodeHex(s);
    case 'base64':
    case 'base64url':
      return fromBase64(s);
    case 'latin1':
    case 'ascii':
      return fromLatin1(s);
    case 'utf16le': {
      const out = new Uint8Array(s.length * 2);
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        out[2 * i] = c & 0xff;
        out[2 * i + 1] = c >> 8;
      }
      return out;
    }
  }
}

function decodeBytes(bytes: Uint8Array, encoding: Encoding): string {
  switch (encoding) {
    case 'utf8':
      return utf8Decode(bytes);
    case 'hex':
      return hexOf(bytes);
    case 'base64':
      return base64Of(bytes, false);
    case 'base64url':
      return base64Of(bytes, true);
    case 'latin1':
      return toLatin1(bytes);
    case 'ascii':
      return toLatin1(bytes.map((b) => b & 0x7f));
    case 'utf16le': {
      let out = '';
      for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode(bytes[i]! | (bytes[i + 1]! << 8));
      return out;
    }
  }
}

const isArrayBuffer = (v: unknown): v is ArrayBuffer =>
  v instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer);

/** A toString bound as Node reads it: a negative one is 0 (not counted from the end). */
const bound = (n: unknown, length: number, fallback: number): number =>
  n === undefined ? fallback : Math.min(Math.max(Math.trunc(Number(n)) || 0, 0), length);

export class Buffer extends Uint8Array {
  static override from(value: unknown, encodingOrOffset?: unknown, length?: unknown): Buffer {
    if (typeof value === 'string') return Buffer.#of(encodeString(value, encodingOf(encodingOrOffset)));
    if (isArrayBuffer(value)) {
      const offset = encodingOrOffset === undefined ? 0 : Number(encodingOrOffset) || 0;
      if (offset > value.byteLength) throw new RangeError('"offset" is outside of buffer bounds');
      const size = length === undefined ? value.byteLength - offset : Number(length) || 0;
      if (offset + size > value.byteLength) throw new RangeError('"length" is outside of buffer bounds');
      return new Buffer(value, offset, size);
    }
    // A copy (Buffer's own slice is a view).
    if (value instanceof Uint8Array) return Buffer.#of(Uint8Array.prototype.slice.call(value));
    // Another typed array is a list of numbers, each cut to a byte.
    if (ArrayBuffer.isView(value) && 'length' in value) return Buffer.#fromArrayLike(value as unknown as ArrayLike<unknown>);
    if (typeof value === 'object' && value !== null) {
      const primitive = (value as { valueOf?: () => unknown }).valueOf?.();
      if (primitive !== undefined && primitive !== null && primitive !== value) return Buffer.from(primitive, encodingOrOffset, length);
      const o = value as { type?: unknown; data?: unknown; length?: unknown };
      if (o.type === 'Buffer' && Array.isArray(o.data)) return Buffer.#fromArrayLike(o.data as ArrayLike<unknown>);
      if (o.length !== undefined) return Buffer.#fromArrayLike(value as ArrayLike<unknown>);
    }
    throw new TypeError(
      'The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object.' +
        ` Received ${value === null ? 'null' : typeof value}`,
    );
  }

  static #fromArrayLike(list: ArrayLike<unknown>): Buffer {
    const length = typeof list.length === 'number' && list.length > 0 ? Math.floor(list.length) : 0;
    const out = new Buffer(length);
    for (let i = 0; i < length; i++) out[i] = Number(list[i]) & 0xff;
    return out;
  }

  static #of(bytes: Uint8Array): Buffer {
    return new Buffer(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);
  }

  static alloc(size: number, fill?: unknown, encoding?: unknown): Buffer {
    const out = new Buffer(Buffer.#size(size));
    if (fill !== undefined && fill !== 0 && out.length > 0) {
      const pattern =
        typeof fill === 'number' ? new Uint8Array([fill & 0xff]) : typeof fill === 'string' ? encodeString(fill, encodingOf(encoding)) : Buffer.from(fill);
      if (pattern.length === 0) throw new TypeError('The argument "value" is invalid.');
      for (let i = 0; i < out.length; i++) out[i] = pattern[i % pattern.length]!;
    }
    return out;
  }

  static allocUnsafe(size: number): Buffer {
    return new Buffer(Buffer.#size(size));
  }

  static #size(size: unknown): number {
    if (typeof size !== 'number' || !(size >= 0) || !Number.isFinite(size)) throw new RangeError(`The argument 'size' is invalid. Received ${String(size)}`);
    return Math.floor(size);
  }

  static concat(list: readonly Uint8Array[], totalLength?: number): Buffer {
    if (!Array.isArray(list)) throw new TypeError('The "list" argument must be an instance of Array');
    const total = totalLength === undefined ? list.reduce((n, b) => n + b.length, 0) : Buffer.#size(totalLength);
    const out = new Buffer(total);
    let at = 0;
    for (const b of list) {
      if (!(b instanceof Uint8Array)) throw new TypeError('The "list" argument must contain only Buffer or Uint8Array instances');
      if (at >= total) break;
      out.set(b.subarray(0, total - at), at);
      at += b.length;
    }
    return out;
  }

  static isBuffer(value: unknown): value is Buffer {
    return value instanceof Buffer;
  }

  static isEncoding(encoding: unknown): boolean {
    return typeof encoding === 'string' && ENCODINGS.includes(encoding.toLowerCase());
  }

  static byteLength(value: unknown, encoding?: unknown): number {
    if (typeof value !== 'string') {
      if (ArrayBuffer.isView(value) || isArrayBuffer(value)) return value.byteLength;
      throw new TypeError('The "string" argument must be of type string or an instance of Buffer or ArrayBuffer.');
    }
    const e = encodingOf(encoding);
    if (e === 'hex') return value.length >>> 1;
    if (e === 'base64' || e === 'base64url') {
      // Node's estimate from the length (trailing padding aside), not a decoding.
      let n = value.length;
      if (value.charCodeAt(n - 1) === 0x3d) n--;
      if (n > 1 && value.charCodeAt(n - 1) === 0x3d) n--;
      return (n * 3) >>> 2;
    }
    return encodeString(value, e).length;
  }

  static compare(a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }

  override toString(encoding?: unknown, start?: unknown, end?: unknown): string {
    const from = bound(start, this.length, 0);
    const to = bound(end, this.length, this.length);
    return decodeBytes(this.subarray(from, Math.max(from, to)), encodingOf(encoding));
  }

  toJSON(): { type: 'Buffer'; data: number[] } {
    return { type: 'Buffer', data: Array.from(this) };
  }

  equals(other: Uint8Array): boolean {
    if (!(other instanceof Uint8Array)) throw new TypeError('The "otherBuffer" argument must be an instance of Buffer or Uint8Array.');
    return Buffer.compare(this, other) === 0;
  }

  compare(target: Uint8Array, targetStart?: number, targetEnd?: number, sourceStart?: number, sourceEnd?: number): -1 | 0 | 1 {
    return Buffer.compare(this.subarray(sourceStart ?? 0, sourceEnd ?? this.length), target.subarray(targetStart ?? 0, targetEnd ?? target.length));
  }

  copy(target: Uint8Array, targetStart = 0, sourceStart = 0, sourceEnd = this.length): number {
    const bytes = this.subarray(sourceStart, Math.max(sourceStart, sourceEnd)).subarray(0, Math.max(0, target.length - targetStart));
    target.set(bytes, targetStart);
    return bytes.length;
  }

  /** A view over the same memory, as Node's (not a copy, as Uint8Array's). */
  override slice(start?: number, end?: number): Buffer {
    return this.subarray(start, end);
  }

  override subarray(start?: number, end?: number): Buffer {
    return super.subarray(start, end) as Buffer;
  }
}

class InvalidCharacterError extends Error {
  override name = 'InvalidCharacterError';
}

export function btoa(data: unknown): string {
  if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
  const s = String(data);
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) throw new InvalidCharacterError('Invalid character');
  return base64Of(fromLatin1(s), false);
}

/** The WHATWG forgiving-base64 decode: ASCII whitespace is skipped, anything else invalid throws. */
export function atob(data: unknown): string {
  if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
  let s = String(data).replace(/[\t\n\f\r ]/g, '');
  if (s.length % 4 === 0) s = s.replace(/={1,2}$/, '');
  if (s.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(s)) throw new InvalidCharacterError('The string to be decoded is not correctly encoded.');
  return toLatin1(fromBase64(s));
}
