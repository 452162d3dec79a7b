/**
 * Which Chromium the browser tests (those importing playwright-core) drive: CHROMIUM_PATH, else a
 * Chromium or Chrome on PATH, else the one `npx playwright-core install chromium` downloads. `npm test`
 * (test/run.ts) skips the browser tests with one line when there is none, instead of failing them.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The browser to use, or why there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): { path: string } | { missing: string } {
  if (env.CHROMIUM_PATH)
    return executable(env.CHROMIUM_PATH) ? { path: env.CHROMIUM_PATH } : { missing: `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file` };
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of NAMES) if (executable(path.join(dir, name))) return { path: path.join(dir, name) };
  }
  const downloaded = chromium.executablePath();
  if (downloaded && executable(downloaded)) return { path: downloaded };
  return { missing: 'no Chromium found' };
}

/** A test file that drives a browser. */
export function isBrowserTest(file: string): boolean {
  return /from 'playwright-core'/.test(readFileSync(file, 'utf8'));
}

export function missingBrowserLine(reason: string, skipped: string[]): string {
  return (
    `[test] skipping ${skipped.length} browser test file(s) (${skipped.join(', ')}): ${reason}; ` +
    'install one (apt-get install chromium, or npx playwright-core install chromium) or set CHROMIUM_PATH=/path/to/chrome'
  );
}
