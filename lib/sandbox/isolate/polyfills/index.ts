/**
 * @module sandbox/isolate/polyfills — the web APIs scripts and their libraries expect that plain V8 lacks:
 * `URL` (WHATWG parsing of special and other schemes, IPv4/IPv6 hosts, punycode for non-ASCII
 * domains; no Windows drive letters in file URLs, NFKC instead of full IDNA mapping),
 * `URLSearchParams` (linked to its URL), `TextEncoder` and `TextDecoder` (UTF-8 only, no streaming).
 * zod's `z.url()` and generated clients rely on them. And what Node gives Nango's functions that
 * they use: `Buffer` (a subset), `atob`/`btoa`, `Headers`.
 *
 * This folder runs inside the isolate, not in Node: it is type-checked with the ECMAScript library
 * only (../tsconfig.json: no DOM, no Node types) and bundled into one script by ../../isolate-scripts.ts,
 * evaluated in each isolate before the prelude. A global that already exists is left alone.
 */
import { atob, btoa, Buffer } from './buffer.js';
import { Headers } from './headers.js';
import { TextDecoder, TextEncoder } from './text-encoding.js';
import { URL, URLSearchParams } from './url.js';

const install = (name: string, value: unknown): void => {
  if (typeof (globalThis as Record<string, unknown>)[name] === 'undefined')
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
};

install('TextEncoder', TextEncoder);
install('TextDecoder', TextDecoder);
install('URLSearchParams', URLSearchParams);
install('URL', URL);
install('Buffer', Buffer);
install('atob', atob);
install('btoa', btoa);
install('Headers', Headers);
