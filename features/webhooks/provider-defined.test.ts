import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { providerWebhookSchema } from '../providers/definition.js';
import { checkDefinedSignature, definedRoute, definedWebhookSecret, needsGeneratedSecret, valueAtPath } from './provider-defined.js';

const body = Buffer.from('{"account":{"id":"acc_1"},"n":7}');
const hubLike = providerWebhookSchema.parse({
  signature_header: 'X-Hub-Signature-256',
  algorithm: 'hmac-sha256',
  signature_prefix: 'sha256=',
  secret: 'webhook_secret',
});
const base64Sha1 = providerWebhookSchema.parse({ signature_header: 'X-Sig', algorithm: 'hmac-sha1', encoding: 'base64', secret: 'client_secret' });

test('signature: prefix + hex HMAC-SHA256 (any case), base64 HMAC-SHA1; missing, tampered, wrong key or no secret refused', () => {
  const hex = createHmac('sha256', 'whsec').update(body).digest('hex');
  assert.deepEqual(checkDefinedSignature(hubLike, body, `sha256=${hex}`, 'whsec'), { ok: true });
  assert.deepEqual(checkDefinedSignature(hubLike, body, ` SHA256=${hex.toUpperCase()} `, 'whsec'), { ok: true });
  assert.deepEqual(checkDefinedSignature(hubLike, body, hex, 'whsec'), { ok: false, reason: 'bad_signature' }, 'the prefix is required');
  assert.deepEqual(checkDefinedSignature(hubLike, body, `sha256=${hex}`, 'other'), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(checkDefinedSignature(hubLike, Buffer.from('{"account":{"id":"acc_2"}}'), `sha256=${hex}`, 'whsec'), {
    ok: false,
    reason: 'bad_signature',
  });
  assert.deepEqual(checkDefinedSignature(hubLike, body, undefined, 'whsec'), { ok: false, reason: 'missing_signature' });
  assert.deepEqual(checkDefinedSignature(hubLike, body, '  ', 'whsec'), { ok: false, reason: 'missing_signature' });
  assert.deepEqual(checkDefinedSignature(hubLike, body, `sha256=${hex}`, null), { ok: false, reason: 'no_secret' });

  const b64 = createHmac('sha1', 'cs').update(body).digest('base64');
  assert.deepEqual(checkDefinedSignature(base64Sha1, body, b64, 'cs'), { ok: true });
  assert.deepEqual(checkDefinedSignature(base64Sha1, body, b64.toLowerCase() === b64 ? `${b64}x` : b64.toLowerCase(), 'cs'), {
    ok: false,
    reason: 'bad_signature',
  });
});

test('secret: the client secret or the webhook secret, as the definition says', () => {
  const credentials = { type: 'OAUTH2' as const, client_id: 'id', client_secret: 'cs', webhook_secret: 'ws' };
  assert.equal(definedWebhookSecret(hubLike, credentials), 'ws');
  assert.equal(definedWebhookSecret(base64Sha1, credentials), 'cs');
  assert.equal(definedWebhookSecret(hubLike, { ...credentials, webhook_secret: '' }), null);
  assert.equal(definedWebhookSecret(hubLike, null), null);
  // No webhook secret in the credentials: the integration's generated one.
  assert.equal(needsGeneratedSecret(hubLike, null), true);
  assert.equal(needsGeneratedSecret(hubLike, credentials), false);
  assert.equal(needsGeneratedSecret(base64Sha1, null), false);
  assert.equal(definedWebhookSecret(hubLike, null, 'generated'), 'generated');
  assert.equal(definedWebhookSecret(hubLike, credentials, 'generated'), 'ws');
  assert.equal(definedWebhookSecret(base64Sha1, null, 'generated'), null, 'never stands in for a client secret');
});

test('routing: a dot path into the body, strings and numbers only', () => {
  const event = { data: { account: { id: 'acc_1', n: 42, nested: { x: 1 } } }, list: ['a'], empty: '' };
  assert.equal(valueAtPath(event, 'data.account.id'), 'acc_1');
  assert.equal(valueAtPath(event, 'data.missing.id'), undefined);
  assert.equal(valueAtPath(event, 'list.0'), undefined, 'arrays are not walked');
  assert.equal(valueAtPath(event, 'data.account.toString'), undefined, 'only own keys');
  const routing = (body_path: string) => ({ body_path, connection_config_key: 'account_id' });
  assert.deepEqual(definedRoute(routing('data.account.id'), event), { configKey: 'account_id', value: 'acc_1' });
  assert.deepEqual(definedRoute(routing('data.account.n'), event), { configKey: 'account_id', value: '42' });
  for (const p of ['data.account.nested', 'empty', 'nope', 'list']) assert.equal(definedRoute(routing(p), event), null, p);
});

test('a signed timestamp: covered by the signature (signed_payload), refused more than 5 minutes either way', () => {
  const slackLike = providerWebhookSchema.parse({
    signature_header: 'X-Slack-Signature',
    signature_prefix: 'v0=',
    algorithm: 'hmac-sha256',
    secret: 'webhook_secret',
    timestamp_header: 'X-Slack-Request-Timestamp',
    signed_payload: 'v0:${timestamp}:${body}',
  });
  const now = new Date('2026-01-01T12:00:00Z');
  const at = (offsetSeconds: number) => String(now.getTime() / 1000 + offsetSeconds);
  const sign = (ts: string) => `v0=${createHmac('sha256', 'ss').update(`v0:${ts}:${body.toString()}`).digest('hex')}`;
  assert.deepEqual(checkDefinedSignature(slackLike, body, sign(at(-299)), 'ss', { timestamp: at(-299), now }), { ok: true });
  assert.deepEqual(checkDefinedSignature(slackLike, body, sign(at(299)), 'ss', { timestamp: at(299), now }), { ok: true });
  assert.deepEqual(checkDefinedSignature(slackLike, body, sign(at(-301)), 'ss', { timestamp: at(-301), now }), { ok: false, reason: 'stale_timestamp' });
  assert.deepEqual(checkDefinedSignature(slackLike, body, sign(at(301)), 'ss', { timestamp: at(301), now }), { ok: false, reason: 'stale_timestamp' });
  assert.deepEqual(checkDefinedSignature(slackLike, body, sign(at(-3600)), 'ss', { timestamp: at(0), now }), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(checkDefinedSignature(slackLike, body, sign(at(0)), 'ss', { timestamp: undefined, now }), { ok: false, reason: 'missing_timestamp' });
  assert.deepEqual(checkDefinedSignature(slackLike, body, sign(at(0)), 'ss', { timestamp: 'yesterday', now }), { ok: false, reason: 'missing_timestamp' });

  const unsigned = providerWebhookSchema.safeParse({ signature_header: 'X', algorithm: 'hmac-sha256', secret: 'webhook_secret', timestamp_header: 'X-T' });
  assert.deepEqual(
    unsigned.error?.issues.map((i) => i.path),
    [['signed_payload']],
    'a timestamp the signature does not cover is refused',
  );
  const stray = providerWebhookSchema.safeParse({
    signature_header: 'X',
    algorithm: 'hmac-sha256',
    secret: 'webhook_secret',
    signed_payload: '${body}${nonce}',
  });
  assert.equal(stray.success, false);
});
