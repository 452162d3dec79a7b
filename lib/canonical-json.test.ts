import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configure } from 'safe-stable-stringify';
import { canonicalJson, canonicalJsonEach } from './canonical-json.js';

const reference = configure({ deterministic: true, bigint: true, circularValue: TypeError });

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
  const arrayLoop: unknown[] = [];
  arrayLoop.push(arrayLoop, arrayLoop);
  assert.throws(() => canonicalJsonEach([{ a: arrayLoop }]), TypeError);
});

/** A deterministic pseudo-random value of JSON-ish data, with the odd cases a property list could get wrong. */
function randomValue(seed: { n: number }, depth: number): unknown {
  const next = () => (seed.n = (seed.n * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const keys = ['a', 'B', 'b', 'é', '10', '9', '', 'constructor', 'toString', 'id', 'x y', '"q"', '\u2028', '\ud800', 'zz'];
  const r = next();
  if (depth > 4 || r < 0.35) {
    const leaves: unknown[] = [
      1,
      -0,
      1.5e300,
      NaN,
      Infinity,
      'text',
      'é\n"\\',
      '\ud83d',
      true,
      false,
      null,
      undefined,
      () => 1,
      Symbol('s'),
      new Date(86_400_000),
    ];
    return leaves[Math.floor(next() * leaves.length)];
  }
  if (r < 0.55) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(seed, depth + 1));
  const obj: Record<string, unknown> = next() < 0.1 ? (Object.create(null) as Record<string, unknown>) : {};
  for (let i = Math.floor(next() * 6); i > 0; i--) obj[keys[Math.floor(next() * keys.length)]!] = randomValue(seed, depth + 1);
  return obj;
}

test('canonicalJson and canonicalJsonEach write the bytes safe-stable-stringify writes, for plain data and for what takes its path', () => {
  class Point {
    constructor(
      readonly y: number,
      readonly x: number,
    ) {}
  }
  const odd: unknown[] = [
    { toJSON: () => ({ b: 1, a: 2 }) },
    { n: 10n, a: 1 },
    new Point(1, 2),
    { p: new Point(3, 4), a: [new Map([[1, 2]])] },
    JSON.parse('{"__proto__": {"b": 1, "a": 2}, "z": 1}'),
    [{ a: 1 }, { b: 2 }],
    Object.assign(new Date(0), { toJSON: () => 'own' }),
    new Uint8Array([3, 1]),
  ];
  const seed = { n: 42 };
  const values = [...odd, ...Array.from({ length: 2000 }, () => randomValue(seed, 0))];
  for (const v of values) assert.equal(canonicalJson(v), reference(v) ?? 'null', `canonicalJson(${reference(v)})`);
  // One page: a shared key list over records of several shapes, the odd ones among them.
  const each = canonicalJsonEach(values);
  values.forEach((v, i) => assert.equal(each[i], reference(v) ?? 'null', `canonicalJsonEach #${i}`));
  // More keys than one list serves: each value gets its own.
  const wide = Array.from({ length: 3 }, (_, i) => Object.fromEntries(Array.from({ length: 80 }, (_, k) => [`k${(k * 7 + i) % 97}`, k])));
  assert.deepEqual(
    canonicalJsonEach(wide),
    wide.map((v) => reference(v)),
  );
});
