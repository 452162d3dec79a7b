/**
 * NotifiedCache's eviction (lib/db/change-feed.ts) on a live ChangeFeed: nearly LRU, with hits that
 * move nothing while their entry is young, and an entry used at least once every `max / 2` lookups
 * never evicted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ChangeFeed, NotifiedCache } from '../lib/db/change-feed.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

describe('NotifiedCache eviction', () => {
  let t: TestPlatform;
  let feed: ChangeFeed;

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    feed = new ChangeFeed(t.databaseUrl);
    await feed.start();
  });
  after(async () => {
    await feed?.stop();
    await t?.stop();
  });

  /** The cache's answer for `key`, and whether it had to load it. */
  const lookup = async (cache: NotifiedCache<string>, key: string) => {
    let loaded = false;
    const value = await cache.get(key, async () => {
      loaded = true;
      return `value of ${key}`;
    });
    assert.equal(value, `value of ${key}`);
    return loaded ? 'loaded' : 'cached';
  };

  test('a hit on a young entry leaves the eviction order as it was', async () => {
    const cache = new NotifiedCache<string>(feed, { max: 8, affected: () => null });
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8'];
    for (const k of keys) assert.equal(await lookup(cache, k), 'loaded');
    // k8 and k7 went in fewer than max / 2 lookups ago: their hits do not move them ...
    assert.equal(await lookup(cache, 'k8'), 'cached');
    assert.equal(await lookup(cache, 'k7'), 'cached');
    // ... so seven new keys evict k1 to k7 (an exact LRU would have evicted k8 instead of k7).
    for (let i = 0; i < 7; i++) assert.equal(await lookup(cache, `new-${i}`), 'loaded');
    assert.equal(cache.size, 8);
    assert.equal(await lookup(cache, 'k8'), 'cached');
    assert.equal(await lookup(cache, 'k7'), 'loaded');
  });

  test('an entry used once every max / 2 lookups outlives any number of other keys', async () => {
    const max = 8;
    const cache = new NotifiedCache<string>(feed, { max, affected: () => null });
    assert.equal(await lookup(cache, 'hot'), 'loaded');
    for (let i = 0; i < 200; i++) {
      assert.equal(await lookup(cache, `cold-${i}`), 'loaded');
      if (i % (max / 2 - 1) === 0) assert.equal(await lookup(cache, 'hot'), 'cached', `hot evicted after cold-${i}`);
    }
    assert.equal(cache.size, max);
  });
});
