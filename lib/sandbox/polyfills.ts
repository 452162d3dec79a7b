/**
 * @module sandbox/polyfills — the web APIs scripts and their libraries expect that plain V8 lacks:
 * `URL` (WHATWG parsing of special and other schemes, IPv4/IPv6 hosts, punycode for non-ASCII
 * domains; no Windows drive letters in file URLs, NFKC instead of full IDNA mapping),
 * `URLSearchParams` (linked to its URL), `TextEncoder` and `TextDecoder` (UTF-8 only, no streaming).
 * zod's `z.url()` and generated clients rely on them. Pure JavaScript, evaluated in each isolate
 * before the prelude; a global that already exists is left alone.
 */
export const POLYFILLS = String.raw`(function () {
  'use strict';
  const G = globalThis;
  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const install = (name, value) => {
    if (typeof G[name] === 'undefined') Object.defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });
  };

  // ---- UTF-8 ------------------------------------------------------------------------------
  function utf8Encode(input) {
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

  function utf8Decode(bytes, fatal) {
    const units = [];
    let out = '';
    const n = bytes.length;
    let i = 0;
    const bad = () => {
      if (fatal) throw new TypeError('The encoded data was not valid for encoding utf-8');
      return 0xfffd;
    };
    while (i < n) {
      const b = bytes[i];
      let cp;
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
        out += String.fromCharCode.apply(null, units);
        units.length = 0;
      }
    }
    return out + String.fromCharCode.apply(null, units);
  }

  const bytesOf = (input) => {
    if (input === undefined) return new Uint8Array(0);
    if (input instanceof ArrayBuffer) return new Uint8Array(input);
    if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeError('The "input" argument must be an ArrayBuffer or an ArrayBufferView');
  };

  class TextEncoder {
    get encoding() {
      return 'utf-8';
    }
    encode(input = '') {
      return utf8Encode(input);
    }
    encodeInto(source, destination) {
      const str = String(source);
      let read = 0;
      let written = 0;
      for (let i = 0; i < str.length; ) {
        const c = str.codePointAt(i);
        const width = c > 0xffff ? 2 : 1;
        const bytes = utf8Encode(str.slice(i, i + width));
        if (written + bytes.length > destination.length) break;
        destination.set(bytes, written);
        written += bytes.length;
        read += width;
        i += width;
      }
      return { read, written };
    }
  }

  class TextDecoder {
    #fatal;
    #ignoreBOM;
    constructor(label = 'utf-8', options = {}) {
      const l = String(label).trim().toLowerCase();
      if (l !== 'utf-8' && l !== 'utf8' && l !== 'unicode-1-1-utf-8') throw new RangeError('The "' + label + '" encoding is not supported (only utf-8 in scripts)');
      this.#fatal = Boolean(options && options.fatal);
      this.#ignoreBOM = Boolean(options && options.ignoreBOM);
    }
    get encoding() {
      return 'utf-8';
    }
    get fatal() {
      return this.#fatal;
    }
    get ignoreBOM() {
      return this.#ignoreBOM;
    }
    decode(input) {
      let bytes = bytesOf(input);
      if (!this.#ignoreBOM && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      return utf8Decode(bytes, this.#fatal);
    }
  }

  // ---- percent-encoding -------------------------------------------------------------------
  const HEX = '0123456789ABCDEF';
  const hexByte = (b) => '%' + HEX[b >> 4] + HEX[b & 15];
  const setOf = (chars, base) => {
    const s = new Set(base);
    for (const ch of chars) s.add(ch.charCodeAt(0));
    return s;
  };
  const C0 = new Set();
  const FRAGMENT = setOf(' "<>\x60', C0);
  const QUERY = setOf(' "#<>', C0);
  const SPECIAL_QUERY = setOf("'", QUERY);
  const PATH = setOf('?\x60{}', QUERY);
  const USERINFO = setOf('/:;=@[\\]^|', PATH);

  function percentEncode(str, set) {
    let out = '';
    for (const ch of str) {
      const c = ch.codePointAt(0);
      if (c < 0x20 || c > 0x7e || set.has(c)) for (const b of utf8Encode(ch)) out += hexByte(b);
      else out += ch;
    }
    return out;
  }

  const isHex = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
  function percentDecode(str) {
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

  function formEncode(str) {
    let out = '';
    for (const b of utf8Encode(str)) {
      if (b === 0x20) out += '+';
      else if ((b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 42 || b === 45 || b === 46 || b === 95) out += String.fromCharCode(b);
      else out += hexByte(b);
    }
    return out;
  }

  function formParse(input) {
    const list = [];
    for (const part of String(input).split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = eq >= 0 ? part.slice(0, eq) : part;
      const value = eq >= 0 ? part.slice(eq + 1) : '';
      list.push([utf8Decode(percentDecode(name.replace(/\+/g, ' '))), utf8Decode(percentDecode(value.replace(/\+/g, ' ')))]);
    }
    return list;
  }

  // ---- hosts ------------------------------------------------------------------------------
  function parseIPv4Number(s) {
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

  function endsInNumber(input) {
    const parts = input.split('.');
    if (parts[parts.length - 1] === '') {
      if (parts.length === 1) return false;
      parts.pop();
    }
    const last = parts[parts.length - 1];
    if (last !== '' && /^[0-9]+$/.test(last)) return true;
    return /^0[xX][0-9a-fA-F]*$/.test(last);
  }

  function parseIPv4(input) {
    const parts = input.split('.');
    if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
    if (parts.length > 4) return null;
    const nums = parts.map(parseIPv4Number);
    if (nums.some((x) => Number.isNaN(x))) return null;
    for (let i = 0; i < nums.length - 1; i++) if (nums[i] > 255) return null;
    if (nums[nums.length - 1] >= Math.pow(256, 5 - nums.length)) return null;
    let ipv4 = nums[nums.length - 1];
    for (let i = 0; i < nums.length - 1; i++) ipv4 += nums[i] * Math.pow(256, 3 - i);
    const out = [];
    for (let i = 0; i < 4; i++) {
      out.unshift(String(ipv4 % 256));
      ipv4 = Math.floor(ipv4 / 256);
    }
    return out.join('.');
  }

  function parseIPv6(input) {
    const a = [0, 0, 0, 0, 0, 0, 0, 0];
    let piece = 0;
    let compress = null;
    let p = 0;
    const len = input.length;
    const hex = (ch) => ch !== undefined && /[0-9a-fA-F]/.test(ch);
    const digit = (ch) => ch !== undefined && /[0-9]/.test(ch);
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
          let v4 = null;
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
          a[piece] = a[piece] * 0x100 + v4;
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

  function serializeIPv6(a) {
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

  // Punycode (RFC 3492) for labels with non-ASCII characters.
  function punycode(label) {
    const cps = Array.from(label, (ch) => ch.codePointAt(0));
    const adapt = (delta, numPoints, first) => {
      delta = first ? Math.floor(delta / 700) : delta >> 1;
      delta += Math.floor(delta / numPoints);
      let k = 0;
      while (delta > 455) {
        delta = Math.floor(delta / 35);
        k += 36;
      }
      return k + Math.floor((36 * delta) / (delta + 38));
    };
    const digit = (d) => String.fromCharCode(d < 26 ? d + 97 : d + 22);
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

  const FORBIDDEN_HOST = /[\u0000\t\n\r #/:<>?@[\\\]^|]/;
  const FORBIDDEN_DOMAIN = /[\u0000-\u001f #%/:<>?@[\\\]^|\u007f]/;

  function parseHost(input, special) {
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
    if (/[^\u0000-\u007f]/.test(domain)) domain = domain.split('.').map((l) => (/[^\u0000-\u007f]/.test(l) ? punycode(l) : l)).join('.');
    if (domain === '' || FORBIDDEN_DOMAIN.test(domain)) return null;
    if (endsInNumber(domain)) return parseIPv4(domain);
    return domain;
  }

  // ---- URL records ------------------------------------------------------------------------
  const SPECIAL = { ftp: 21, file: null, http: 80, https: 443, ws: 80, wss: 443 };
  const isSpecial = (scheme) => own(SPECIAL, scheme);
  const SINGLE_DOT = /^(\.|%2e)$/i;
  const DOUBLE_DOT = /^(\.|%2e)(\.|%2e)$/i;

  /** Appends the segments of str (relative to path) the way the URL path state does. */
  function pushPath(path, str, special) {
    const segments = str.split(special ? /[/\\]/ : '/');
    segments.forEach((seg, i) => {
      const last = i === segments.length - 1;
      if (DOUBLE_DOT.test(seg)) {
        path.pop();
        if (last) path.push('');
      } else if (SINGLE_DOT.test(seg)) {
        if (last) path.push('');
      } else path.push(percentEncode(seg, PATH));
    });
    return path;
  }

  /** auth is what lies between // and the path: userinfo, host, port. Returns false on failure. */
  function parseAuthority(u, auth) {
    const special = isSpecial(u.scheme);
    const at = auth.lastIndexOf('@');
    if (at >= 0) {
      const info = auth.slice(0, at);
      const colon = info.indexOf(':');
      u.username = percentEncode(colon >= 0 ? info.slice(0, colon) : info, USERINFO);
      u.password = colon >= 0 ? percentEncode(info.slice(colon + 1), USERINFO) : '';
      auth = auth.slice(at + 1);
    }
    let hostText = auth;
    let portText = null;
    const bracket = auth.lastIndexOf(']');
    const colon = auth.lastIndexOf(':');
    if (colon > bracket) {
      hostText = auth.slice(0, colon);
      portText = auth.slice(colon + 1);
    }
    if (hostText === '') {
      if (special && u.scheme !== 'file') return false;
      if (at >= 0 || portText !== null) return false;
      u.host = '';
    } else {
      const host = parseHost(hostText, special);
      if (host === null) return false;
      u.host = u.scheme === 'file' && host === 'localhost' ? '' : host;
    }
    if (portText !== null && u.scheme === 'file') return false;
    if (portText !== null && portText !== '') {
      if (!/^[0-9]+$/.test(portText)) return false;
      const port = Number(portText);
      if (port > 65535) return false;
      u.port = port === SPECIAL[u.scheme] ? null : port;
    }
    return true;
  }

  function parse(input, base) {
    let rest = String(input)
      .replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '')
      .replace(/[\t\n\r]/g, '');
    const u = { scheme: '', username: '', password: '', host: null, port: null, path: [], opaque: null, query: null, fragment: null };
    let query = null;
    let fragment = null;
    const hash = rest.indexOf('#');
    if (hash >= 0) {
      fragment = rest.slice(hash + 1);
      rest = rest.slice(0, hash);
    }
    const finish = () => {
      if (query !== null) u.query = percentEncode(query, isSpecial(u.scheme) ? SPECIAL_QUERY : QUERY);
      if (fragment !== null) u.fragment = percentEncode(fragment, FRAGMENT);
      return u;
    };
    const takeQuery = () => {
      const q = rest.indexOf('?');
      if (q >= 0) {
        query = rest.slice(q + 1);
        rest = rest.slice(0, q);
      }
    };
    const m = /^([a-zA-Z][a-zA-Z0-9+\-.]*):/.exec(rest);
    let relativeTo = null;
    if (m) {
      u.scheme = m[1].toLowerCase();
      rest = rest.slice(m[0].length);
      const special = isSpecial(u.scheme);
      if (special && base && base.scheme === u.scheme && u.scheme !== 'file' && !rest.startsWith('//')) relativeTo = base;
      else if (special) {
        takeQuery();
        if (u.scheme === 'file') {
          if (/^[/\\]{2}/.test(rest)) {
            rest = rest.slice(2);
            const end = rest.search(/[/\\]/);
            if (!parseAuthority(u, end >= 0 ? rest.slice(0, end) : rest)) return null;
            rest = end >= 0 ? rest.slice(end) : '';
          } else u.host = '';
          u.path = pushPath([], rest.replace(/^[/\\]/, ''), true);
          return finish();
        }
        rest = rest.replace(/^[/\\]+/, '');
        const end = rest.search(/[/\\]/);
        if (!parseAuthority(u, end >= 0 ? rest.slice(0, end) : rest)) return null;
        u.path = pushPath([], end >= 0 ? rest.slice(end + 1) : '', true);
        return finish();
      } else {
        takeQuery();
        if (rest.startsWith('//')) {
          rest = rest.slice(2);
          const end = rest.indexOf('/');
          if (!parseAuthority(u, end >= 0 ? rest.slice(0, end) : rest)) return null;
          if (end >= 0) u.path = pushPath([], rest.slice(end + 1), false);
        } else if (rest.startsWith('/')) u.path = pushPath([], rest.slice(1), false);
        else u.opaque = percentEncode(rest, C0);
        return finish();
      }
    } else {
      if (!base) return null;
      if (base.opaque !== null) {
        if (rest !== '' || hash < 0) return null;
        Object.assign(u, base, { fragment: null });
        return finish();
      }
      relativeTo = base;
    }
    // Relative to the base: scheme and (unless given) authority, path and query come from it.
    const b = relativeTo;
    u.scheme = b.scheme;
    const special = isSpecial(u.scheme);
    takeQuery();
    const slash = special ? /^[/\\]/ : /^\//;
    const twoSlashes = special ? /^[/\\]{2}/ : /^\/\//;
    if (twoSlashes.test(rest)) {
      rest = special && u.scheme !== 'file' ? rest.replace(/^[/\\]+/, '') : rest.slice(2);
      const end = rest.search(special ? /[/\\]/ : /\//);
      if (!parseAuthority(u, end >= 0 ? rest.slice(0, end) : rest)) return null;
      if (end >= 0 || special) u.path = pushPath([], end >= 0 ? rest.slice(end + 1) : '', special);
      return finish();
    }
    u.username = b.username;
    u.password = b.password;
    u.host = b.host;
    u.port = b.port;
    if (slash.test(rest)) u.path = pushPath([], rest.slice(1), special);
    else if (rest === '') {
      u.path = b.path.slice();
      if (query === null) u.query = b.query;
    } else {
      const dir = b.path.slice(0, -1);
      u.path = pushPath(dir, rest, special);
    }
    return finish();
  }

  function pathnameOf(u) {
    if (u.opaque !== null) return u.opaque;
    return u.path.length ? '/' + u.path.join('/') : '';
  }

  function serialize(u) {
    let out = u.scheme + ':';
    if (u.host !== null) {
      out += '//';
      if (u.username !== '' || u.password !== '') out += u.username + (u.password !== '' ? ':' + u.password : '') + '@';
      out += u.host + (u.port !== null ? ':' + u.port : '');
    } else if (u.opaque === null && u.path.length > 1 && u.path[0] === '') out += '/.';
    out += pathnameOf(u);
    if (u.query !== null) out += '?' + u.query;
    if (u.fragment !== null) out += '#' + u.fragment;
    return out;
  }

  const records = new WeakMap();
  const urlParams = new WeakMap();
  const paramsLists = new WeakMap();
  const paramsOwner = new WeakMap();
  const rec = (url) => {
    const r = records.get(url);
    if (!r) throw new TypeError('Illegal invocation');
    return r;
  };

  class URLSearchParams {
    constructor(init = '') {
      let list = [];
      if (init instanceof URLSearchParams) list = paramsLists.get(init).map((p) => p.slice());
      else if (typeof init === 'object' && init !== null) {
        if (typeof init[Symbol.iterator] === 'function') {
          for (const pair of init) {
            const p = Array.from(pair);
            if (p.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
            list.push([String(p[0]), String(p[1])]);
          }
        } else for (const k of Object.keys(init)) list.push([k, String(init[k])]);
      } else {
        const s = String(init);
        list = formParse(s.startsWith('?') ? s.slice(1) : s);
      }
      paramsLists.set(this, list);
    }
    #update() {
      const url = paramsOwner.get(this);
      if (!url) return;
      const s = this.toString();
      rec(url).query = s === '' ? null : s;
    }
    get size() {
      return paramsLists.get(this).length;
    }
    append(name, value) {
      paramsLists.get(this).push([String(name), String(value)]);
      this.#update();
    }
    delete(name, value) {
      const n = String(name);
      const v = value === undefined ? undefined : String(value);
      const list = paramsLists.get(this);
      for (let i = list.length - 1; i >= 0; i--) if (list[i][0] === n && (v === undefined || list[i][1] === v)) list.splice(i, 1);
      this.#update();
    }
    get(name) {
      const p = paramsLists.get(this).find((x) => x[0] === String(name));
      return p ? p[1] : null;
    }
    getAll(name) {
      return paramsLists
        .get(this)
        .filter((x) => x[0] === String(name))
        .map((x) => x[1]);
    }
    has(name, value) {
      const n = String(name);
      const v = value === undefined ? undefined : String(value);
      return paramsLists.get(this).some((x) => x[0] === n && (v === undefined || x[1] === v));
    }
    set(name, value) {
      const n = String(name);
      const list = paramsLists.get(this);
      const i = list.findIndex((x) => x[0] === n);
      if (i < 0) list.push([n, String(value)]);
      else {
        list[i][1] = String(value);
        for (let j = list.length - 1; j > i; j--) if (list[j][0] === n) list.splice(j, 1);
      }
      this.#update();
    }
    sort() {
      const list = paramsLists.get(this);
      const sorted = list.map((p, i) => [p, i]).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]));
      list.splice(0, list.length, ...sorted.map((x) => x[0]));
      this.#update();
    }
    forEach(fn, thisArg) {
      for (const [k, v] of paramsLists.get(this).slice()) fn.call(thisArg, v, k, this);
    }
    *entries() {
      for (const p of paramsLists.get(this).slice()) yield [p[0], p[1]];
    }
    *keys() {
      for (const p of paramsLists.get(this).slice()) yield p[0];
    }
    *values() {
      for (const p of paramsLists.get(this).slice()) yield p[1];
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    toString() {
      return paramsLists
        .get(this)
        .map(([k, v]) => formEncode(k) + '=' + formEncode(v))
        .join('&');
    }
    get [Symbol.toStringTag]() {
      return 'URLSearchParams';
    }
  }

  function parseOrThrow(url, base) {
    let b = null;
    if (base !== undefined) {
      b = parse(String(base), null);
      if (!b) throw new TypeError('Invalid base URL: ' + String(base));
    }
    const u = parse(String(url), b);
    if (!u) throw new TypeError('Invalid URL: ' + String(url));
    return u;
  }

  class URL {
    constructor(url, base) {
      records.set(this, parseOrThrow(url, base));
      const params = new URLSearchParams(rec(this).query ?? '');
      paramsOwner.set(params, this);
      urlParams.set(this, params);
    }
    static canParse(url, base) {
      try {
        parseOrThrow(url, base);
        return true;
      } catch {
        return false;
      }
    }
    static parse(url, base) {
      try {
        return new URL(url, base);
      } catch {
        return null;
      }
    }
    #sync() {
      paramsLists.set(urlParams.get(this), formParse(rec(this).query ?? ''));
    }
    get href() {
      return serialize(rec(this));
    }
    set href(value) {
      records.set(this, parseOrThrow(value));
      this.#sync();
    }
    get origin() {
      const u = rec(this);
      if (u.scheme === 'blob') {
        const inner = parse(pathnameOf(u), null);
        return inner && (inner.scheme === 'http' || inner.scheme === 'https') ? new URL(serialize(inner)).origin : 'null';
      }
      if (!isSpecial(u.scheme) || u.scheme === 'file') return 'null';
      return u.scheme + '://' + u.host + (u.port !== null ? ':' + u.port : '');
    }
    get protocol() {
      return rec(this).scheme + ':';
    }
    set protocol(value) {
      const u = rec(this);
      const m = /^([a-zA-Z][a-zA-Z0-9+\-.]*)(:|$)/.exec(String(value));
      if (!m) return;
      const scheme = m[1].toLowerCase();
      if (isSpecial(scheme) !== isSpecial(u.scheme)) return;
      if (scheme === 'file' && (u.username || u.password || u.port !== null)) return;
      if (u.scheme === 'file' && u.host === '') return;
      u.scheme = scheme;
      if (u.port === SPECIAL[scheme]) u.port = null;
    }
    get username() {
      return rec(this).username;
    }
    set username(value) {
      const u = rec(this);
      if (u.host === null || u.host === '' || u.scheme === 'file') return;
      u.username = percentEncode(String(value), USERINFO);
    }
    get password() {
      return rec(this).password;
    }
    set password(value) {
      const u = rec(this);
      if (u.host === null || u.host === '' || u.scheme === 'file') return;
      u.password = percentEncode(String(value), USERINFO);
    }
    get host() {
      const u = rec(this);
      return u.host === null ? '' : u.host + (u.port !== null ? ':' + u.port : '');
    }
    set host(value) {
      const u = rec(this);
      if (u.opaque !== null) return;
      const copy = Object.assign({}, u, { username: '', password: '' });
      const text = String(value).split(/[/?#\\]/)[0];
      if (text === '' && isSpecial(u.scheme)) return;
      const bracket = text.lastIndexOf(']');
      const colon = text.lastIndexOf(':');
      const hostPart = colon > bracket ? text.slice(0, colon) : text;
      if (!parseAuthority(copy, hostPart)) return;
      u.host = copy.host;
      if (colon > bracket) {
        const digits = /^[0-9]*/.exec(text.slice(colon + 1))[0];
        if (digits !== '' && Number(digits) <= 65535) u.port = Number(digits) === SPECIAL[u.scheme] ? null : Number(digits);
      }
    }
    get hostname() {
      const h = rec(this).host;
      return h === null ? '' : h;
    }
    set hostname(value) {
      const u = rec(this);
      if (u.opaque !== null) return;
      const text = String(value).split(/[/?#\\]/)[0];
      const bracket = text.lastIndexOf(']');
      const colon = text.lastIndexOf(':');
      if (colon > bracket) return;
      if (text === '' && isSpecial(u.scheme)) return;
      const host = text === '' ? '' : parseHost(text, isSpecial(u.scheme));
      if (host === null) return;
      u.host = u.scheme === 'file' && host === 'localhost' ? '' : host;
    }
    get port() {
      const p = rec(this).port;
      return p === null ? '' : String(p);
    }
    set port(value) {
      const u = rec(this);
      if (u.host === null || u.host === '' || u.scheme === 'file') return;
      const s = String(value);
      if (s === '') {
        u.port = null;
        return;
      }
      const digits = /^[0-9]*/.exec(s)[0];
      if (digits === '' || Number(digits) > 65535) return;
      u.port = Number(digits) === SPECIAL[u.scheme] ? null : Number(digits);
    }
    get pathname() {
      return pathnameOf(rec(this));
    }
    set pathname(value) {
      const u = rec(this);
      if (u.opaque !== null) return;
      const special = isSpecial(u.scheme);
      const s = String(value);
      if (!special && s === '' && u.host !== null) {
        u.path = [];
        return;
      }
      u.path = pushPath([], (special ? /^[/\\]/ : /^\//).test(s) ? s.slice(1) : s, special);
    }
    get search() {
      const q = rec(this).query;
      return q === null || q === '' ? '' : '?' + q;
    }
    set search(value) {
      const u = rec(this);
      const s = String(value);
      u.query = s === '' ? null : percentEncode(s.startsWith('?') ? s.slice(1) : s, isSpecial(u.scheme) ? SPECIAL_QUERY : QUERY);
      this.#sync();
    }
    get searchParams() {
      return urlParams.get(this);
    }
    get hash() {
      const f = rec(this).fragment;
      return f === null || f === '' ? '' : '#' + f;
    }
    set hash(value) {
      const s = String(value);
      rec(this).fragment = s === '' ? null : percentEncode(s.startsWith('#') ? s.slice(1) : s, FRAGMENT);
    }
    toString() {
      return this.href;
    }
    toJSON() {
      return this.href;
    }
    get [Symbol.toStringTag]() {
      return 'URL';
    }
  }

  install('TextEncoder', TextEncoder);
  install('TextDecoder', TextDecoder);
  install('URLSearchParams', URLSearchParams);
  install('URL', URL);
})();`;
