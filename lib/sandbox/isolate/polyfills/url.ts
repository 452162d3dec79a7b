/**
 * @module sandbox/isolate/polyfills/url — `URL` and `URLSearchParams` (linked to its URL: changing one
 * changes the other), on the URL records of ./url-record.ts.
 */
import { formEncode, formParse, FRAGMENT, percentEncode, QUERY, SPECIAL_QUERY, USERINFO } from './percent.js';
import { parseHost } from './host.js';
import { isSpecial, parse, parseAuthority, pathnameOf, portFor, pushPath, serialize, type UrlRecord } from './url-record.js';

type Pair = [string, string];

const records = new WeakMap<URL, UrlRecord>();
const urlParams = new WeakMap<URL, URLSearchParams>();
const paramsLists = new WeakMap<URLSearchParams, Pair[]>();
const paramsOwner = new WeakMap<URLSearchParams, URL>();

const rec = (url: URL): UrlRecord => {
  const r = records.get(url);
  if (!r) throw new TypeError('Illegal invocation');
  return r;
};
const listOf = (params: URLSearchParams): Pair[] => paramsLists.get(params)!;

export class URLSearchParams {
  constructor(init: unknown = '') {
    let list: Pair[] = [];
    if (init instanceof URLSearchParams) list = listOf(init).map((p) => [p[0], p[1]]);
    else if (typeof init === 'object' && init !== null) {
      if (typeof (init as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function') {
        for (const pair of init as Iterable<Iterable<unknown>>) {
          const p = Array.from(pair);
          if (p.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
          list.push([String(p[0]), String(p[1])]);
        }
      } else for (const k of Object.keys(init)) list.push([k, String((init as Record<string, unknown>)[k])]);
    } else {
      const s = String(init);
      list = formParse(s.startsWith('?') ? s.slice(1) : s);
    }
    paramsLists.set(this, list);
  }

  #update(): void {
    const url = paramsOwner.get(this);
    if (!url) return;
    const s = this.toString();
    rec(url).query = s === '' ? null : s;
  }

  get size(): number {
    return listOf(this).length;
  }

  append(name: unknown, value: unknown): void {
    listOf(this).push([String(name), String(value)]);
    this.#update();
  }

  delete(name: unknown, value?: unknown): void {
    const n = String(name);
    const v = value === undefined ? undefined : String(value);
    const list = listOf(this);
    for (let i = list.length - 1; i >= 0; i--) if (list[i][0] === n && (v === undefined || list[i][1] === v)) list.splice(i, 1);
    this.#update();
  }

  get(name: unknown): string | null {
    const p = listOf(this).find((x) => x[0] === String(name));
    return p ? p[1] : null;
  }

  getAll(name: unknown): string[] {
    return listOf(this)
      .filter((x) => x[0] === String(name))
      .map((x) => x[1]);
  }

  has(name: unknown, value?: unknown): boolean {
    const n = String(name);
    const v = value === undefined ? undefined : String(value);
    return listOf(this).some((x) => x[0] === n && (v === undefined || x[1] === v));
  }

  set(name: unknown, value: unknown): void {
    const n = String(name);
    const list = listOf(this);
    const i = list.findIndex((x) => x[0] === n);
    if (i < 0) list.push([n, String(value)]);
    else {
      list[i][1] = String(value);
      for (let j = list.length - 1; j > i; j--) if (list[j][0] === n) list.splice(j, 1);
    }
    this.#update();
  }

  sort(): void {
    const list = listOf(this);
    const sorted = list.map((p, i) => [p, i] as const).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]));
    list.splice(0, list.length, ...sorted.map((x) => x[0]));
    this.#update();
  }

  forEach(fn: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown): void {
    for (const [k, v] of listOf(this).slice()) fn.call(thisArg, v, k, this);
  }

  *entries(): IterableIterator<Pair> {
    for (const p of listOf(this).slice()) yield [p[0], p[1]];
  }

  *keys(): IterableIterator<string> {
    for (const p of listOf(this).slice()) yield p[0];
  }

  *values(): IterableIterator<string> {
    for (const p of listOf(this).slice()) yield p[1];
  }

  [Symbol.iterator](): IterableIterator<Pair> {
    return this.entries();
  }

  toString(): string {
    return listOf(this)
      .map(([k, v]) => formEncode(k) + '=' + formEncode(v))
      .join('&');
  }

  get [Symbol.toStringTag](): string {
    return 'URLSearchParams';
  }
}

function parseOrThrow(url: unknown, base?: unknown): UrlRecord {
  let b: UrlRecord | null = null;
  if (base !== undefined) {
    b = parse(String(base), null);
    if (!b) throw new TypeError('Invalid base URL: ' + String(base));
  }
  const u = parse(String(url), b);
  if (!u) throw new TypeError('Invalid URL: ' + String(url));
  return u;
}

/** The digits a port setter takes from value (what follows them is ignored), or null for none or too many. */
function portDigits(value: string): number | null {
  const digits = /^[0-9]*/.exec(value)![0];
  return digits === '' || Number(digits) > 65535 ? null : Number(digits);
}

/** The standard's "cannot have a username/password/port": no host, an empty one, or a file URL. */
const cannotHaveCredentialsOrPort = (u: UrlRecord): boolean => u.host === null || u.host === '' || u.scheme === 'file';

export class URL {
  constructor(url: unknown, base?: unknown) {
    records.set(this, parseOrThrow(url, base));
    const params = new URLSearchParams(rec(this).query ?? '');
    paramsOwner.set(params, this);
    urlParams.set(this, params);
  }

  static canParse(url: unknown, base?: unknown): boolean {
    try {
      parseOrThrow(url, base);
      return true;
    } catch {
      return false;
    }
  }

  static parse(url: unknown, base?: unknown): URL | null {
    try {
      return new URL(url, base);
    } catch {
      return null;
    }
  }

  #sync(): void {
    paramsLists.set(urlParams.get(this)!, formParse(rec(this).query ?? ''));
  }

  get href(): string {
    return serialize(rec(this));
  }

  set href(value: string) {
    records.set(this, parseOrThrow(value));
    this.#sync();
  }

  get origin(): string {
    const u = rec(this);
    if (u.scheme === 'blob') {
      const inner = parse(pathnameOf(u), null);
      return inner && (inner.scheme === 'http' || inner.scheme === 'https') ? new URL(serialize(inner)).origin : 'null';
    }
    if (!isSpecial(u.scheme) || u.scheme === 'file') return 'null';
    return u.scheme + '://' + u.host + (u.port !== null ? ':' + u.port : '');
  }

  get protocol(): string {
    return rec(this).scheme + ':';
  }

  set protocol(value: string) {
    const u = rec(this);
    const m = /^([a-zA-Z][a-zA-Z0-9+\-.]*)(:|$)/.exec(String(value));
    if (!m) return;
    const scheme = m[1].toLowerCase();
    if (isSpecial(scheme) !== isSpecial(u.scheme)) return;
    if (scheme === 'file' && (u.username || u.password || u.port !== null)) return;
    if (u.scheme === 'file' && u.host === '') return;
    u.scheme = scheme;
    if (u.port !== null) u.port = portFor(scheme, u.port);
  }

  get username(): string {
    return rec(this).username;
  }

  set username(value: string) {
    const u = rec(this);
    if (!cannotHaveCredentialsOrPort(u)) u.username = percentEncode(String(value), USERINFO);
  }

  get password(): string {
    return rec(this).password;
  }

  set password(value: string) {
    const u = rec(this);
    if (!cannotHaveCredentialsOrPort(u)) u.password = percentEncode(String(value), USERINFO);
  }

  get host(): string {
    const u = rec(this);
    return u.host === null ? '' : u.host + (u.port !== null ? ':' + u.port : '');
  }

  set host(value: string) {
    const u = rec(this);
    if (u.opaque !== null) return;
    const copy: UrlRecord = { ...u, username: '', password: '' };
    const text = String(value).split(/[/?#\\]/)[0];
    if (text === '' && isSpecial(u.scheme)) return;
    const bracket = text.lastIndexOf(']');
    const colon = text.lastIndexOf(':');
    const hostPart = colon > bracket ? text.slice(0, colon) : text;
    if (!parseAuthority(copy, hostPart)) return;
    u.host = copy.host;
    if (colon > bracket) {
      const port = portDigits(text.slice(colon + 1));
      if (port !== null) u.port = portFor(u.scheme, port);
    }
  }

  get hostname(): string {
    const h = rec(this).host;
    return h === null ? '' : h;
  }

  set hostname(value: string) {
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

  get port(): string {
    const p = rec(this).port;
    return p === null ? '' : String(p);
  }

  set port(value: string) {
    const u = rec(this);
    if (cannotHaveCredentialsOrPort(u)) return;
    const s = String(value);
    if (s === '') {
      u.port = null;
      return;
    }
    const port = portDigits(s);
    if (port !== null) u.port = portFor(u.scheme, port);
  }

  get pathname(): string {
    return pathnameOf(rec(this));
  }

  set pathname(value: string) {
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

  get search(): string {
    const q = rec(this).query;
    return q === null || q === '' ? '' : '?' + q;
  }

  set search(value: string) {
    const u = rec(this);
    const s = String(value);
    u.query = s === '' ? null : percentEncode(s.startsWith('?') ? s.slice(1) : s, isSpecial(u.scheme) ? SPECIAL_QUERY : QUERY);
    this.#sync();
  }

  get searchParams(): URLSearchParams {
    return urlParams.get(this)!;
  }

  get hash(): string {
    const f = rec(this).fragment;
    return f === null || f === '' ? '' : '#' + f;
  }

  set hash(value: string) {
    const s = String(value);
    rec(this).fragment = s === '' ? null : percentEncode(s.startsWith('#') ? s.slice(1) : s, FRAGMENT);
  }

  toString(): string {
    return this.href;
  }

  toJSON(): string {
    return this.href;
  }

  get [Symbol.toStringTag](): string {
    return 'URL';
  }
}
