/**
 * @module crypto — secrets at rest (AES-256-GCM with a key ring), secret-key hashing and
 * constant-time comparison.
 *
 * Sealed values are `v2:<key id>:<iv>:<tag>:<body>`, bound to where they are stored: the GCM
 * additional authenticated data is `table:column:rowId` (rowAad), so a value copied into another
 * row or column does not decrypt. `v1` values (written before the binding, no AAD) are still read;
 * they count as stale, and `npm run reencrypt` rewrites them as v2.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hash as oneShotHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

const FORMAT = 'v2';
const UNBOUND_FORMAT = 'v1';

/** The additional authenticated data of a value stored at `table.column` of row `rowId`. */
export function rowAad(table: string, column: string, rowId: string | number): string {
  return `${table}:${column}:${rowId}`;
}

export function parseKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('encryption key must be 32 bytes');
  return key;
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * Encrypts with the newest key and decrypts with any key of the ring, so a new key can be added
 * and data re-encrypted while the old key still reads what it wrote.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentId: string;

  constructor(current: Buffer, previous: Buffer[] = []) {
    this.currentId = keyId(current);
    this.keys.set(this.currentId, current);
    for (const k of previous) this.keys.set(keyId(k), k);
  }

  /** `aad`: rowAad(...) of the place the value is stored. */
  encrypt(plaintext: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId)!, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, this.currentId, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  /** `aad` must be the one the value was sealed with (v1 values have none and ignore it). */
  decrypt(sealed: string, aad: string): string {
    const [format, id, iv, tag, body] = sealed.split(':');
    const key = id ? this.keys.get(id) : undefined;
    if ((format !== FORMAT && format !== UNBOUND_FORMAT) || !key || !iv || !tag || body === undefined) throw new Error('cannot decrypt: unknown key or format');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    if (format === FORMAT) decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }

  encryptJson(value: unknown, aad: string): string {
    return this.encrypt(JSON.stringify(value), aad);
  }

  decryptJson<T>(sealed: string, aad: string): T {
    return JSON.parse(this.decrypt(sealed, aad)) as T;
  }

  /** True when the sealed value was written with an older key or format and should be re-encrypted. */
  isStale(sealed: string): boolean {
    const [format, id] = sealed.split(':');
    return format !== FORMAT || id !== this.currentId;
  }
}

/** One-shot `crypto.hash`: a third of a Hash object's cost, and it runs for every request's secret key (the lookup cache's key). */
export function sha256Hex(text: string): string {
  return oneShotHash('sha256', text, 'hex');
}

export function hmacSha256Hex(key: string, body: string | Buffer): string {
  return hmacDigest('sha256', key, body, 'hex');
}

/** An HMAC of `body` with `key`, as hex or base64 (third parties sign their webhooks either way). */
export function hmacDigest(hash: 'sha256' | 'sha1', key: string, body: string | Buffer, encoding: 'hex' | 'base64'): string {
  return createHmac(hash, key).update(body).digest(encoding);
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export function newSecretKey(): string {
  return randomUUID();
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
