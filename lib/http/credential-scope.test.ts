import assert from 'node:assert/strict';
import { test } from 'node:test';
import { credentialsFor } from './credential-scope.js';

const auth = { type: 'bearer', token: 't' } as const;

test('credentials go to the base URL origin and listed origins only', () => {
  const trusted = { baseUrl: 'https://api.example.com/v2', origins: ['https://files.example.com'] };
  assert.deepEqual(credentialsFor(auth, 'https://api.example.com/other', trusted), auth);
  assert.deepEqual(credentialsFor(auth, 'https://files.example.com', trusted), auth);
  assert.deepEqual(credentialsFor(auth, 'https://evil.example.net', trusted), { type: 'none' });
  assert.deepEqual(credentialsFor(auth, 'http://api.example.com', trusted), { type: 'none' }, 'another scheme is another origin');
  assert.deepEqual(credentialsFor(auth, 'https://api.example.com:8443', trusted), { type: 'none' }, 'another port is another origin');
  assert.deepEqual(credentialsFor(auth, 'not a url', trusted), { type: 'none' });
});
