/**
 * @module sandbox/isolate/bytes — bytes as latin1 text (one char a byte: how they cross the host
 * callbacks), hex and base64, inside the isolate (shared by the Buffer polyfill, crypto and fetch responses).
 */
const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export const toLatin1 = (bytes: Uint8Array): string => {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
};
export const fromLatin1 = (s: string): Uint8Array => {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
};
export const hexOf = (bytes: Uint8Array): string => {
  let out = '';
  for (const b of bytes) out += HEX[b >> 4]! + HEX[b & 15]!;
  return out;
};
export const base64Of = (bytes: Uint8Array, url: boolean): string => {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? B64[n & 63]! : '=';
  }
  return url ? out.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : out;
};
const B64_VALUES: Record<string, number> = { '-': 62, _: 63 };
B64.split('').forEach((c, i) => (B64_VALUES[c] = i));

/** Node's base64 decoding (either alphabet): other characters are skipped, the first `=` ends it. */
export const fromBase64 = (s: string): Uint8Array => {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const c of s) {
    if (c === '=') break;
    const v = B64_VALUES[c];
    if (v === undefined) continue;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return new Uint8Array(out);
};
