/**
 * The by-hand comparison tool (scripts/compare-providers.ts, issue 30 item 7) on a small file in
 * Nango's format written here: aliases resolved, refusals grouped by reason, auth modes not supported
 * yet counted apart, and same-named catalogue entries compared.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkEntry, compareReport, nangoEntries } from '../../scripts/compare-providers.js';

const file = `
acme:
    display_name: Acme
    auth_mode: API_KEY
    proxy:
        base_url: https://api.acme.test
        retry:
            at:
                - x-reset
acme-eu:
    alias: acme
    display_name: Acme EU
    proxy:
        base_url: https://api.eu.acme.test
acme-signed:
    display_name: Acme (signed)
    auth_mode: INSTALL_PLUGIN
    proxy:
        base_url: https://api.acme.test
broken:
    display_name: Broken
    auth_mode: OAUTH2
    proxy:
        base_url: https://broken.test/\${connectionConfig.site}
mailgun:
    display_name: Mailgun
    auth_mode: BASIC
    proxy:
        base_url: https://api.mailgun.net
    connection_config:
        domain:
            type: string
            title: Domain
`;

test('aliases take the named entry with their own keys over it', () => {
  const entries = nangoEntries(file);
  assert.equal(entries.get('acme-eu')!.auth_mode, 'API_KEY');
  assert.deepEqual(entries.get('acme-eu')!.proxy, { base_url: 'https://api.eu.acme.test' });
  assert.equal(entries.get('acme-eu')!.name, 'acme-eu');
});

test('refusals: an auth mode not supported yet apart from the other reasons, each naming the field', () => {
  const entries = nangoEntries(file);
  assert.deepEqual(checkEntry(entries.get('acme')!), { name: 'acme', ok: true, reasons: [] });
  assert.equal(checkEntry(entries.get('acme-signed')!).onlyAuthMode, 'INSTALL_PLUGIN');
  const broken = checkEntry(entries.get('broken')!);
  assert.equal(broken.onlyAuthMode, undefined);
  assert.ok(broken.reasons.includes('authorization_url: is required when auth_mode is OAUTH2'), broken.reasons.join('; '));
  assert.ok(broken.reasons.some((r) => r.startsWith('proxy.base_url: uses ${connectionConfig.site}')));
});

test('the report counts, groups and compares with the catalogue', () => {
  const report = compareReport(file, { list: true });
  assert.match(report, /^5 entries: 3 parse, 2 refused$/m);
  assert.match(report, /^1 of the refused only for an auth mode not supported yet: INSTALL_PLUGIN 1$/m);
  assert.match(report, /^ {2}broken: /m);
  assert.match(report, /^ {4}mailgun: theirs https:\/\/api\.mailgun\.net \| ours https:\/\/\$\{connectionConfig\.region\}\.mailgun\.net$/m);
  assert.match(report, /^ {4}mailgun: theirs domain \| ours region$/m);
});
