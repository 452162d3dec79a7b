/**
 * @module lib/jwt — signs a JSON Web Token (RFC 7519, compact JWS of RFC 7515) with HMAC (HS*), an
 * RSA key (RS*, PKCS#1 v1.5) or an EC key (ES*, the raw r||s signature RFC 7518 section 3.4 asks,
 * not DER). Keys are PEM text (PKCS#8, PKCS#1 `RSA PRIVATE KEY` or SEC1 `EC PRIVATE KEY`), also
 * when pasted on one line or with literal `\n`s, or a KeyObject; HMAC keys are bytes.
 */
import { createHash, createHmac, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';

export const jwtAlgorithms = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'] as const;
export type JwtAlgorithm = (typeof jwtAlgorithms)[number];

export class InvalidSigningKey extends Error {}

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** A PEM key as people paste it: `\n` typed as two characters, or the lines joined by spaces. */
export function normalizePem(text: string): string {
  const unescaped = text.replace(/\\n/g, '\n').trim();
  const m = /^-----BEGIN ([A-Z0-9 ]+)-----\s*([\s\S]*?)\s*-----END \1-----$/.exec(unescaped);
  if (!m) return unescaped;
  const body = m[2]!.replace(/\s+/g, '');
  return `-----BEGIN ${m[1]}-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END ${m[1]}-----\n`;
}

/**
 * `SHA256:` and the base64 SHA-256 of the public key (its DER SubjectPublicKeyInfo) of a private key:
 * how Snowflake names the key a key-pair JWT's `iss` claims to be signed with.
 */
export function publicKeyFingerprint(key: string | KeyObject): string {
  const der = createPublicKey(privateKey(key)).export({ type: 'spki', format: 'der' });
  return `SHA256:${createHash('sha256').update(der).digest('base64')}`;
}

/** A private KeyObject from PEM text as people paste it; InvalidSigningKey when it is not one. */
export function privateKey(key: string | KeyObject): KeyObject {
  if (typeof key !== 'string') return key;
  try {
    return createPrivateKey(normalizePem(key));
  } catch (err) {
    throw new InvalidSigningKey(`not a PEM private key (${(err as Error).message})`);
  }
}

export function signJwt(opts: {
  alg: JwtAlgorithm;
  header?: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** HMAC: the secret as bytes; RSA and EC: a PEM private key or a KeyObject. */
  key: string | Buffer | KeyObject;
}): string {
  const input = `${b64url(JSON.stringify({ ...opts.header, alg: opts.alg }))}.${b64url(JSON.stringify(opts.payload))}`;
  const bits = opts.alg.slice(2);
  let signature: Buffer;
  if (opts.alg.startsWith('HS')) {
    if (typeof opts.key !== 'string' && !Buffer.isBuffer(opts.key)) throw new InvalidSigningKey('an HMAC key must be text or bytes');
    signature = createHmac(`sha${bits}`, opts.key).update(input).digest();
  } else {
    if (Buffer.isBuffer(opts.key)) throw new InvalidSigningKey('an RSA or EC key must be PEM text');
    const key = privateKey(opts.key);
    const wanted = opts.alg.startsWith('RS') ? 'rsa' : 'ec';
    if (key.asymmetricKeyType !== wanted) throw new InvalidSigningKey(`${opts.alg} needs an ${wanted.toUpperCase()} key, this is ${key.asymmetricKeyType}`);
    signature = sign(`sha${bits}`, Buffer.from(input), wanted === 'ec' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  }
  return `${input}.${b64url(signature)}`;
}
