/**
 * @module http/oauth1 — OAuth 1.0a request signatures (RFC 5849 section 3.4): the signature base
 * string from the method, the base string URI and the normalized request parameters (query, form
 * body and `oauth_*` protocol parameters), signed with HMAC-SHA1 or HMAC-SHA256 under the key
 * `consumer_secret&token_secret`, or PLAINTEXT (the key itself), and the `Authorization: OAuth`
 * header that carries it. NetSuite's token-based authentication is the same with HMAC-SHA256 and a
 * `realm`.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const OAUTH1_SIGNATURE_METHODS = ['HMAC-SHA1', 'HMAC-SHA256', 'PLAINTEXT'] as const;
export type OAuth1SignatureMethod = (typeof OAUTH1_SIGNATURE_METHODS)[number];

/** What signs a request: the client (consumer) and, once authorized, the token. */
export interface OAuth1Signer {
  consumerKey: string;
  consumerSecret: string;
  token?: string;
  tokenSecret?: string;
  signatureMethod: OAuth1SignatureMethod;
  /** Sent first in the header, never signed (RFC 5849 3.5.1); NetSuite's account id. */
  realm?: string;
}

/** RFC 5849 section 3.6: unreserved characters stay, everything else is %XX of its UTF-8 bytes (upper-case hex). */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Section 3.4.1.2: scheme and host lower-case, the default port left out, no query or fragment. */
function baseStringUri(url: URL): string {
  const port = url.port && !((url.protocol === 'http:' && url.port === '80') || (url.protocol === 'https:' && url.port === '443')) ? `:${url.port}` : '';
  return `${url.protocol.toLowerCase()}//${url.hostname.toLowerCase()}${port}${url.pathname}`;
}

/** Section 3.4.1.3.2: every name and value encoded, sorted by name then value, joined with `=` and `&`. */
function normalizedParameters(params: [string, string][]): string {
  return params
    .map(([k, v]) => [percentEncode(k), percentEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

export interface SignatureInput {
  method: string;
  url: string;
  /** The parameters of an `application/x-www-form-urlencoded` body; none for other bodies. */
  form?: [string, string][];
  /** The `oauth_*` protocol parameters without `oauth_signature` (nor `realm`). */
  oauth: Record<string, string>;
}

/** Section 3.4.1: the signature base string. */
export function signatureBaseString(input: SignatureInput): string {
  const url = new URL(input.url);
  const params: [string, string][] = [...url.searchParams.entries(), ...(input.form ?? []), ...Object.entries(input.oauth)];
  return [input.method.toUpperCase(), baseStringUri(url), normalizedParameters(params)].map(percentEncode).join('&');
}

/** Sections 3.4.2 to 3.4.4: the signature of a request by the given method. */
export function oauth1Signature(input: SignatureInput, method: OAuth1SignatureMethod, consumerSecret: string, tokenSecret = ''): string {
  const key = `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`;
  if (method === 'PLAINTEXT') return key;
  return createHmac(method === 'HMAC-SHA1' ? 'sha1' : 'sha256', key)
    .update(signatureBaseString(input))
    .digest('base64');
}

/** Section 3.4.2: HMAC-SHA1 of the base string, base64. */
export function hmacSha1Signature(input: SignatureInput, consumerSecret: string, tokenSecret = ''): string {
  return oauth1Signature(input, 'HMAC-SHA1', consumerSecret, tokenSecret);
}

/**
 * The `Authorization: OAuth ...` header of a signed request: the realm when there is one, the
 * protocol parameters (consumer key, token when there is one, signature method, timestamp, nonce,
 * version, and any extra such as `oauth_callback` or `oauth_verifier`) with their signature.
 */
export function oauth1Header(
  signer: OAuth1Signer,
  request: { method: string; url: string; form?: [string, string][]; extra?: Record<string, string>; now: Date; nonce?: string },
): string {
  const oauth: Record<string, string> = {
    oauth_consumer_key: signer.consumerKey,
    ...(signer.token ? { oauth_token: signer.token } : {}),
    oauth_signature_method: signer.signatureMethod,
    oauth_timestamp: String(Math.floor(request.now.getTime() / 1000)),
    oauth_nonce: request.nonce ?? randomBytes(16).toString('hex'),
    oauth_version: '1.0',
    ...request.extra,
  };
  const signature = oauth1Signature(
    { method: request.method, url: request.url, form: request.form, oauth },
    signer.signatureMethod,
    signer.consumerSecret,
    signer.tokenSecret,
  );
  const params = Object.entries({ ...oauth, oauth_signature: signature }).map(([k, v]) => `${percentEncode(k)}="${percentEncode(v)}"`);
  return `OAuth ${[...(signer.realm !== undefined ? [`realm="${percentEncode(signer.realm)}"`] : []), ...params].join(', ')}`;
}

/** The parameters of a form body, which the signature covers (section 3.4.1.3.1); none for any other body. */
export function formParameters(body: unknown, contentType: string | undefined): [string, string][] {
  if (typeof body !== 'string' || !/^application\/x-www-form-urlencoded\b/i.test(contentType ?? '')) return [];
  return [...new URLSearchParams(body).entries()];
}
