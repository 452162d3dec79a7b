/* eslint-disable @typescript-eslint/no-explicit-any -- setTimeout passes any arguments through, as Node and the DOM type it */
/**
 * The globals and modules a script has in Switchyard's sandbox, for `switchyard compile`'s
 * type-check (its compiler options add this folder as the only `types`: no DOM, no Node). Only what
 * the isolate provides is declared: URL, URLSearchParams, TextEncoder, TextDecoder
 * (lib/sandbox/isolate/polyfills), setTimeout, clearTimeout and console (lib/sandbox/isolate/prelude.ts).
 * Anything else (Buffer, fetch, process, atob…) stays a "Cannot find name" error naming it.
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
  [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
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
  interface Hash {
    update(data: string | Uint8Array): Hash;
    digest(encoding: 'hex' | 'base64' | 'base64url'): string;
  }
  export function randomUUID(): string;
  export function createHash(algorithm: string): Hash;
  export function createHmac(algorithm: string, key: string | Uint8Array): Hash;
  const crypto: { randomUUID: typeof randomUUID; createHash: typeof createHash; createHmac: typeof createHmac };
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
