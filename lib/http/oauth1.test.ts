/**
 * OAuth 1.0a signatures against the worked examples of RFC 5849 (values typed from the RFC's text).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { hmacSha1Signature, oauth1Header, oauth1Signature, percentEncode, signatureBaseString } from './oauth1.js';

test('RFC 5849 3.4.1.1: the signature base string of the example request (query, form body, protocol parameters)', () => {
  const base = signatureBaseString({
    method: 'POST',
    url: 'http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b',
    form: [
      ['c2', ''],
      ['a3', '2 q'],
    ],
    oauth: {
      oauth_consumer_key: '9djdj82h48djs9d2',
      oauth_token: 'kkk9d7dh3k39sjv7',
      oauth_signature_method: 'HMAC-SHA1',
      oauth_timestamp: '137131201',
      oauth_nonce: '7d8f3e4a',
    },
  });
  assert.equal(
    base,
    'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
  );
});

test('RFC 5849 1.2: the HMAC-SHA1 signatures of the temporary-credentials request and of the protected-resource request', () => {
  const consumer = { key: 'dpf43f3p2l4k3l03', secret: 'kd94hf93k423kf44' };
  const initiate = hmacSha1Signature(
    {
      method: 'POST',
      url: 'https://photos.example.net/initiate',
      oauth: {
        oauth_consumer_key: consumer.key,
        oauth_signature_method: 'HMAC-SHA1',
        oauth_timestamp: '137131200',
        oauth_nonce: 'wIjqoS',
        oauth_callback: 'http://printer.example.com/ready',
      },
    },
    consumer.secret,
  );
  assert.equal(initiate, '74KNZJeDHnMBp0EMJ9ZHt/XKycU=');
  const resource = hmacSha1Signature(
    {
      method: 'GET',
      url: 'http://photos.example.net/photos?file=vacation.jpg&size=original',
      oauth: {
        oauth_consumer_key: consumer.key,
        oauth_token: 'nnch734d00sl2jdk',
        oauth_signature_method: 'HMAC-SHA1',
        oauth_timestamp: '137131202',
        oauth_nonce: 'chapoH',
      },
    },
    consumer.secret,
    'pfkkdhi9sl3r4s00',
  );
  assert.equal(resource, 'MdpQcU8iPSUjWoN/UDMsK2sui9I=');
});

test('the Authorization header carries the protocol parameters and their signature, percent-encoded', () => {
  const header = oauth1Header(
    { consumerKey: 'ck', consumerSecret: 'cs', token: 't', tokenSecret: 'ts', signatureMethod: 'HMAC-SHA1' },
    { method: 'GET', url: 'https://api.example.com/me?x=1', now: new Date(1_700_000_000_000), nonce: 'n1' },
  );
  const params = Object.fromEntries([...header.slice('OAuth '.length).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, decodeURIComponent(m[2]!)]));
  const { oauth_signature: signature, ...oauth } = params;
  assert.equal(oauth.oauth_timestamp, '1700000000');
  assert.equal(signature, hmacSha1Signature({ method: 'GET', url: 'https://api.example.com/me?x=1', oauth: oauth as Record<string, string> }, 'cs', 'ts'));
  assert.equal(percentEncode("a b!*'()~"), 'a%20b%21%2A%27%28%29~');
});

test('PLAINTEXT (RFC 5849 3.4.4) is the encoded secrets joined by "&"; HMAC-SHA256 keys the same base string; the realm is first and unsigned', () => {
  const input = { method: 'GET', url: 'https://api.example.com/me', oauth: { oauth_consumer_key: 'ck', oauth_nonce: 'n', oauth_timestamp: '1' } };
  assert.equal(oauth1Signature(input, 'PLAINTEXT', 'c s', 't&s'), 'c%20s&t%26s');
  assert.equal(oauth1Signature(input, 'HMAC-SHA256', 'cs', 'ts'), createHmac('sha256', 'cs&ts').update(signatureBaseString(input)).digest('base64'));
  const header = oauth1Header(
    { consumerKey: 'ck', consumerSecret: 'cs', token: 't', tokenSecret: 'ts', signatureMethod: 'HMAC-SHA256', realm: '123456_SB1' },
    { method: 'GET', url: 'https://api.example.com/me', now: new Date(0), nonce: 'n' },
  );
  assert.match(header, /^OAuth realm="123456_SB1", oauth_consumer_key="ck", /);
  assert.match(header, /oauth_signature_method="HMAC-SHA256"/);
});
