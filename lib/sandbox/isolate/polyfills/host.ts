/**
 * @module sandbox/isolate/polyfills/host — the host parser of the WHATWG URL standard: IPv4 (with its hex
 * and octal parts), IPv6 (with its compression and embedded IPv4), opaque hosts, and domains (NFKC
 * and lower case instead of the full IDNA mapping, punycode for non-ASCII labels).
 */
import { C0, percentDecode, percentEncode } from './percent.js';
import { utf8Decode } from './utf8.js';

function parseIPv4Number(s: string): number {
  if (s === '') return NaN;
  let radix = 10;
  if (/^0[xX]/.test(s)) {
    s = s.slice(2);
    radix = 16;
  } else if (s.length > 1 && s[0] === '0') {
    s = s.slice(1);
    radix = 8;
  }
  if (s === '') return 0;
  const valid = radix === 10 ? /^[0-9]+$/ : radix === 16 ? /^[0-9a-fA-F]+$/ : /^[0-7]+$/;
  return valid.test(s) ? parseInt(s, radix) : NaN;
}

function endsInNumber(input: string): boolean {
  const parts = input.split('.');
  if (parts[parts.length - 1] === '') {
    if (parts.length === 1) return false;
    parts.pop();
  }
  const last = parts[parts.length - 1];
  if (last !== '' && /^[0-9]+$/.test(last)) return true;
  return /^0[xX][0-9a-fA-F]*$/.test(last);
}

function parseIPv4(input: string): string | null {
  const parts = input.split('.');
  if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
  if (parts.length > 4) return null;
  const nums = parts.map(parseIPv4Number);
  if (nums.some((x) => Number.isNaN(x))) return null;
  for (let i = 0; i < nums.length - 1; i++) if (nums[i] > 255) return null;
  if (nums[nums.length - 1] >= Math.pow(256, 5 - nums.length)) return null;
  let ipv4 = nums[nums.length - 1];
  for (let i = 0; i < nums.length - 1; i++) ipv4 += nums[i] * Math.pow(256, 3 - i);
  const out: string[] = [];
  for (let i = 0; i < 4; i++) {
    out.unshift(String(ipv4 % 256));
    ipv4 = Math.floor(ipv4 / 256);
  }
  return out.join('.');
}

function parseIPv6(input: string): number[] | null {
  const a = [0, 0, 0, 0, 0, 0, 0, 0];
  let piece = 0;
  let compress: number | null = null;
  let p = 0;
  const len = input.length;
  const hex = (ch: string | undefined) => ch !== undefined && /[0-9a-fA-F]/.test(ch);
  const digit = (ch: string | undefined) => ch !== undefined && /[0-9]/.test(ch);
  if (input[p] === ':') {
    if (input[p + 1] !== ':') return null;
    p += 2;
    piece++;
    compress = piece;
  }
  while (p < len) {
    if (piece === 8) return null;
    if (input[p] === ':') {
      if (compress !== null) return null;
      p++;
      piece++;
      compress = piece;
      continue;
    }
    let value = 0;
    let length = 0;
    while (length < 4 && hex(input[p])) {
      value = value * 16 + parseInt(input[p], 16);
      p++;
      length++;
    }
    if (input[p] === '.') {
      if (length === 0) return null;
      p -= length;
      if (piece > 6) return null;
      let seen = 0;
      while (p < len) {
        let v4: number | null = null;
        if (seen > 0) {
          if (input[p] === '.' && seen < 4) p++;
          else return null;
        }
        if (!digit(input[p])) return null;
        while (digit(input[p])) {
          const d = Number(input[p]);
          if (v4 === null) v4 = d;
          else if (v4 === 0) return null;
          else v4 = v4 * 10 + d;
          if (v4 > 255) return null;
          p++;
        }
        a[piece] = a[piece] * 0x100 + v4!;
        seen++;
        if (seen === 2 || seen === 4) piece++;
      }
      if (seen !== 4) return null;
      break;
    } else if (input[p] === ':') {
      p++;
      if (p >= len) return null;
    } else if (p < len) return null;
    a[piece] = value;
    piece++;
  }
  if (compress !== null) {
    let swaps = piece - compress;
    piece = 7;
    while (piece !== 0 && swaps > 0) {
      const t = a[compress + swaps - 1];
      a[compress + swaps - 1] = a[piece];
      a[piece] = t;
      piece--;
      swaps--;
    }
  } else if (piece !== 8) return null;
  return a;
}

function serializeIPv6(a: number[]): string {
  let best = -1;
  let bestLen = 1;
  let cur = -1;
  let curLen = 0;
  for (let i = 0; i < 8; i++) {
    if (a[i] === 0) {
      if (cur < 0) {
        cur = i;
        curLen = 1;
      } else curLen++;
      if (curLen > bestLen) {
        best = cur;
        bestLen = curLen;
      }
    } else cur = -1;
  }
  let out = '';
  let ignore0 = false;
  for (let i = 0; i < 8; i++) {
    if (ignore0 && a[i] === 0) continue;
    ignore0 = false;
    if (best === i) {
      out += i === 0 ? '::' : ':';
      ignore0 = true;
      continue;
    }
    out += a[i].toString(16);
    if (i !== 7) out += ':';
  }
  return out;
}

/** Punycode (RFC 3492) of a label with non-ASCII characters, with its xn-- prefix. */
export function punycode(label: string): string {
  const cps = Array.from(label, (ch) => ch.codePointAt(0)!);
  const adapt = (delta: number, numPoints: number, first: boolean) => {
    delta = first ? Math.floor(delta / 700) : delta >> 1;
    delta += Math.floor(delta / numPoints);
    let k = 0;
    while (delta > 455) {
      delta = Math.floor(delta / 35);
      k += 36;
    }
    return k + Math.floor((36 * delta) / (delta + 38));
  };
  const digit = (d: number) => String.fromCharCode(d < 26 ? d + 97 : d + 22);
  let out = cps
    .filter((c) => c < 0x80)
    .map((c) => String.fromCharCode(c))
    .join('');
  const basic = out.length;
  let handled = basic;
  if (basic > 0) out += '-';
  let n = 128;
  let delta = 0;
  let bias = 72;
  while (handled < cps.length) {
    let m = Infinity;
    for (const c of cps) if (c >= n && c < m) m = c;
    delta += (m - n) * (handled + 1);
    n = m;
    for (const c of cps) {
      if (c < n) delta++;
      if (c === n) {
        let q = delta;
        for (let k = 36; ; k += 36) {
          const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
          if (q < t) break;
          out += digit(t + ((q - t) % (36 - t)));
          q = Math.floor((q - t) / (36 - t));
        }
        out += digit(q);
        bias = adapt(delta, handled + 1, handled === basic);
        delta = 0;
        handled++;
      }
    }
    delta++;
    n++;
  }
  return 'xn--' + out;
}

// eslint-disable-next-line no-control-regex -- the forbidden code points include controls
const FORBIDDEN_HOST = /[\u0000\t\n\r #/:<>?@[\\\]^|]/;
// eslint-disable-next-line no-control-regex -- the forbidden code points include controls
const FORBIDDEN_DOMAIN = /[\u0000-\u001f #%/:<>?@[\\\]^|\u007f]/;
// eslint-disable-next-line no-control-regex -- ASCII is U+0000 to U+007F
const NON_ASCII = /[^\u0000-\u007f]/;

/** The serialized host in input, or null when it is not a valid host. */
export function parseHost(input: string, special: boolean): string | null {
  if (input.startsWith('[')) {
    if (!input.endsWith(']')) return null;
    const a = parseIPv6(input.slice(1, -1));
    return a ? '[' + serializeIPv6(a) + ']' : null;
  }
  if (!special) return FORBIDDEN_HOST.test(input) ? null : percentEncode(input, C0);
  let domain = utf8Decode(percentDecode(input));
  try {
    domain = domain.normalize('NFKC');
  } catch {}
  domain = domain.toLowerCase();
  // A fuller IDNA mapping is out of reach here: dots of other scripts, then lower case and punycode.
  domain = domain.replace(/[\u3002\uff0e\uff61]/g, '.');
  if (NON_ASCII.test(domain))
    domain = domain
      .split('.')
      .map((l) => (NON_ASCII.test(l) ? punycode(l) : l))
      .join('.');
  if (domain === '' || FORBIDDEN_DOMAIN.test(domain)) return null;
  if (endsInNumber(domain)) return parseIPv4(domain);
  return domain;
}
