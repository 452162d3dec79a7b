/* eslint-disable @typescript-eslint/no-explicit-any -- setTimeout passes any arguments through, as Node and the DOM type it */
/**
 * The globals and modules a script has in Switchyard's sandbox, for `switchyard compile`'s
 * type-check (its compiler options add this folder as the only `types`: no DOM, no Node). Only what
 * the isolate provides is declared: URL, URLSearchParams, TextEncoder, TextDecoder
 * (lib/sandbox/isolate/polyfills), Buffer, atob, btoa, Headers, setTimeout, clearTimeout, console and
 * fetch (lib/sandbox/isolate/prelude.ts). Anything else (process, require, FormData, AbortSignal…) stays a
 * "Cannot find name" error naming it.
 */

type SandboxURLSearchParamsInit = string | URLSearchParams | Record<string, string> | Iterable<readonly [string, string]>;

declare class URLSearchParams implements Iterable<[string, string]> {
  constructor(init?: SandboxURLSearchParamsInit);
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  forEach(fn: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown): void;
  entries(): URLSearchParamsIterator<[string, string]>;
  keys(): URLSearchParamsIterator<string>;
  values(): URLSearchParamsIterator<string>;
  [Symbol.iterator](): URLSearchParamsIterator<[string, string]>;
  toString(): string;
}

interface URLSearchParamsIterator<T> extends IteratorObject<T, BuiltinIteratorReturn, unknown> {
  [Symbol.iterator](): URLSearchParamsIterator<T>;
}

declare class URL {
  constructor(url: string | URL, base?: string | URL);
  static canParse(url: string | URL, base?: string | URL): boolean;
  static parse(url: string | URL, base?: string | URL): URL | null;
  href: string;
  readonly origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  readonly searchParams: URLSearchParams;
  hash: string;
  toString(): string;
  toJSON(): string;
}

declare class TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView): string;
}

type BufferEncoding = 'ascii' | 'utf8' | 'utf-8' | 'utf16le' | 'utf-16le' | 'ucs2' | 'ucs-2' | 'base64' | 'base64url' | 'latin1' | 'binary' | 'hex';
type WithImplicitCoercion<T> = T | { valueOf(): T } | (T extends string ? { [Symbol.toPrimitive](hint: 'string'): T } : never);

/** Node's Buffer, the members the sandbox provides. */
interface Buffer<TArrayBuffer extends ArrayBufferLike = ArrayBufferLike> extends Uint8Array<TArrayBuffer> {
  toString(encoding?: BufferEncoding, start?: number, end?: number): string;
  toJSON(): { type: 'Buffer'; data: number[] };
  equals(otherBuffer: Uint8Array): boolean;
  compare(target: Uint8Array, targetStart?: number, targetEnd?: number, sourceStart?: number, sourceEnd?: number): -1 | 0 | 1;
  copy(target: Uint8Array, targetStart?: number, sourceStart?: number, sourceEnd?: number): number;
  slice(start?: number, end?: number): Buffer<ArrayBuffer>;
  subarray(start?: number, end?: number): Buffer<TArrayBuffer>;
}

interface BufferConstructor {
  from(array: WithImplicitCoercion<ArrayLike<number>>): Buffer<ArrayBuffer>;
  from<TArrayBuffer extends WithImplicitCoercion<ArrayBufferLike>>(
    arrayBuffer: TArrayBuffer,
    byteOffset?: number,
    length?: number,
  ): Buffer<TArrayBuffer extends WithImplicitCoercion<infer A extends ArrayBufferLike> ? A : ArrayBufferLike>;
  from(string: WithImplicitCoercion<string>, encoding?: BufferEncoding): Buffer<ArrayBuffer>;
  from(arrayOrString: WithImplicitCoercion<ArrayLike<number> | string>): Buffer<ArrayBuffer>;
  alloc(size: number, fill?: string | Uint8Array | number, encoding?: BufferEncoding): Buffer<ArrayBuffer>;
  allocUnsafe(size: number): Buffer<ArrayBuffer>;
  concat(list: readonly Uint8Array[], totalLength?: number): Buffer<ArrayBuffer>;
  isBuffer(obj: any): obj is Buffer;
  isEncoding(encoding: string): encoding is BufferEncoding;
  byteLength(string: string | ArrayBufferView | ArrayBufferLike, encoding?: BufferEncoding): number;
  compare(buf1: Uint8Array, buf2: Uint8Array): -1 | 0 | 1;
  readonly prototype: Buffer;
}
declare const Buffer: BufferConstructor;

declare function atob(data: string): string;
declare function btoa(data: string): string;

type HeadersInit = [string, string][] | Record<string, string> | Headers;

declare class Headers implements Iterable<[string, string]> {
  constructor(init?: HeadersInit);
  append(name: string, value: string): void;
  delete(name: string): void;
  get(name: string): string | null;
  getSetCookie(): string[];
  has(name: string): boolean;
  set(name: string, value: string): void;
  forEach(fn: (value: string, key: string, parent: Headers) => void, thisArg?: any): void;
  entries(): HeadersIterator<[string, string]>;
  keys(): HeadersIterator<string>;
  values(): HeadersIterator<string>;
  [Symbol.iterator](): HeadersIterator<[string, string]>;
}

interface HeadersIterator<T> extends IteratorObject<T, BuiltinIteratorReturn, unknown> {
  [Symbol.iterator](): HeadersIterator<T>;
}

/**
 * The DOM's Response, the members the answer of fetch and nango.uncontrolledFetch has (a type only:
 * there is no Response constructor in the sandbox).
 */
interface Response {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly redirected: boolean;
  readonly type: string;
  readonly headers: Headers;
  readonly bodyUsed: boolean;
  text(): Promise<string>;
  json(): Promise<any>;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array<ArrayBuffer>>;
  clone(): Response;
}

/** The bodies the sandbox's fetch sends. */
type BodyInit = string | URLSearchParams | ArrayBuffer | ArrayBufferView;

interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit | null;
}

/** A request as fetch reads one (a type only: there is no Request constructor in the sandbox). */
interface Request {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
}

/**
 * Node's fetch as the sandbox gives it: through the outbound address policy, never with the
 * connection's credentials, redirects not followed (lib/sandbox/isolate/fetch.ts).
 */
declare function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;

declare function setTimeout(fn: (...args: any[]) => void, ms?: number, ...args: any[]): number;
declare function clearTimeout(id: number | undefined): void;

declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  debug(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
};

/** Node's `url` module as the sandbox gives it to scripts: the WHATWG classes. */
declare module 'url' {
  export type URL = globalThis.URL;
  export const URL: typeof globalThis.URL;
  export type URLSearchParams = globalThis.URLSearchParams;
  export const URLSearchParams: typeof globalThis.URLSearchParams;
}
declare module 'node:url' {
  export * from 'url';
}

/** The part of Node's `crypto` module the sandbox gives scripts. */
declare module 'crypto' {
  type BinaryToTextEncoding = 'base64' | 'base64url' | 'hex' | 'binary';
  type Encoding = BinaryToTextEncoding | 'utf8' | 'utf-8' | 'latin1' | 'ascii' | 'utf16le' | 'ucs2' | 'ucs-2';
  interface Hash {
    update(data: string | ArrayBufferView): Hash;
    update(data: string, inputEncoding: Encoding): Hash;
    digest(): Buffer<ArrayBuffer>;
    digest(encoding: BinaryToTextEncoding): string;
    copy(): Hash;
  }
  interface Hmac {
    update(data: string | ArrayBufferView): Hmac;
    update(data: string, inputEncoding: Encoding): Hmac;
    digest(): Buffer<ArrayBuffer>;
    digest(encoding: BinaryToTextEncoding): string;
  }
  export function randomUUID(): string;
  export function randomBytes(size: number): Buffer<ArrayBuffer>;
  export function getRandomValues<T extends ArrayBufferView>(typedArray: T): T;
  export function timingSafeEqual(a: ArrayBufferView, b: ArrayBufferView): boolean;
  export function createHash(algorithm: string): Hash;
  export function createHmac(algorithm: string, key: string | ArrayBufferView): Hmac;
  const crypto: {
    randomUUID: typeof randomUUID;
    randomBytes: typeof randomBytes;
    getRandomValues: typeof getRandomValues;
    timingSafeEqual: typeof timingSafeEqual;
    createHash: typeof createHash;
    createHmac: typeof createHmac;
  };
  export default crypto;
}
declare module 'node:crypto' {
  export * from 'crypto';
  export { default } from 'crypto';
}

// Modules Nango's CLI allows in functions, typed loosely (every member `any`): their run-time
// support is the sandbox's concern; the type-check only lets the imports through, as Nango's does.
declare module 'soap';
declare module 'unzipper';
declare module 'botbuilder';
