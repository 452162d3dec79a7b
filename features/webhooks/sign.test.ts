import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders, stableStringify, standardWebhooksSecret } from './sign.js';
import { verifyWebhook } from './verify.js';

test('stableStringify sorts keys recursively and keeps JSON.stringify semantics', () => {
  const value = { b: 1, a: { d: [3, { z: true, y: null }], c: 'x' }, u: undefined, date: new Date('2026-01-01T00:00:00Z'), arr: [undefined] };
  assert.equal(stableStringify(value), '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"arr":[null],"b":1,"date":"2026-01-01T00:00:00.000Z"}');
  const text = stableStringify({ z: 'é"\n', a: [1.5, -0, 1e21] });
  assert.deepEqual(JSON.parse(text), { z: 'é"\n', a: [1.5, 0, 1e21] });
  assert.equal(JSON.stringify(JSON.parse(text)), text, 're-serializing a parsed sorted body gives the same bytes');
});

test('headers: HMAC twice, timestamped V2 per active key, legacy sha256(key + body)', () => {
  const body = '{"a":1}';
  const h = signatureHeaders(body, { current: 'new', previous: 'old' }, 1_700_000_000, 'msg_1');
  const hmac = createHmac('sha256', 'new').update(body).digest('hex');
  assert.equal(h['X-Switchyard-Hmac-Sha256'], hmac);
  assert.equal(h['X-Nango-Hmac-Sha256'], hmac);
  assert.equal(h['X-Nango-Signature'], createHash('sha256').update(`new${body}`).digest('hex'));
  assert.equal(h['X-Switchyard-Timestamp'], '1700000000');
  assert.deepEqual(
    h['X-Switchyard-Signature-V2']!.split(','),
    ['new', 'old'].map((k) => createHmac('sha256', k).update(`1700000000.${body}`).digest('hex')),
  );
});

test('Standard Webhooks: v1 signature per active key; both keys verify with the standardwebhooks package', () => {
  const body = '{"a":1}';
  const ts = Math.floor(Date.now() / 1000);
  const h = signatureHeaders(body, { current: 'new', previous: 'old' }, ts, 'msg_1');
  assert.equal(h['webhook-id'], 'msg_1');
  assert.equal(h['webhook-timestamp'], String(ts));
  assert.deepEqual(
    h['webhook-signature']!.split(' '),
    ['new', 'old'].map((k) => `v1,${createHmac('sha256', k).update(`msg_1.${ts}.${body}`).digest('base64')}`),
  );
  assert.equal(standardWebhooksSecret('new'), `whsec_${Buffer.from('new').toString('base64')}`);
  for (const k of ['new', 'old']) assert.deepEqual(new Webhook(standardWebhooksSecret(k)).verify(body, h), { a: 1 });
  assert.throws(() => new Webhook(standardWebhooksSecret('other')).verify(body, h));
});

test('verifyWebhook: window, tampering, keys, header spellings', () => {
  const body = '{"type":"sync"}';
  const now = new Date('2026-03-01T12:00:00Z');
  const ts = Math.floor(now.getTime() / 1000);
  const headers = signatureHeaders(body, { current: 'k2', previous: 'k1' }, ts, 'msg_1');
  assert.deepEqual(verifyWebhook(body, headers, 'k2', { now }), { ok: true });
  assert.deepEqual(verifyWebhook(Buffer.from(body), headers, 'k1', { now }), { ok: true });
  assert.deepEqual(verifyWebhook(body, new Headers(headers), ['x', 'k2'], { now }), { ok: true });
  assert.deepEqual(verifyWebhook(body, headers, 'k3', { now }), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifyWebhook(`${body} `, headers, 'k2', { now }), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifyWebhook(body, headers, 'k2', { now: new Date(now.getTime() + 301_000) }), { ok: false, reason: 'stale_timestamp' });
  assert.deepEqual(verifyWebhook(body, headers, 'k2', { now: new Date(now.getTime() - 301_000) }), { ok: false, reason: 'stale_timestamp' });
  assert.deepEqual(verifyWebhook(body, headers, 'k2', { now: new Date(now.getTime() + 301_000), toleranceSeconds: 600 }), { ok: true });
  assert.deepEqual(verifyWebhook(body, { ...headers, 'X-Switchyard-Timestamp': '12e3' }, 'k2', { now }), { ok: false, reason: 'bad_timestamp' });
  assert.deepEqual(verifyWebhook(body, { 'x-nango-hmac-sha256': headers['X-Nango-Hmac-Sha256'] }, 'k2', { now }), { ok: false, reason: 'missing_signature' });
  // a signature over another timestamp does not verify when the timestamp header is changed
  assert.deepEqual(verifyWebhook(body, { ...headers, 'X-Switchyard-Timestamp': String(ts + 1) }, 'k2', { now }), { ok: false, reason: 'bad_signature' });
});
