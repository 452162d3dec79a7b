import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { publicKeyFingerprint } from './jwt.js';

test("publicKeyFingerprint: SHA256: and the base64 SHA-256 of the public key's DER, as Snowflake computes it from the .pub file", () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  // The public key file's PEM body is the DER SubjectPublicKeyInfo (what `openssl rsa -pubin -outform DER` writes).
  const pub = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const der = Buffer.from(pub.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
  const expected = `SHA256:${createHash('sha256').update(der).digest('base64')}`;
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  assert.equal(publicKeyFingerprint(pem), expected);
  // Pasted on one line with literal \n, as a form gives it.
  assert.equal(publicKeyFingerprint(pem.replace(/\n/g, '\\n')), expected);
  assert.throws(() => publicKeyFingerprint('not a key'), /not a PEM private key/);
});
