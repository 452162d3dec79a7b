import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';
import { assertUrlAllowed, createPinnedLookup, isHostAllowListed, isPrivateAddress, normalizeHost, type Resolver } from './address-policy.js';
import { AddressNotAllowed, InvalidUrl, NetworkError } from './errors.js';
import { rejection } from '../../test/assert.js';

function fakeResolver(answers: Record<string, string[][]>): Resolver {
  const calls: Record<string, number> = {};
  return (hostname, _options, callback) => {
    const n = (calls[hostname] = (calls[hostname] ?? 0) + 1);
    const list = answers[hostname];
    if (!list) return callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    const ips = list[Math.min(n, list.length) - 1]!;
    callback(
      null,
      ips.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
}

describe('isPrivateAddress', () => {
  const refused = [
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.0.9',
    '169.254.169.254',
    '0.0.0.0',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'febf::1',
    'fe80::1%eth0',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '0:0:0:0:0:ffff:c0a8:0101',
    '64:ff9b::10.0.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.0.1', // IETF protocol assignments (192.0.0.0/24)
    '192.0.0.255',
    '198.18.0.1', // benchmarking (198.18.0.0/15)
    '198.19.255.255',
    '::ffff:198.18.0.1',
    '2002:7f00:1::', // 6to4 (2002::/16), here wrapping 127.0.0.1
    '2002:808:808::1',
    'not-an-ip',
  ];
  const public_ = [
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '1.1.1.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2a00:1450:4001::1',
    '192.0.1.1',
    '192.0.3.1',
    '198.17.255.255',
    '198.20.0.1',
    '2001:db9::1',
    '2003::1',
  ];
  for (const ip of refused) test(`${ip} is refused`, () => assert.equal(isPrivateAddress(ip), true));
  for (const ip of public_) test(`${ip} is public`, () => assert.equal(isPrivateAddress(ip), false));
});

describe('allow-list', () => {
  test('names and IP literals are normalized before comparing', () => {
    assert.equal(normalizeHost('[::FFFF:127.0.0.1]'), '::ffff:7f00:1');
    assert.equal(normalizeHost('LocalHost.'), 'localhost');
    assert.equal(isHostAllowListed('localhost', ['LOCALHOST']), true);
    assert.equal(isHostAllowListed('[::1]', ['::1']), true);
    assert.equal(isHostAllowListed('::ffff:7f00:1', ['::ffff:127.0.0.1']), true);
    assert.equal(isHostAllowListed('metabase.internal', ['127.0.0.1']), false);
  });
});

describe('assertUrlAllowed', () => {
  const resolve = fakeResolver({
    'public.example': [['93.184.216.34']],
    'internal.example': [['10.0.0.5']],
    'mixed.example': [['93.184.216.34', '127.0.0.1']],
  });

  test('accepts a public URL', async () => {
    await assertUrlAllowed('https://public.example/hooks', [], resolve);
  });

  test('refuses non-http(s) schemes and garbage', async () => {
    for (const url of ['ftp://public.example/', 'file:///etc/passwd', 'gopher://public.example', 'javascript:alert(1)', 'not a url']) {
      assert.ok((await rejection(assertUrlAllowed(url, [], resolve))) instanceof InvalidUrl, url);
    }
  });

  test('refuses a name resolving to a private address, and any answer containing one', async () => {
    for (const url of ['https://internal.example', 'http://mixed.example:8080/x']) {
      const err = await rejection(assertUrlAllowed(url, [], resolve));
      assert.ok(err instanceof AddressNotAllowed, url);
      assert.equal(err.retryable, false);
      assert.match(err.message, /example/);
    }
  });

  test('refuses private literals, metadata and IPv4-mapped forms', async () => {
    for (const url of [
      'http://127.0.0.1:3003',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://0.0.0.0/',
      'http://2130706433/',
      'http://0x7f.1/',
    ]) {
      assert.ok((await rejection(assertUrlAllowed(url, [], resolve))) instanceof AddressNotAllowed, url);
    }
  });

  test('accepts allow-listed hosts by name or literal', async () => {
    await assertUrlAllowed('http://internal.example', ['internal.example'], resolve);
    await assertUrlAllowed('http://127.0.0.1:3003', ['127.0.0.1'], resolve);
    assert.ok((await rejection(assertUrlAllowed('http://internal.example', ['10.0.0.5'], resolve))) instanceof AddressNotAllowed);
  });

  test('an unresolvable name is a NetworkError', async () => {
    const err = await rejection(assertUrlAllowed('https://nowhere.example', [], resolve));
    assert.ok(err instanceof NetworkError);
    assert.equal(err.code, 'ENOTFOUND');
  });
});

describe('createPinnedLookup', () => {
  const lookupOnce = (lookup: ReturnType<typeof createPinnedLookup>, host: string, all: boolean) =>
    new Promise<{ err: Error | null; address: string | LookupAddress[]; family?: number }>((ok) =>
      lookup(host, { all }, (err, address, family) => ok({ err, address, family })),
    );

  test('hands the checked address to the socket, in both callback shapes', async () => {
    const lookup = createPinnedLookup([], fakeResolver({ 'api.example': [['93.184.216.34']] }));
    assert.deepEqual(await lookupOnce(lookup, 'api.example', false), { err: null, address: '93.184.216.34', family: 4 });
    assert.deepEqual((await lookupOnce(lookup, 'api.example', true)).address, [{ address: '93.184.216.34', family: 4 }]);
  });

  test('a name that rebinds to loopback on the next resolution is refused on that connection', async () => {
    const lookup = createPinnedLookup([], fakeResolver({ 'rebind.example': [['93.184.216.34'], ['127.0.0.1']] }));
    assert.equal((await lookupOnce(lookup, 'rebind.example', true)).err, null);
    const second = await lookupOnce(lookup, 'rebind.example', true);
    assert.ok(second.err instanceof AddressNotAllowed);
    assert.equal(second.address, '');
  });

  test('passes resolver errors through', async () => {
    const { err } = await lookupOnce(createPinnedLookup([], fakeResolver({})), 'nowhere.example', false);
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOTFOUND');
  });
});
