import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findChromium, isBrowserTest, missingBrowserLine } from './browser-prerequisite.js';

test('the browser prerequisite: CHROMIUM_PATH wins; a missing browser is one line saying how to get one', () => {
  assert.deepEqual(findChromium({ CHROMIUM_PATH: process.execPath, PATH: '' }), { path: process.execPath });
  assert.deepEqual(findChromium({ CHROMIUM_PATH: '/nope/chrome', PATH: '' }), { missing: 'CHROMIUM_PATH=/nope/chrome is not an executable file' });
  assert.equal(isBrowserTest('test/dashboard.test.ts'), true);
  assert.equal(isBrowserTest('test/webhooks.test.ts'), false);
  const line = missingBrowserLine('no Chromium found', ['test/dashboard.test.ts']);
  assert.ok(!line.includes('\n'));
  assert.match(line, /skipping 1 browser test file\(s\) \(test\/dashboard\.test\.ts\): no Chromium found; install one .* or set CHROMIUM_PATH=/);
});
