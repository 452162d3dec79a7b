import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import { isolateScripts } from './isolate-scripts.js';

// A vm context has V8's built-ins only (no Buffer, atob, Headers…), as an isolate: each script runs
// there on the polyfills and in a second context on Node's own classes, and the answers must match.
const context = vm.createContext({});
vm.runInContext((await isolateScripts()).polyfills, context);
// Each script runs in a block of its own (its value is its last expression).
const poly = (script: string): string => JSON.stringify(vm.runInContext(`{ ${script} }`, context));
const node = (script: string): string => JSON.stringify(vm.runInNewContext(`{ ${script} }`, { Buffer, atob, btoa, Headers }));
const same = (script: string) => assert.equal(poly(script), node(script), script);

/** What a run's answer carries of a value: a Buffer as its class, length and bytes. */
const SHOW = `const show = (b) => ArrayBuffer.isView(b) ? [Buffer.isBuffer(b), b.length, Array.from(b)] : b;`;

test('Buffer.from reads strings in each of Node encodings as Node does', () => {
  const strings = ['', 'hello', 'é€𝄞', '\ud800x', 'aGk=', 'aGk=aGk=', 'a$G k\n', 'aGVsbG8-_w', 'a', '==aGk', 'aG=k', 'abc', '0g12', 'DEADbeef', 'ÿ\u0100'];
  const encodings = [undefined, 'utf8', 'utf-8', 'UTF8', 'base64', 'base64url', 'hex', 'latin1', 'binary', 'ascii', 'ucs2', 'utf16le'];
  for (const s of strings) for (const e of encodings) same(`${SHOW} show(Buffer.from(${JSON.stringify(s)}${e === undefined ? '' : `, ${JSON.stringify(e)}`}))`);
  assert.throws(() => vm.runInContext('Buffer.from("x", "nope")', context), /Unknown encoding: nope/);
});

test('Buffer.from copies arrays, views and {type: "Buffer"} objects, and shares an ArrayBuffer', () => {
  for (const expr of [
    '[1, 2, 300, -1, "7", null]',
    'new Uint8Array([5, 6, 7])',
    'new Uint16Array([0x0102, 0x0304])',
    '{ type: "Buffer", data: [104, 105] }',
    '{ length: 2, 0: 65, 1: 66 }',
    'new String("str")',
    'Buffer.from("abc").toJSON()',
  ])
    same(`${SHOW} show(Buffer.from(${expr}))`);
  same(`${SHOW} const ab = new ArrayBuffer(4); const b = Buffer.from(ab, 1, 2); b[0] = 9; [show(b), Array.from(new Uint8Array(ab))]`);
  same(`${SHOW} const src = Buffer.from([1, 2, 3]); const copy = Buffer.from(src); copy[0] = 0; [show(src), show(copy)]`);
  for (const bad of ['5', 'null', 'undefined', '{}'])
    assert.equal(
      /must be of type string or an instance of Buffer/.test(String(vm.runInContext(`try { Buffer.from(${bad}) } catch (e) { e.message }`, context))),
      true,
      bad,
    );
});

test('Buffer statics: alloc, allocUnsafe, concat, isBuffer, isEncoding, byteLength, compare', () => {
  same(
    `${SHOW} [show(Buffer.alloc(3)), show(Buffer.alloc(5, 'ab')), show(Buffer.alloc(4, 257)), show(Buffer.alloc(4, 'aGk=', 'base64')), show(Buffer.alloc(0)), Buffer.allocUnsafe(3).length]`,
  );
  same(
    `${SHOW} [show(Buffer.concat([Buffer.from('ab'), new Uint8Array([1, 2]), Buffer.from('c')])), show(Buffer.concat([Buffer.from('abcdef')], 3)), show(Buffer.concat([Buffer.from('ab')], 4)), show(Buffer.concat([]))]`,
  );
  same(
    `[Buffer.isBuffer(Buffer.from('a')), Buffer.isBuffer(new Uint8Array(1)), Buffer.isBuffer('a'), Buffer.isBuffer(null), Buffer.isBuffer({ type: 'Buffer', data: [] })]`,
  );
  same(`['utf8', 'UTF-8', 'hex', 'base64url', 'binary', 'ucs-2', 'nope', ''].map((e) => Buffer.isEncoding(e))`);
  same(
    `[Buffer.byteLength('é€𝄞'), Buffer.byteLength('abc', 'hex'), Buffer.byteLength('aGk=', 'base64'), Buffer.byteLength('a$Gk', 'base64'), Buffer.byteLength('ab', 'latin1'), Buffer.byteLength('ab', 'utf16le'), Buffer.byteLength(new Uint16Array(3)), Buffer.byteLength(new ArrayBuffer(7))]`,
  );
  same(
    `[Buffer.compare(Buffer.from('a'), Buffer.from('b')), Buffer.compare(Buffer.from('b'), Buffer.from('a')), Buffer.compare(Buffer.from('ab'), Buffer.from('a')), Buffer.compare(Buffer.from('a'), Buffer.from('a'))]`,
  );
  assert.throws(() => vm.runInContext('Buffer.alloc(-1)', context), { name: 'RangeError' });
});

test('a Buffer: toString in each encoding and range, toJSON, equals, compare, copy, slice and subarray as views', () => {
  const bytes = '[0, 1, 127, 128, 195, 169, 226, 130, 172, 250, 255, 104, 105]';
  for (const e of ['undefined', "'utf8'", "'hex'", "'base64'", "'base64url'", "'latin1'", "'binary'", "'ascii'", "'utf16le'"])
    same(`const b = Buffer.from(${bytes}); [b.toString(${e}), b.toString(${e}, 2), b.toString(${e}, 3, 6), b.toString(${e}, -5, 100), b.toString(${e}, 6, 3)]`);
  same(`const b = Buffer.from('hi'); [JSON.stringify(b), JSON.stringify({ file: b }), b.toJSON()]`);
  same(
    `const b = Buffer.from('abc'); [b.equals(Buffer.from('abc')), b.equals(new Uint8Array([97, 98, 99])), b.equals(Buffer.from('ab')), b.compare(Buffer.from('abd')), b.compare(Buffer.from('xbc'), 1, 3, 1, 3)]`,
  );
  same(`${SHOW} const b = Buffer.from('abcdef'); const t = Buffer.alloc(4, '.'); const n = b.copy(t, 1, 2, 10); [n, show(t)]`);
  same(
    `${SHOW} const b = Buffer.from('abcdef'); const s = b.slice(1, 3); const u = b.subarray(-2); s[0] = 65; u[1] = 66; [show(s), show(u), b.toString(), show(b.slice())]`,
  );
  same(`const b = Buffer.from('ab'); [Object.prototype.toString.call(b), b.length, b.byteLength, [...b], Buffer.name]`);
  assert.equal(poly(`Buffer.from('ab') instanceof Uint8Array`), 'true');
  // Members not provided are absent (the type-check names them), not half-done.
  assert.equal(poly(`typeof Buffer.from('ab').readUInt32BE`), '"undefined"');
  assert.throws(() => vm.runInContext('Buffer.from("a").equals("a")', context), { name: 'TypeError' });
});

test('atob and btoa as Node does (the forgiving base64 of the web platform)', () => {
  for (const s of ['', 'hi', 'Hello, world', 'ÿ\u0080é']) same(`btoa(${JSON.stringify(s)})`);
  for (const s of ['aGk=', 'aGk', 'aG k=\n', 'SGVsbG8sIHdvcmxk', '']) same(`atob(${JSON.stringify(s)})`);
  for (const bad of ['a', 'aGk$', 'aGk==', 'a=Gk', 'aGVsbG8-_w'])
    assert.equal(poly(`(() => { try { return atob(${JSON.stringify(bad)}) } catch (e) { return e.name } })()`), '"InvalidCharacterError"', bad);
  assert.equal(poly(`(() => { try { return btoa('€') } catch (e) { return e.name } })()`), '"InvalidCharacterError"');
  assert.throws(() => atob('aGk$'), { name: 'InvalidCharacterError' });
});

test('Headers: names case-insensitive, values trimmed, iteration sorted and combined as Node does', () => {
  same(`const h = new Headers({ B: '1', a: ' 2 ', 'set-cookie': 'x' }); h.append('A', '3'); h.append('Set-Cookie', 'y');
    const seen = []; h.forEach((v, k) => seen.push(k + '=' + v));
    [[...h], h.get('a'), h.get('SET-COOKIE'), h.get('none'), h.has('b'), h.getSetCookie(), seen, [...h.keys()], [...h.values()], Object.prototype.toString.call(h)]`);
  same(`const h = new Headers([['x-a', '1'], ['X-A', '2'], ['b', '3']]); h.set('x-a', '9'); h.delete('B'); [...new Headers(h)]`);
  same(`[...new Headers({ a: 1, c: ['p', 'q'] })]`);
  for (const bad of ["new Headers({ 'bad name': '1' })", "new Headers([['a']])", "new Headers({ a: 'x\\ny' })", 'new Headers(5)'])
    assert.equal(
      poly(`(() => { try { ${bad}; return 'ok' } catch (e) { return e.name } })()`),
      node(`(() => { try { ${bad}; return 'ok' } catch (e) { return e.name } })()`),
      bad,
    );
});
