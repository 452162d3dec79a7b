/**
 * @module sandbox/isolate/polyfills/utf8 — UTF-8 encoding and decoding as the WHATWG Encoding standard does
 * it (lone surrogates become U+FFFD; invalid sequences become U+FFFD, or throw when fatal).
 */

export function utf8Encode(input: unknown): Uint8Array {
  const str = String(input);
  const out = new Uint8Array(str.length * 3);
  let n = 0;
  for (let i = 0; i < str.length; i++) {
    let c = str.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < str.length ? str.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else c = 0xfffd;
    } else if (c >= 0xdc00 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 63);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
  }
  return out.slice(0, n);
}

export function utf8Decode(bytes: Uint8Array, fatal = false): string {
  const units: number[] = [];
  let out = '';
  const n = bytes.length;
  let i = 0;
  const bad = (): number => {
    if (fatal) throw new TypeError('The encoded data was not valid for encoding utf-8');
    return 0xfffd;
  };
  while (i < n) {
    const b = bytes[i];
    let cp = 0;
    if (b < 0x80) {
      cp = b;
      i++;
    } else {
      let need = 0;
      let lower = 0x80;
      let upper = 0xbf;
      if (b >= 0xc2 && b <= 0xdf) {
        need = 1;
        cp = b & 0x1f;
      } else if (b >= 0xe0 && b <= 0xef) {
        need = 2;
        cp = b & 0xf;
        if (b === 0xe0) lower = 0xa0;
        if (b === 0xed) upper = 0x9f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3;
        cp = b & 7;
        if (b === 0xf0) lower = 0x90;
        if (b === 0xf4) upper = 0x8f;
      }
      if (need === 0) {
        cp = bad();
        i++;
      } else {
        let j = 1;
        for (; j <= need; j++) {
          const c = bytes[i + j];
          if (i + j >= n || c < lower || c > upper) break;
          lower = 0x80;
          upper = 0xbf;
          cp = (cp << 6) | (c & 0x3f);
        }
        if (j <= need) {
          cp = bad();
          i += j;
        } else i += need + 1;
      }
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else units.push(cp);
    if (units.length >= 8192) {
      out += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  return out + String.fromCharCode(...units);
}

/** The bytes of an ArrayBuffer or a view of one (no copy); nothing for undefined. */
export function bytesOf(input: unknown): Uint8Array {
  if (input === undefined) return new Uint8Array(0);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError('The "input" argument must be an ArrayBuffer or an ArrayBufferView');
}
