import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { queryAsInput } from './query-input.js';

const schema = z.toJSONSchema(
  z.object({
    id: z.number().int(),
    name: z.string(),
    flag: z.boolean().optional(),
    limit: z.number().nullable().optional(),
    ids: z.array(z.number()).optional(),
  }),
  { io: 'input' },
);
const read = (q: string) => queryAsInput(`http://x/users?${q}`, schema);

test('query values are read as the types the input schema gives them', () => {
  assert.deepEqual(read('id=007&name=007&flag=true&limit=null&ids=1&ids=02'), { id: 7, name: '007', flag: true, limit: null, ids: [1, 2] });
  assert.ok(Object.is(read('id=-0').id, -0));
  assert.deepEqual(read('id=1e3&limit=2.5'), { id: 1000, limit: 2.5 });
});

test('a value that does not read as its type stays a string, for the validation to name', () => {
  assert.deepEqual(read('id=seven&flag=yes&limit=&ids=x'), { id: 'seven', flag: 'yes', limit: '', ids: ['x'] });
  assert.deepEqual(read('id=1e999'), { id: '1e999' });
  assert.deepEqual(read('other=5'), { other: '5' }, 'a key the schema does not declare is left as it came');
});
