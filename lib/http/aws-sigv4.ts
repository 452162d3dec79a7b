/**
 * @module lib/http/aws-sigv4 — AWS Signature Version 4 (header form): the canonical request, the
 * string to sign and the signature under the key derived from the secret, date, region and service,
 * as AWS's "Create a signed AWS API request" page describes. The provider client signs a request
 * whose auth is `aws-sigv4` just before it is sent, when its URL, method and body are final.
 */
import { createHash, createHmac } from 'node:crypto';

export interface AwsSigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (STS) carry one; it is sent and signed as `x-amz-security-token`. */
  sessionToken?: string;
  region: string;
  service: string;
}

export interface AwsSignable {
  method: string;
  url: URL;
  /** The request's headers, any case; `host`, `content-type` and `x-amz-*` ones are signed. */
  headers: Record<string, string>;
  /** The body's SHA-256 (hex) or `UNSIGNED-PAYLOAD` (a streamed body, which cannot be hashed first). */
  payloadHash: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** The body's hash as the canonical request wants it. */
export function payloadHash(body: string | Uint8Array | null | undefined | { stream: true }): string {
  if (body == null) return sha256Hex('');
  if (typeof body === 'string' || body instanceof Uint8Array) return sha256Hex(body);
  return UNSIGNED_PAYLOAD;
}

/** AWS's URI encoding: everything but A-Z a-z 0-9 - _ . ~ as %XX of its UTF-8 bytes, upper-case hex. */
export function awsUriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalUri(url: URL, service: string): string {
  if (url.pathname === '' || url.pathname === '/') return '/';
  // Each segment encoded once from its raw form; every service but S3 encodes it a second time.
  return url.pathname
    .split('/')
    .map((segment) => {
      let raw: string;
      try {
        raw = decodeURIComponent(segment);
      } catch {
        raw = segment;
      }
      const once = awsUriEncode(raw);
      return service === 's3' ? once : awsUriEncode(once);
    })
    .join('/');
}

function canonicalQuery(url: URL): string {
  return [...url.searchParams.entries()]
    .map(([k, v]) => [awsUriEncode(k), awsUriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

const isSigned = (name: string) => name === 'host' || name === 'content-type' || name.startsWith('x-amz-');

/** The canonical request and its signed-header list (section "Create a canonical request"). */
export function canonicalRequest(req: AwsSignable, service: string): { canonical: string; signedHeaders: string } {
  const headers = new Map<string, string>([['host', req.url.host]]);
  for (const [name, value] of Object.entries(req.headers)) {
    const n = name.toLowerCase();
    if (isSigned(n)) headers.set(n, value.trim().replace(/\s+/g, ' '));
  }
  const names = [...headers.keys()].sort();
  const signedHeaders = names.join(';');
  const canonical = [
    req.method.toUpperCase(),
    canonicalUri(req.url, service),
    canonicalQuery(req.url),
    names.map((n) => `${n}:${headers.get(n)}\n`).join(''),
    signedHeaders,
    req.payloadHash,
  ].join('\n');
  return { canonical, signedHeaders };
}

/** `20150830T123600Z` */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export function stringToSign(canonical: string, amzDateTime: string, scope: string): string {
  return [ALGORITHM, amzDateTime, scope, sha256Hex(canonical)].join('\n');
}

export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/**
 * The headers that sign the request: `x-amz-date`, `x-amz-security-token` (temporary credentials),
 * `x-amz-content-sha256` (S3, which requires it) and `authorization`. The request's own headers
 * must be sent as given, since those named in `SignedHeaders` are covered.
 */
export function signAwsV4(
  req: Omit<AwsSignable, 'headers'> & { headers?: Record<string, string> },
  creds: AwsSigV4Credentials,
  now: Date,
): Record<string, string> {
  const dateTime = amzDate(now);
  const date = dateTime.slice(0, 8);
  const added: Record<string, string> = { 'x-amz-date': dateTime };
  if (creds.sessionToken) added['x-amz-security-token'] = creds.sessionToken;
  if (creds.service === 's3') added['x-amz-content-sha256'] = req.payloadHash;
  const { canonical, signedHeaders } = canonicalRequest({ ...req, headers: { ...req.headers, ...added } }, creds.service);
  const scope = `${date}/${creds.region}/${creds.service}/aws4_request`;
  const signature = createHmac('sha256', signingKey(creds.secretAccessKey, date, creds.region, creds.service))
    .update(stringToSign(canonical, dateTime, scope), 'utf8')
    .digest('hex');
  return { ...added, authorization: `${ALGORITHM} Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}` };
}
