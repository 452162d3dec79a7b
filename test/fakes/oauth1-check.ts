/**
 * @module The provider's side of OAuth 1.0a (RFC 5849 section 3.2), for the fakes: reads the
 * `Authorization: OAuth` header, rebuilds the signature base string from the request as received
 * (method, the fake's own URL, query, form body, protocol parameters) and compares the signature.
 * Written apart from lib/http/oauth1.ts on purpose: the platform's signer is checked, not reused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestContext } from './server.js';

export interface OAuth1Received {
  /** The protocol parameters as sent (decoded), `oauth_signature` and `realm` included. */
  params: Record<string, string>;
}

/** RFC 3986 unreserved characters stay; everything else is %XX, hex upper-case (section 3.6). */
const rfc3986 = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

/** The header's parameters, or null when there is no OAuth header. */
export function readOAuthHeader(ctx: RequestContext): OAuth1Received | null {
  const header = ctx.headers.authorization ?? '';
  if (!/^OAuth\s/i.test(header)) return null;
  const params: Record<string, string> = {};
  for (const m of header.slice(6).matchAll(/([\w]+)="([^"]*)"/g)) params[m[1]!] = decodeURIComponent(m[2]!);
  return { params };
}

/**
 * Whether the request carries a valid signature for these secrets; the reason otherwise. The method
 * must be one of `methods`, the timestamp within five minutes, and a nonce is accepted once.
 */
export function checkOAuth1(
  ctx: RequestContext,
  expect: { consumerKey: string; consumerSecret: string; token?: string; tokenSecret?: string; methods: string[]; realm?: string; seenNonces: Set<string> },
): string | null {
  const got = readOAuthHeader(ctx);
  if (!got) return 'no Authorization: OAuth header';
  const p = got.params;
  if (p.oauth_consumer_key !== expect.consumerKey) return `oauth_consumer_key ${p.oauth_consumer_key} is not the client's`;
  if ((p.oauth_token ?? undefined) !== expect.token) return `oauth_token ${p.oauth_token} is not ${expect.token ?? 'absent'}`;
  const method = p.oauth_signature_method ?? '';
  if (!expect.methods.includes(method)) return `oauth_signature_method ${method} is not ${expect.methods.join(' or ')}`;
  if (expect.realm !== undefined && p.realm !== expect.realm) return `realm ${p.realm} is not ${expect.realm}`;
  if (method !== 'PLAINTEXT') {
    const age = Math.abs(Date.now() / 1000 - Number(p.oauth_timestamp));
    if (!(age < 300)) return `oauth_timestamp ${p.oauth_timestamp} is not within five minutes`;
    const nonce = `${p.oauth_timestamp}:${p.oauth_nonce}`;
    if (!p.oauth_nonce || expect.seenNonces.has(nonce)) return `oauth_nonce ${p.oauth_nonce} missing or used before`;
    expect.seenNonces.add(nonce);
  }
  const key = `${rfc3986(expect.consumerSecret)}&${rfc3986(expect.tokenSecret ?? '')}`;
  let expected: string;
  if (method === 'PLAINTEXT') expected = key;
  else {
    const pairs: [string, string][] = [...ctx.query.entries()];
    if (/^application\/x-www-form-urlencoded/i.test(ctx.headers['content-type'] ?? '')) pairs.push(...new URLSearchParams(ctx.body).entries());
    for (const [k, v] of Object.entries(p)) if (k !== 'oauth_signature' && k !== 'realm') pairs.push([k, v]);
    const normalized = pairs
      .map(([k, v]) => [rfc3986(k), rfc3986(v)])
      .sort(([ak, av], [bk, bv]) => (ak === bk ? (av! < bv! ? -1 : av! > bv! ? 1 : 0) : ak! < bk! ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const url = new URL(ctx.path, ctx.origin);
    const base = `${ctx.method.toUpperCase()}&${rfc3986(`${url.protocol}//${url.host}${url.pathname}`)}&${rfc3986(normalized)}`;
    expected = createHmac(method === 'HMAC-SHA256' ? 'sha256' : 'sha1', key)
      .update(base)
      .digest('base64');
  }
  const a = Buffer.from(p.oauth_signature ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b) ? null : 'oauth_signature does not match the request';
}
