import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseProviderDefinition } from './store.js';
import { fillText } from './templates.js';

const at = new Date('2026-12-30T22:15:00.000Z');

test('${now...} in a text template: the fill time moved by whole units, as ISO 8601 or a UTC date', () => {
  assert.equal(fillText('${now}', { now: at }), '2026-12-30T22:15:00.000Z');
  assert.equal(fillText('${now+3:days:YYYY-MM-DD}', { now: at }), '2027-01-02');
  assert.equal(fillText('until ${now-2:hours}', { now: at }), 'until 2026-12-30T20:15:00.000Z');
  assert.equal(fillText('${now+90:minutes:YYYY-MM-DD}', { now: at }), '2026-12-30');
  // A value is never read as a template: a connection value holding ${now} stays as it is.
  assert.equal(fillText('${connectionConfig.x}', { now: at, connectionConfig: { x: '${now}' } }), '${now}');
  // Forms it does not know are not filled (and a definition using them is warned about).
  assert.equal(fillText('${now+1:weeks}', { now: at }), '${now+1:weeks}');
});

test('a definition filling ${now...} in a parameter has no warning; one it does not fill has', () => {
  const def = (expirationDate: string) => ({
    name: 'acme-session',
    auth_mode: 'TWO_STEP' as const,
    token_url: 'https://acme.example/session',
    token_params: { expirationDate },
    token_response: { token: 'value.token' },
    proxy: { base_url: 'https://acme.example' },
  });
  assert.deepEqual(parseProviderDefinition(def('${now+3:days:YYYY-MM-DD}')).warnings, []);
  assert.match(parseProviderDefinition(def('${now+1:weeks}')).warnings.join('\n'), /does not fill \$\{now\+1:weeks\}/);
});
