/**
 * @module sandbox/isolate/bytes — bytes as latin1 text (one char a byte: how they cross the host
 * callbacks), hex and base64, inside the isolate (no Buffer, no atob/btoa there).
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
export const fromBase64 = (s: string): Uint8Array => {
  const clean = s
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .replace(/[^A-Za-z0-9+/]/g, '');
  const out: number[] = [];
  for (let i = 0; i < clean.length; i += 4) {
    const chunk = clean.slice(i, i + 4);
    const n = [...chunk].reduce((acc, c) => (acc << 6) | B64.indexOf(c), 0) << (6 * (4 - chunk.length));
    const bytes = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
    out.push(...bytes.slice(0, Math.max(0, chunk.length - 1)));
  }
  return new Uint8Array(out);
};
