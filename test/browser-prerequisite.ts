/**
 * Which Chromium the browser tests (those importing playwright-core) drive: CHROMIUM_PATH, else a
 * Chromium or Chrome on PATH, else the one `npx playwright-core install chromium` downloads. Without
 * one, `npm test` (test/run.ts) skips the browser tests with one line, instead of failing them, for
 * a newcomer's first run; in CI (`CI` set, as CI services and .ci/run do) it fails at once, so a
 * green CI run always includes them.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

/** The flags every browser test launches Chromium with (headless on a machine without a display or sandbox). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

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

const HOW_TO_GET_ONE = 'install one (apt-get install chromium, or npx playwright-core install chromium) or set CHROMIUM_PATH=/path/to/chrome';

export function missingBrowserLine(reason: string, skipped: string[]): string {
  return `[test] skipping ${skipped.length} browser test file(s) (${skipped.join(', ')}): ${reason}; ${HOW_TO_GET_ONE}`;
}

/** A CI run: `CI` set to anything but empty, `false` or `0` (GitHub, GitLab and most services set CI=true). */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  const value = (env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== 'false' && value !== '0';
}

export interface BrowserPlan {
  /** The test files to run. */
  files: string[];
  /** One line to print: why the run stops, or (at its end) which files were skipped. */
  line: string | null;
  /** Stop before running anything: the run fails. */
  stop: boolean;
  /** The run fails even when every test it ran passed (browser tests named on the command line were left out). */
  failAtEnd: boolean;
}

/** What `npm test` runs given the browser: all of it, all but the browser tests (said in one line), or nothing (CI, or only browser tests asked for). */
export function planBrowserTests(
  files: string[],
  opts: { named: boolean; browser: { path: string } | { missing: string }; env: NodeJS.ProcessEnv },
): BrowserPlan {
  const browserFiles = 'missing' in opts.browser ? files.filter(isBrowserTest) : [];
  if (!('missing' in opts.browser) || browserFiles.length === 0) return { files, line: null, stop: false, failAtEnd: false };
  const reason = opts.browser.missing;
  if (inCi(opts.env)) {
    return {
      files: [],
      line: `[test] CI=${opts.env.CI}: ${browserFiles.length} browser test file(s) cannot run (${browserFiles.join(', ')}): ${reason}; ${HOW_TO_GET_ONE}`,
      stop: true,
      failAtEnd: true,
    };
  }
  const rest = files.filter((f) => !browserFiles.includes(f));
  const line = missingBrowserLine(reason, browserFiles);
  return { files: rest, line, stop: rest.length === 0, failAtEnd: opts.named };
}
