import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseRateLimitReset, parseRetryAfter, retryAfterMs } from './retry-after.js';

const now = new Date('2030-01-01T00:00:00Z');
const at = (ms: number) => now.getTime() + ms;

describe('retry-after', () => {
  test('Retry-After in seconds, fractional seconds and as an HTTP date', () => {
    assert.equal(parseRetryAfter('2', now), 2000);
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter('1.5', now), 1500);
    assert.equal(parseRetryAfter(new Date(at(30_000)).toUTCString(), now), 30_000);
    assert.equal(parseRetryAfter(new Date(at(-30_000)).toUTCString(), now), 0);
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter('-5', now), null);
  });

  test('X-RateLimit-Reset as epoch seconds, epoch milliseconds and a date; past values are ignored', () => {
    assert.equal(parseRateLimitReset(String(at(5000) / 1000), now), 5000);
    assert.equal(parseRateLimitReset(String(at(7000)), now), 7000);
    assert.equal(parseRateLimitReset(new Date(at(10_000)).toISOString(), now), 10_000);
    assert.equal(parseRateLimitReset(String(at(-1000) / 1000), now), null);
    assert.equal(parseRateLimitReset(String(now.getTime() / 1000), now), null);
    assert.equal(parseRateLimitReset('30', now), null);
    assert.equal(parseRateLimitReset('garbage', now), null);
  });

  test('headers are matched in any case, arrays use the first value, the longest wait wins', () => {
    assert.equal(retryAfterMs({ 'Retry-After': '2', 'X-RateLimit-Reset': String(at(9000) / 1000) }, now), 9000);
    assert.equal(retryAfterMs({ 'retry-after': '12', 'x-ratelimit-reset': String(at(9000)) }, now), 12_000);
    assert.equal(retryAfterMs({ 'x-ratelimit-reset': [String(at(3000) / 1000), '0'] }, now), 3000);
    assert.equal(retryAfterMs({ 'retry-after': '3', 'x-ratelimit-reset': String(at(-9000) / 1000) }, now), 3000);
  });

  test("a provider's own headers (its definition's proxy.retry): `after` in seconds, `at` a time", () => {
    const own = { after: 'X-Wait-Seconds', at: 'X-Rate-Limit-Reset-At' };
    assert.equal(retryAfterMs({ 'x-wait-seconds': '4' }, now), null, 'unknown without the definition');
    assert.equal(retryAfterMs({ 'x-wait-seconds': '4' }, now, own), 4000);
    assert.equal(retryAfterMs({ 'x-rate-limit-reset-at': String(at(6000) / 1000) }, now, own), 6000);
    assert.equal(retryAfterMs({ 'x-rate-limit-reset-at': new Date(at(8000)).toUTCString(), 'retry-after': '1' }, now, own), 8000);
  });

  test('no usable header gives null', () => {
    assert.equal(retryAfterMs({}, now), null);
    assert.equal(retryAfterMs({ 'retry-after': undefined, 'x-ratelimit-reset': '' }, now), null);
  });
});
