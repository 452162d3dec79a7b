import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BadRequest, ValidationFailed } from '../lib/errors.js';
import { assertStorable, parseQuery } from './validate.js';

const at = (q: string) => `http://h/p?${q}`;

test('parseQuery nests bracketed keys and gathers repeated keys, into objects without a prototype', () => {
  const q = parseQuery(at('tags[end_user_id]=u1&tags[org]=o&ids=a&ids=b&list[]=x&list[]=y&plain=two%20words+plus'));
  assert.deepEqual(JSON.parse(JSON.stringify(q)), { tags: { end_user_id: 'u1', org: 'o' }, ids: ['a', 'b'], list: ['x', 'y'], plain: 'two words plus' });
  assert.equal(Object.getPrototypeOf(q), null);
  assert.equal(Object.getPrototypeOf(q.tags), null);
  assert.deepEqual({ ...parseQuery('http://h/p') }, {});
  // Names that Object.prototype has are ordinary keys here.
  assert.equal(parseQuery(at('toString=1&hasOwnProperty=2')).toString, '1');
});

test('parseQuery refuses keys naming __proto__, constructor or prototype, with the key path', () => {
  for (const [q, path] of [
    ['__proto__[base_url]=https://x', ['__proto__', 'base_url']],
    ['params[__proto__][token_url]=https://x', ['params', '__proto__', 'token_url']],
    ['constructor[prototype][x]=1', ['constructor', 'prototype', 'x']],
    ['%5F%5Fproto%5F%5F[x]=1', ['__proto__', 'x']],
    ['__proto__=1', ['__proto__']],
  ] as const) {
    assert.throws(
      () => parseQuery(at(q)),
      (err: unknown) => err instanceof ValidationFailed && JSON.stringify(err.errors.map((e) => e.path)).includes(JSON.stringify(path)),
      q,
    );
  }
  assert.equal(Object.getOwnPropertyNames(Object.prototype).includes('base_url'), false);
});

test('parseQuery answers a too deep or too long query string as a bad request, not an error', () => {
  assert.throws(() => parseQuery(at('a[b][c][d][e][f][g][h]=1')), BadRequest);
  assert.throws(() => parseQuery(at(Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join('&'))), BadRequest);
  assert.equal((parseQuery(at(Array.from({ length: 101 }, (_, i) => `ids=t-${i}`).join('&'))).ids as string[]).length, 101);
});

test('assertStorable refuses a JSON object key __proto__, naming its path', () => {
  const body = JSON.parse('{"a":{"__proto__":{"x":1}}}') as unknown;
  assert.throws(
    () => assertStorable(body, 'invalid_body'),
    (err: unknown) => err instanceof ValidationFailed && JSON.stringify(err.errors.map((e) => e.path)).includes('["a","__proto__"]'),
  );
});
