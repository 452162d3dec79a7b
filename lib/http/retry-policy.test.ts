import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NetworkError, RateLimited, UpstreamHttpError } from './errors.js';
import { idempotencyKey, mayRetry, wantsIdempotencyKey } from './retry-policy.js';

const bad502 = new UpstreamHttpError(502, {}, '', 'https://x/');
const reset = new NetworkError('ECONNRESET', 'reset');
const refused = new NetworkError('ECONNREFUSED', 'refused', { sent: false });
const limited = new RateLimited(1000, true, { status: 429, headers: {}, body: '', url: 'https://x/' });

describe('retry policy', () => {
  test('a 429 and a failure before sending are retried for every method', () => {
    for (const method of ['GET', 'POST', 'PATCH']) {
      assert.equal(mayRetry(limited, method, {}), true, method);
      assert.equal(mayRetry(refused, method, {}), true, method);
    }
  });

  test('after the request may have landed, only idempotent methods or keyed writes are retried', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']) assert.equal(mayRetry(bad502, method, {}), true, method);
    for (const method of ['POST', 'PATCH']) {
      assert.equal(mayRetry(bad502, method, {}), false, method);
      assert.equal(mayRetry(reset, method, {}), false, method);
      assert.equal(mayRetry(bad502, method, { 'Idempotency-Key': 'k' }), true, method);
    }
  });

  test('final errors are never retried', () => {
    assert.equal(mayRetry(new UpstreamHttpError(400, {}, '', 'https://x/'), 'GET', {}), false);
  });

  test('a key is wanted only for POST/PATCH with retries and no key of their own', () => {
    assert.equal(wantsIdempotencyKey('POST', {}, 3), true);
    assert.equal(wantsIdempotencyKey('patch', {}, 1), true);
    assert.equal(wantsIdempotencyKey('POST', {}, 0), false);
    assert.equal(wantsIdempotencyKey('PUT', {}, 3), false);
    assert.equal(wantsIdempotencyKey('POST', { 'idempotency-key': 'mine' }, 3), false);
  });

  test('the key is stable per run and position, distinct otherwise', () => {
    assert.equal(idempotencyKey('run-1', 2), idempotencyKey('run-1', 2));
    assert.notEqual(idempotencyKey('run-1', 2), idempotencyKey('run-1', 3));
    assert.notEqual(idempotencyKey('run-1', 2), idempotencyKey('run-2', 2));
  });
});
