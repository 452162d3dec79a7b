/**
 * AWS Signature Version 4 against AWS's published Signature Version 4 test suite
 * (https://docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html): credential scope
 * AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, secret wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY.
 * Inputs and expected outputs typed from the suite's request (.req), canonical request (.creq) and
 * signed request (.sreq) files.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalRequest, payloadHash, signAwsV4, UNSIGNED_PAYLOAD } from './aws-sigv4.js';

const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 'service' };
const at = new Date('2015-08-30T12:36:00Z');
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const authz = (signedHeaders: string, signature: string) =>
  `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=${signedHeaders}, Signature=${signature}`;

test('get-vanilla-query-order-key-case: parameters sorted in the canonical request, and its Authorization header', () => {
  const url = new URL('https://example.amazonaws.com/?Param2=value2&Param1=value1');
  const { canonical } = canonicalRequest({ method: 'GET', url, headers: { 'X-Amz-Date': '20150830T123600Z' }, payloadHash: payloadHash(null) }, 'service');
  assert.equal(
    canonical,
    ['GET', '/', 'Param1=value1&Param2=value2', 'host:example.amazonaws.com', 'x-amz-date:20150830T123600Z', '', 'host;x-amz-date', EMPTY].join('\n'),
  );
  const signed = signAwsV4({ method: 'GET', url, payloadHash: payloadHash(null) }, creds, at);
  assert.equal(signed['x-amz-date'], '20150830T123600Z');
  assert.equal(signed.authorization, authz('host;x-amz-date', 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500'));
});

test('get-vanilla, post-vanilla and post-x-www-form-urlencoded (a signed content-type and a body hash)', () => {
  const url = new URL('https://example.amazonaws.com/');
  assert.equal(
    signAwsV4({ method: 'GET', url, payloadHash: payloadHash(null) }, creds, at).authorization,
    authz('host;x-amz-date', '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31'),
  );
  assert.equal(
    signAwsV4({ method: 'POST', url, payloadHash: payloadHash('') }, creds, at).authorization,
    authz('host;x-amz-date', '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b'),
  );
  assert.equal(
    signAwsV4({ method: 'POST', url, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, payloadHash: payloadHash('Param1=value1') }, creds, at)
      .authorization,
    authz('content-type;host;x-amz-date', 'ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a'),
  );
});

test('a session token is sent and signed; S3 gets x-amz-content-sha256, a streamed body is UNSIGNED-PAYLOAD', () => {
  const url = new URL('https://example.amazonaws.com/');
  const signed = signAwsV4({ method: 'GET', url, payloadHash: payloadHash(null) }, { ...creds, sessionToken: 'tok' }, at);
  assert.equal(signed['x-amz-security-token'], 'tok');
  assert.match(signed.authorization!, /SignedHeaders=host;x-amz-date;x-amz-security-token,/);
  const s3 = signAwsV4(
    { method: 'PUT', url: new URL('https://b.s3.us-east-1.amazonaws.com/a%20b'), payloadHash: payloadHash({ stream: true }) },
    { ...creds, service: 's3' },
    at,
  );
  assert.equal(s3['x-amz-content-sha256'], UNSIGNED_PAYLOAD);
  assert.match(s3.authorization!, /SignedHeaders=host;x-amz-content-sha256;x-amz-date,/);
});

test('the path is encoded once for S3 and twice for other services', () => {
  const url = new URL('https://example.amazonaws.com/a b/c');
  const of = (service: string) => canonicalRequest({ method: 'GET', url, headers: {}, payloadHash: EMPTY }, service).canonical.split('\n')[1];
  assert.equal(of('s3'), '/a%20b/c');
  assert.equal(of('execute-api'), '/a%2520b/c');
});
