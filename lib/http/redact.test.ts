import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSecretParamName, redactPath, redactUrl } from './redact.js';

test('secret-looking query parameters are redacted, others kept byte for byte', () => {
  assert.equal(redactUrl('https://api.example/v1/items?api_key=x&page=2'), 'https://api.example/v1/items?api_key=[redacted]&page=2');
  assert.equal(
    redactUrl('https://h.example/cb?code=abc&state=s%20t&X-Amz-Signature=f00&client_secret=cs&Access_Token=t&q=a+b'),
    'https://h.example/cb?code=[redacted]&state=s%20t&X-Amz-Signature=[redacted]&client_secret=[redacted]&Access_Token=[redacted]&q=a+b',
  );
  assert.equal(redactUrl('https://h.example/x?flag&apikey=1'), 'https://h.example/x?flag&apikey=[redacted]');
});

test('userinfo is redacted and the fragment dropped', () => {
  assert.equal(redactUrl('https://user:pa55@h.example:8443/p?page=1#access_token=t'), 'https://[redacted]@h.example:8443/p?page=1');
  assert.equal(redactUrl('not a url'), '[redacted]');
});

test('secret names match by case-insensitive substring', () => {
  for (const n of ['token', 'refresh_token', 'KEY', 'x-api-key', 'password', 'sig', 'Authorization', 'client_secret'])
    assert.equal(isSecretParamName(n), true, n);
  for (const n of ['page', 'limit', 'cursor', 'state']) assert.equal(isSecretParamName(n), false, n);
});

test('the secret that ends a provider webhook URL is redacted from a logged path; other paths are kept', () => {
  assert.equal(redactPath('/webhook/0b7e/slack/6f59371c'), '/webhook/0b7e/slack/[redacted]');
  assert.equal(redactPath('/webhook/0b7e/slack'), '/webhook/0b7e/slack');
  assert.equal(redactPath('/connections/acme'), '/connections/acme');
});
