/**
 * @module sandbox/isolate/polyfills/percent — percent-encoding with the WHATWG URL encode sets, and the
 * application/x-www-form-urlencoded serializer and parser.
 */
import { utf8Decode, utf8Encode } from './utf8.js';

/** A set of code points to percent-encode (besides C0 controls and non-ASCII, always encoded). */
export type EncodeSet = ReadonlySet<number>;

const HEX = '0123456789ABCDEF';
const hexByte = (b: number): string => '%' + HEX[b >> 4] + HEX[b & 15];
const setOf = (chars: string, base: EncodeSet): EncodeSet => {
  const s = new Set(base);
  for (const ch of chars) s.add(ch.charCodeAt(0));
  return s;
};

export const C0: EncodeSet = new Set();
export const FRAGMENT = setOf(' "<>`', C0);
export const QUERY = setOf(' "#<>', C0);
export const SPECIAL_QUERY = setOf("'", QUERY);
export const PATH = setOf('?`{}', QUERY);
export const USERINFO = setOf('/:;=@[\\]^|', PATH);

export function percentEncode(str: string, set: EncodeSet): string {
  let out = '';
  for (const ch of str) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || c > 0x7e || set.has(c)) for (const b of utf8Encode(ch)) out += hexByte(b);
    else out += ch;
  }
  return out;
}

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

export function percentDecode(str: string): Uint8Array {
  const bytes = utf8Encode(str);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 37 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out[n++] = parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16);
      i += 2;
    } else out[n++] = bytes[i];
  }
  return out.subarray(0, n);
}

export function formEncode(str: string): string {
  let out = '';
  for (const b of utf8Encode(str)) {
    if (b === 0x20) out += '+';
    else if ((b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 42 || b === 45 || b === 46 || b === 95)
      out += String.fromCharCode(b);
    else out += hexByte(b);
  }
  return out;
}

export function formParse(input: unknown): [string, string][] {
  const list: [string, string][] = [];
  for (const part of String(input).split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = eq >= 0 ? part.slice(0, eq) : part;
    const value = eq >= 0 ? part.slice(eq + 1) : '';
    list.push([utf8Decode(percentDecode(name.replace(/\+/g, ' '))), utf8Decode(percentDecode(value.replace(/\+/g, ' ')))]);
  }
  return list;
}
