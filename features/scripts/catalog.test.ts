import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { schemaFingerprint } from '../records/page-digests.js';
import { zodFromJsonSchema } from './catalog.js';

// A deployed script's validators come from the JSON Schema of its zod schemas: they must parse as
// those schemas do, stripping the keys they do not declare.
test('validators built from JSON Schema strip undeclared keys as zod does', () => {
  const Tag = z.object({ kind: z.literal('tag'), label: z.string() });
  const Note = z.object({ kind: z.literal('note'), text: z.string() });
  const Item = z.object({
    id: z.string(),
    owner: z.object({ name: z.string() }).nullable(),
    tags: z.array(Tag),
    extra: z.looseObject({ a: z.number() }),
    attrs: z.record(z.string(), z.object({ v: z.number() })),
    last: z.discriminatedUnion('kind', [Tag, Note]).optional(),
  });
  const value = {
    id: '1',
    junk: true,
    owner: { name: 'n', secret: 's' },
    tags: [{ kind: 'tag', label: 'l', color: 'red' }],
    extra: { a: 1, kept: true },
    attrs: { x: { v: 1, dropped: 2 } },
    last: { kind: 'note', text: 't', label: 'not a note field' },
  };
  for (const io of ['input', 'output'] as const) {
    const fromSchema = zodFromJsonSchema(z.toJSONSchema(Item, { io, unrepresentable: 'any' }));
    assert.deepEqual(fromSchema.parse(value), Item.parse(value), io);
    assert.deepEqual(fromSchema.parse({ ...value, owner: null }), Item.parse({ ...value, owner: null }), io);
    assert.equal(fromSchema.safeParse({ ...value, id: 1 }).success, false);
  }
});

// A sync run skips a page the last run saved under the same model fingerprint (features/records/page-digests.ts):
// the fingerprint must change with everything that changes what the validator outputs.
test('a validator built from JSON Schema is fingerprinted by that schema; a transform has no fingerprint', () => {
  const source = z.toJSONSchema(z.object({ id: z.string(), name: z.string() }), { io: 'output' });
  const dropped = z.toJSONSchema(z.object({ id: z.string() }), { io: 'output' });
  const one = schemaFingerprint(zodFromJsonSchema(source));
  assert.ok(one);
  assert.equal(schemaFingerprint(zodFromJsonSchema(structuredClone(source))), one, 'the same schema, built again');
  assert.notEqual(schemaFingerprint(zodFromJsonSchema(dropped)), one);
  assert.equal(schemaFingerprint(z.object({ id: z.string().transform((s) => s.trim()) })), null);
  assert.notEqual(schemaFingerprint(z.object({ id: z.string() })), schemaFingerprint(z.object({ id: z.string(), n: z.number().optional() })));
});
