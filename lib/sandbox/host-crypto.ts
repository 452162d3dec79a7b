/**
 * @module sandbox/host-crypto — the host half of the sandbox's `crypto` module
 * (lib/sandbox/isolate/node-modules.ts): digests, HMACs and random bytes computed by Node for a
 * script, through one synchronous callback. Arguments and answers are latin1 text (one char a byte).
 * Only the algorithms below, and bounded sizes, so a script cannot reach any other part of Node.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';

const ALGORITHMS = new Set(['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512-224', 'sha512-256', 'sha3-224', 'sha3-256', 'sha3-384', 'sha3-512']);
/** The most one digest may read (latin1 characters, so bytes). */
const MAX_INPUT = 64 * 1024 * 1024;
const MAX_RANDOM = 65536;

function algorithm(alg: unknown): string {
  const name = String(alg).toLowerCase();
  if (!ALGORITHMS.has(name)) throw new Error(`Digest method not supported: ${String(alg)} (the sandbox offers ${[...ALGORITHMS].join(', ')})`);
  return name;
}

function bytes(text: unknown, what: string): Buffer {
  if (typeof text !== 'string') throw new TypeError(`${what} must be a string`);
  if (text.length > MAX_INPUT) throw new RangeError(`${what} is larger than ${MAX_INPUT} bytes`);
  return Buffer.from(text, 'latin1');
}

export function hostCrypto(op: unknown, alg?: unknown, key?: unknown, data?: unknown): string {
  switch (op) {
    case 'hash':
      return createHash(algorithm(alg)).update(bytes(data, 'data')).digest().toString('latin1');
    case 'hmac':
      return createHmac(algorithm(alg), bytes(key, 'key')).update(bytes(data, 'data')).digest().toString('latin1');
    case 'random': {
      const n = Number(alg);
      if (!Number.isInteger(n) || n < 0 || n > MAX_RANDOM) throw new RangeError(`size must be an integer from 0 to ${MAX_RANDOM}`);
      return randomBytes(n).toString('latin1');
    }
    case 'uuid':
      return randomUUID();
    default:
      throw new Error(`unknown crypto operation ${String(op)}`);
  }
}
