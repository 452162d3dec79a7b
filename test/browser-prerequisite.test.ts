import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findChromium, inCi, isBrowserTest, missingBrowserLine, planBrowserTests } from './browser-prerequisite.js';

test('the browser prerequisite: CHROMIUM_PATH wins; a missing browser is one line saying how to get one', () => {
  assert.deepEqual(findChromium({ CHROMIUM_PATH: process.execPath, PATH: '' }), { path: process.execPath });
  assert.deepEqual(findChromium({ CHROMIUM_PATH: '/nope/chrome', PATH: '' }), { missing: 'CHROMIUM_PATH=/nope/chrome is not an executable file' });
  assert.equal(isBrowserTest('test/dashboard.test.ts'), true);
  assert.equal(isBrowserTest('test/webhooks.test.ts'), false);
  const line = missingBrowserLine('no Chromium found', ['test/dashboard.test.ts']);
  assert.ok(!line.includes('\n'));
  assert.match(line, /skipping 1 browser test file\(s\) \(test\/dashboard\.test\.ts\): no Chromium found; install one .* or set CHROMIUM_PATH=/);
});

test("without a browser a newcomer's npm test skips the browser tests in one line; in CI (CI=true) it fails at once", () => {
  const all = ['test/dashboard.test.ts', 'test/connect-ui.test.ts', 'test/webhooks.test.ts'];
  const missing = { missing: 'no Chromium found' };

  const local = planBrowserTests(all, { named: false, browser: missing, env: {} });
  assert.deepEqual(local.files, ['test/webhooks.test.ts']);
  assert.deepEqual([local.stop, local.failAtEnd], [false, false], 'a full local run passes without the browser tests');
  assert.match(local.line ?? '', /^\[test\] skipping 2 browser test file\(s\)/);

  for (const CI of ['true', '1', 'yes']) {
    const ci = planBrowserTests(all, { named: false, browser: missing, env: { CI } });
    assert.deepEqual([ci.stop, ci.failAtEnd, ci.files], [true, true, []], `CI=${CI}: the run fails before running anything`);
    assert.ok(!ci.line?.includes('\n'));
    assert.match(
      ci.line ?? '',
      new RegExp(
        `^\\[test\\] CI=${CI}: 2 browser test file\\(s\\) cannot run \\(test/dashboard\\.test\\.ts, test/connect-ui\\.test\\.ts\\): no Chromium found; install one`,
      ),
    );
  }
  for (const CI of ['', 'false', '0']) assert.equal(planBrowserTests(all, { named: false, browser: missing, env: { CI } }).stop, false, `CI=${CI}`);
  assert.deepEqual([inCi({ CI: 'TRUE' }), inCi({}), inCi({ CI: 'False' })], [true, false, false]);

  // Named on the command line: left out, the run fails at its end; only browser tests named: nothing runs.
  const named = planBrowserTests(['test/dashboard.test.ts', 'test/webhooks.test.ts'], { named: true, browser: missing, env: {} });
  assert.deepEqual([named.files, named.stop, named.failAtEnd], [['test/webhooks.test.ts'], false, true]);
  assert.equal(planBrowserTests(['test/dashboard.test.ts'], { named: true, browser: missing, env: {} }).stop, true);

  // With a browser, or with no browser test among the files, everything runs, in CI too.
  assert.deepEqual(planBrowserTests(all, { named: false, browser: { path: '/usr/bin/chromium' }, env: { CI: 'true' } }), {
    files: all,
    line: null,
    stop: false,
    failAtEnd: false,
  });
  assert.equal(planBrowserTests(['test/webhooks.test.ts'], { named: true, browser: missing, env: { CI: 'true' } }).stop, false);
});
