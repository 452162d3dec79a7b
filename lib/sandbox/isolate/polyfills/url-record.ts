/**
 * @module sandbox/isolate/polyfills/url-record — the URL record of the WHATWG URL standard, its parser
 * (special and other schemes, relative references against a base; no Windows drive letters in
 * file URLs) and its serializer.
 */
import { parseHost } from './host.js';
import { C0, FRAGMENT, PATH, QUERY, SPECIAL_QUERY, USERINFO, percentEncode } from './percent.js';

export interface UrlRecord {
  scheme: string;
  username: string;
  password: string;
  host: string | null;
  port: number | null;
  path: string[];
  /** The path of a URL that cannot be a base (mailto:…), as is. */
  opaque: string | null;
  query: string | null;
  fragment: string | null;
}

/** The special schemes and their default ports. */
export const SPECIAL: Readonly<Record<string, number | null>> = { ftp: 21, file: null, http: 80, https: 443, ws: 80, wss: 443 };
export const isSpecial = (scheme: string): boolean => Object.prototype.hasOwnProperty.call(SPECIAL, scheme);
/** The port to keep: none when it is the scheme's default. */
export const portFor = (scheme: string, port: number): number | null => (port === SPECIAL[scheme] ? null : port);

const SINGLE_DOT = /^(\.|%2e)$/i;
const DOUBLE_DOT = /^(\.|%2e)(\.|%2e)$/i;

/** Appends the segments of str (relative to path) the way the URL path state does. */
export function pushPath(path: string[], str: string, special: boolean): string[] {
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
export function parseAuthority(u: UrlRecord, auth: string): boolean {
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
  let portText: string | null = null;
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
    u.port = portFor(u.scheme, port);
  }
  return true;
}

/** The record of input (relative to base when it is relative), or null when it is not a valid URL. */
export function parse(input: string, base: UrlRecord | null): UrlRecord | null {
  let rest = String(input)
    // eslint-disable-next-line no-control-regex -- leading and trailing C0 controls and spaces go
    .replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '')
    .replace(/[\t\n\r]/g, '');
  const u: UrlRecord = { scheme: '', username: '', password: '', host: null, port: null, path: [], opaque: null, query: null, fragment: null };
  let query: string | null = null;
  let fragment: string | null = null;
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
  let relativeTo: UrlRecord;
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

export function pathnameOf(u: UrlRecord): string {
  if (u.opaque !== null) return u.opaque;
  return u.path.length ? '/' + u.path.join('/') : '';
}

export function serialize(u: UrlRecord): string {
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
