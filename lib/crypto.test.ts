import assert from 'node:assert/strict';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { rowAad, SecretBox } from './crypto.js';

/** A value as written before row binding: format v1, no additional authenticated data. */
function sealV1(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const id = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return ['v1', id, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

describe('SecretBox binds values to their row', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);
  const here = rowAad('connections', 'credentials_enc', 7);

  test('a value reads back at the place it was sealed for, in the v2 format', () => {
    const sealed = box.encrypt('secret', here);
    assert.match(sealed, /^v2:/);
    assert.equal(box.decrypt(sealed, here), 'secret');
    assert.equal(box.isStale(sealed), false);
  });

  test('moved to another row, column or table it does not decrypt', () => {
    const sealed = box.encrypt('secret', here);
    for (const elsewhere of [
      rowAad('connections', 'credentials_enc', 8),
      rowAad('connections', 'other_enc', 7),
      rowAad('integrations', 'credentials_enc', 7),
    ]) {
      assert.throws(() => box.decrypt(sealed, elsewhere), /Unsupported state or unable to authenticate data/);
    }
  });

  test('a v1 value (written before the binding) still reads and counts as stale', () => {
    const legacy = sealV1(key, 'old secret');
    assert.equal(box.decrypt(legacy, here), 'old secret');
    assert.equal(box.isStale(legacy), true);
  });
});
