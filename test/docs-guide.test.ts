/**
 * The guide at /docs/guide, served by the real platform: the contents and every page of docs/ render
 * in the dashboard's look, links between pages point at their /docs/guide URLs, an unknown page is a
 * 404 page, and a browser shows a page styled, with nothing blocked by its content security policy.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './browser-prerequisite.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

const docPages = [
  ...readdirSync(new URL('../docs/', import.meta.url)).filter((f) => f.endsWith('.md') && f !== 'README.md'),
  ...readdirSync(new URL('../docs/decisions/', import.meta.url))
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .map((f) => `decisions/${f}`),
].map((f) => f.slice(0, -'.md'.length));

describe('the guide at /docs/guide', () => {
  let t: TestPlatform;
  const get = async (path: string) => {
    const res = await fetch(`${t.url}${path}`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', csp: res.headers.get('content-security-policy') ?? '', html: await res.text() };
  };

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
  });
  after(async () => {
    await t?.stop();
  });

  test('the contents list every page in reading order, in the dashboard frame', async () => {
    const page = await get('/docs/guide');
    assert.equal(page.status, 200);
    assert.match(page.type, /^text\/html/);
    assert.match(page.html, /<link rel="stylesheet" href="\/dashboard\/assets\/dashboard.css"/);
    assert.match(page.html, /<h1 id="switchyard-guide">Switchyard guide<\/h1>/);
    const side = /<nav class="sections" aria-label="Guide pages">([\s\S]*?)<\/nav>/.exec(page.html)![1]!;
    const hrefs = [...side.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(hrefs.slice(0, 4), ['/docs/guide', '/docs/guide/readme', '/docs/guide/getting-started', '/docs/guide/concepts']);
    assert.ok(hrefs.includes('/docs/guide/contributing') && hrefs.includes('/docs/guide/decisions'), hrefs.join(' '));
    assert.equal((await get('/docs/guide/')).status, 200);
  });

  test('every page of docs/ is served, its links rewritten to guide URLs', async () => {
    for (const slug of docPages) {
      const page = await get(`/docs/guide/${slug}`);
      assert.equal(page.status, 200, slug);
      assert.match(page.html, /<article class="guide"><h1 id="/, slug);
      assert.doesNotMatch(page.html, /href="[^"]*\.md(#[^"]*)?"/, `${slug} links a .md file instead of its guide page`);
    }
    const contributing = (await get('/docs/guide/contributing')).html;
    assert.match(contributing, /<a href="\/docs\/guide\/decisions\/temporal">Temporal as the engine<\/a>/);
    assert.match(contributing, /<a href="\/docs\/guide\/getting-started#prerequisites-and-how-long-each-step-takes">/);
    assert.match(contributing, /<a href="\/docs\/guide\/contributing-tests">/);
    // The README is a page too, with its links to docs/ pointing into the guide.
    assert.match((await get('/docs/guide/readme')).html, /<a href="\/docs\/guide\/getting-started">Getting started<\/a>/);
  });

  test('an unknown page, or a path outside docs/, is a 404 page', async () => {
    for (const path of ['/docs/guide/no-such-page', '/docs/guide/%2e%2e%2fpackage', '/docs/guide/decisions/nope', '/docs/guide/README.md']) {
      const page = await get(path);
      assert.equal(page.status, 404, path);
      assert.match(page.html, /<h1>Page not found<\/h1>/, path);
    }
  });

  test('a browser shows a page in the dashboard look, nothing blocked', async () => {
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(`${t.url}/docs/guide/concepts`);
      assert.equal(await page.title(), 'Concepts · Switchyard guide');
      // dashboard.css applied: the side list's current page is highlighted as the dashboard's sections are.
      const current = page.locator('nav.sections a[aria-current="page"]');
      assert.equal(await current.textContent(), 'Concepts');
      assert.equal(await current.evaluate((a) => getComputedStyle(a).fontWeight), '600');
      assert.ok((await page.locator('article.guide table').count()) > 0, 'the glossary table renders');
      await page.locator('article.guide a[href="/docs/guide/providers"]').first().click();
      await page.waitForURL(`${t.url}/docs/guide/providers`);
      assert.equal(await page.locator('h1').first().textContent(), 'Providers');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});
