import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import { isolateScripts } from './isolate-scripts.js';

const polyfillsSource = async () => (await isolateScripts()).polyfills;

// A vm context has V8's built-ins only (no URL, TextEncoder…), as an isolate: the polyfills are
// compared with Node's own implementations.
const context = vm.createContext({});
vm.runInContext(await polyfillsSource(), context);
const inContext = <T>(code: string): T => vm.runInContext(code, context) as T;

const PROPS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as const;

function snapshot(Url: typeof URL, input: string, base?: string): string {
  try {
    const u = base === undefined ? new Url(input) : new Url(input, base);
    return JSON.stringify([...PROPS.map((p) => u[p]), [...u.searchParams]]);
  } catch {
    return 'invalid';
  }
}

test('URL parses as Node does', () => {
  const Poly = inContext<typeof URL>('URL');
  assert.notEqual(Poly, URL);
  const inputs = [
    'https://api.example.com/v1/items?page=2&q=a+b#top',
    'HTTP://User:P%40ss@EXAMPLE.com:80/a/./b/../c?x=é y#é',
    'http://example.com:8080',
    'https://münchen.de/straße',
    'http://0x7f.1/',
    'http://[2001:db8:0:0:0:0:0:1]:443/',
    'http://[::ffff:192.168.1.1]/',
    'http:\\\\example.com\\a\\b',
    'mailto:someone@example.com?subject=hi there',
    'foo://host/a b',
    'http://exa mple.com/',
    'http://example.com:65536/',
    'http://[1:2::3::4]/',
    'not a url',
    '',
    '../up?q#f',
    '//other.org/x',
    '?only=query',
    'https:rel',
  ];
  for (const base of [undefined, 'https://base.example/dir/file?x=1#y']) {
    for (const input of inputs) assert.equal(snapshot(Poly, input, base), snapshot(URL, input, base), `${input} (base ${base})`);
  }
  assert.equal(inContext('URL.canParse("https://x.org")'), true);
  assert.equal(inContext('URL.canParse("x.org")'), false);
  assert.equal(inContext('URL.parse("nope")'), null);
});

test('URLSearchParams serializes, parses and stays linked to its URL as Node does', () => {
  const Poly = inContext<typeof URLSearchParams>('URLSearchParams');
  const inits: ConstructorParameters<typeof URLSearchParams>[0][] = [
    { a: '1', b: 'x y', ü: 'é&=+' },
    [
      ['a', '1'],
      ['a', '2'],
    ],
    '?a=1&b=%zz&c=%C3%A9&d=+x&&e',
  ];
  for (const init of inits) {
    const node = new URLSearchParams(init);
    const poly = new Poly(init);
    assert.equal(poly.toString(), node.toString());
    assert.deepEqual(JSON.stringify([...poly]), JSON.stringify([...node]));
  }
  const script = `const u = new URL('https://x.org/p?a=1&b=2#h');
    u.searchParams.set('a', 'z y'); u.searchParams.append('c', 'é'); u.searchParams.delete('b');
    const first = u.href; u.search = '?q=9'; [first, u.searchParams.get('q'), u.href]`;
  const poly = inContext<string[]>(script);
  const node = vm.runInNewContext(script, { URL }) as string[];
  assert.deepEqual([...poly], [...node]);
});

test('TextEncoder and TextDecoder handle UTF-8 as Node does', () => {
  const encode = inContext<(s: string) => Uint8Array>('(s) => new TextEncoder().encode(s)');
  for (const s of ['', 'abc', 'é€𝄞', '\ud800x', '\ufeffbom'])
    assert.equal(Buffer.from(encode(s)).toString('hex'), Buffer.from(new TextEncoder().encode(s)).toString('hex'));
  const decode = inContext<(b: Uint8Array) => string>('(b) => new TextDecoder().decode(b)');
  for (const hex of ['', 'c3a9', 'e282ac', 'f09d849e', 'ff', 'e282', 'eda080', 'c0af', 'efbbbf41', 'f4908080']) {
    const bytes = Buffer.from(hex, 'hex');
    assert.equal(decode(new Uint8Array(bytes)), new TextDecoder().decode(bytes), hex);
  }
  assert.throws(() => inContext('new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff]))'));
});

test('URL setters change the URL as Node does', () => {
  const setters: [string, string][] = [
    ['href', 'http://other.org:81/x?y#z'],
    ['protocol', 'wss'],
    ['protocol', 'mailto:'],
    ['username', 'us er@'],
    ['password', 'p:w/'],
    ['host', 'new.example:8080/ignored'],
    ['host', 'new.example:99999'],
    ['host', '[::1]:443'],
    ['hostname', 'EXAMPLE.org'],
    ['hostname', 'a:b'],
    ['port', '443'],
    ['port', '8080abc'],
    ['port', ''],
    ['port', 'x'],
    ['pathname', '/a/../b c/./d'],
    ['search', '?q=é &r'],
    ['search', ''],
    ['hash', '#frag ment'],
    ['hash', ''],
  ];
  const apply = inContext<(input: string, prop: string, value: string) => string>(
    '(input, prop, value) => { const u = new URL(input); u[prop] = value; return JSON.stringify([u.href, u.host, u.port, [...u.searchParams]]); }',
  );
  for (const input of ['https://user:pw@example.com:8443/p/q?a=1#h', 'foo://host/x']) {
    for (const [prop, value] of setters) {
      const u = new URL(input);
      (u as unknown as Record<string, string>)[prop] = value;
      assert.equal(apply(input, prop, value), JSON.stringify([u.href, u.host, u.port, [...u.searchParams]]), `${input}: ${prop} = ${value}`);
    }
  }
});

test('URLSearchParams methods behave as Node does', () => {
  const script = `const p = new URLSearchParams('b=2&a=1&b=3&c=&a=0');
    const seen = []; p.forEach((v, k) => seen.push(k + ':' + v));
    const before = [p.size, p.get('b'), p.get('zz'), p.getAll('a'), p.has('a'), p.has('a', '9'), p.has('a', '0'), seen, [...p.keys()], [...p.values()]];
    p.delete('a', '1'); p.set('b', 'x'); p.sort(); p.append('d', 'é');
    [before, p.toString(), Object.prototype.toString.call(p), [...new URLSearchParams(p)]]`;
  const poly = inContext<unknown>(script);
  const node = vm.runInNewContext(script, { URLSearchParams }) as unknown;
  assert.equal(JSON.stringify(poly), JSON.stringify(node));
  assert.throws(() => inContext('new URLSearchParams([["a", "b", "c"]])'), /tuple/);
});

test('TextEncoder.encodeInto, TextDecoder options and labels as Node does', () => {
  const script = `const out = new Uint8Array(5);
    const r = new TextEncoder().encodeInto('aé€𝄞', out);
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x41]);
    [r.read, r.written, [...out], new TextDecoder('utf8', { ignoreBOM: true }).decode(bom), new TextDecoder().decode(bom.buffer),
      new TextDecoder(' UTF-8 ').encoding, new TextDecoder('utf-8', { fatal: true }).fatal, new TextEncoder().encoding]`;
  const poly = inContext<unknown>(script);
  const node = vm.runInNewContext(script, { TextEncoder, TextDecoder }) as unknown;
  assert.equal(JSON.stringify(poly), JSON.stringify(node));
  assert.throws(() => inContext('new TextDecoder("latin1")'), { name: 'RangeError' });
  assert.throws(() => inContext('new TextDecoder().decode("text")'), { name: 'TypeError' });
});

test('the polyfills keep their names, leave existing globals alone, and are built once per process', async () => {
  assert.equal(inContext('[URL.name, URLSearchParams.name, TextEncoder.name, TextDecoder.name].join()'), 'URL,URLSearchParams,TextEncoder,TextDecoder');
  const mine = vm.createContext({ URL: 'mine' });
  vm.runInContext(await polyfillsSource(), mine);
  assert.equal(vm.runInContext('URL', mine), 'mine');
  assert.equal(vm.runInContext('typeof TextEncoder', mine), 'function');
  assert.equal(await isolateScripts(), await isolateScripts());
});
