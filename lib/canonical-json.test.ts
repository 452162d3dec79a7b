import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from './canonical-json.js';

test('canonicalJson: keys sorted by code unit, JSON.stringify semantics, circular refused', () => {
  const value = { b: -0, a: [1e21, 1.5, null, 'é"\n', { Z: 1, a: 2, ä: 3, 10: 1, 9: 2 }], c: { d: true, e: NaN, u: undefined }, t: new Date(0) };
  assert.equal(
    canonicalJson(value),
    '{"a":[1e+21,1.5,null,"é\\"\\n",{"10":1,"9":2,"Z":1,"a":2,"ä":3}],"b":0,"c":{"d":true,"e":null},"t":"1970-01-01T00:00:00.000Z"}',
  );
  assert.equal(canonicalJson(undefined), 'null');
  assert.equal(canonicalJson([undefined]), '[null]');
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  assert.throws(() => canonicalJson(loop), TypeError);
});
