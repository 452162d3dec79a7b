import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CliError, printError } from './ui.js';

/** What printError writes to stderr with DEBUG set to `debug` (or unset). */
function printed(err: unknown, debug: string | undefined): string {
  const saved = { debug: process.env.DEBUG, write: process.stderr.write };
  let out = '';
  if (debug === undefined) delete process.env.DEBUG;
  else process.env.DEBUG = debug;
  process.stderr.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stderr.write;
  try {
    printError(err);
  } finally {
    process.stderr.write = saved.write;
    if (saved.debug === undefined) delete process.env.DEBUG;
    else process.env.DEBUG = saved.debug;
  }
  return out;
}

describe('printError: DEBUG=1 prints stacks, as the hint says', () => {
  const bug = new Error('outer', { cause: new TypeError('inner') });

  test('an unexpected error: its message and the hint; the stack only with DEBUG=1, with its cause', () => {
    const plain = printed(bug, undefined);
    assert.match(plain, /outer\n.*run again with DEBUG=1 \(it prints the stack\)/);
    assert.doesNotMatch(plain, /\n\s+at /);
    const debug = printed(bug, '1');
    assert.match(debug, /Error: outer\n\s+at .*ui\.test\.ts/);
    assert.match(debug, /caused by: TypeError: inner\n\s+at /);
    assert.doesNotMatch(printed(bug, '0'), /\n\s+at /);
  });

  test('a CliError keeps its message and next step; DEBUG=1 adds where it was thrown', () => {
    const err = new CliError('No folder x', 'pass --dir');
    assert.equal(printed(err, undefined), '✗ No folder x\n  → pass --dir\n');
    assert.match(printed(err, '1'), /→ pass --dir\nCliError: No folder x\n\s+at /);
  });
});
