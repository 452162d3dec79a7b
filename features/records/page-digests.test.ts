import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { pageDigest } from './page-digests.js';

test('equal pages digest alike; a change of a value, of key order or of record order gives another digest', () => {
  const page = () => [
    { id: '1', name: 'a', tags: ['x'], address: { city: 'c' } },
    { id: '2', name: 'b', tags: [], address: { city: 'd' } },
  ];
  assert.equal(pageDigest(page()), pageDigest(JSON.parse(JSON.stringify(page()))));
  assert.notEqual(pageDigest(page()), pageDigest([{ ...page()[0], name: 'z' }, page()[1]]));
  assert.notEqual(pageDigest(page()), pageDigest([{ name: 'a', id: '1', tags: ['x'], address: { city: 'c' } }, page()[1]]));
  assert.notEqual(pageDigest(page()), pageDigest(page().reverse()));
});

test("values a model's validator tells apart never digest alike (a page skipped for a look-alike would skip its validation)", () => {
  // JSON text conflates each pair: a Date and its ISO string, NaN and null, an undefined array slot and null.
  const at = new Date(Date.UTC(2025, 0, 1));
  const pairs: [unknown, unknown, z.ZodType][] = [
    [at, at.toISOString(), z.string()],
    [Number.NaN, null, z.number().nullable()],
    [[undefined], [null], z.array(z.null())],
  ];
  for (const [a, b, schema] of pairs) {
    assert.notEqual(schema.safeParse(a).success, schema.safeParse(b).success, 'the validator tells them apart');
    assert.notEqual(pageDigest([{ id: '1', v: a }]), pageDigest([{ id: '1', v: b }]), `${String(a)} vs ${String(b)}`);
  }
});

test('a page that cannot be serialised has no digest (it is checked record by record)', () => {
  assert.equal(pageDigest([{ id: '1', f: () => 1 }]), null);
  assert.equal(pageDigest([{ id: '1', s: Symbol('s') }]), null);
});
