import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Result } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';
import { PrefixMatchRouter } from './router.js';

const ROUTES: [string, string][] = [
  ['ALL', '*'],
  ['GET', '/health'],
  ['GET', '/connections/:connectionId'],
  ['ALL', '/proxy'],
  ['ALL', '/proxy/*'],
  ['ALL', '/*'],
];

function both(extra: [string, string][] = []) {
  const kept = new PrefixMatchRouter<string>('/proxy');
  const plain = new TrieRouter<string>();
  for (const [method, path] of [...ROUTES, ...extra]) {
    kept.add(method, path, `${method} ${path}`);
    plain.add(method, path, `${method} ${path}`);
  }
  return { kept, plain };
}

/** Handlers and their parameters' values, whichever of Hono's two result shapes the router answers with. */
function handlers(result: Result<string>) {
  const stash = result[1];
  return result[0].map(([h, params]) => [h, Object.fromEntries(Object.entries(params).map(([name, v]) => [name, stash ? stash[v as number] : v]))]);
}

test('every path matches the handlers and parameters the trie gives it', () => {
  const { kept, plain } = both();
  for (const method of ['GET', 'POST']) {
    for (const path of ['/proxy', '/proxy/', '/proxy/a', '/proxy/a/b?x', '/proxyx', '/health', '/connections/c1', '/other']) {
      assert.deepEqual(handlers(kept.match(method, path)), handlers(plain.match(method, path)), `${method} ${path}`);
    }
  }
});

test('paths below the prefix share one match per method', () => {
  const { kept } = both();
  assert.equal(kept.match('GET', '/proxy/a'), kept.match('GET', '/proxy/b/c'));
  assert.notEqual(kept.match('GET', '/proxy/a'), kept.match('POST', '/proxy/a'));
  assert.notEqual(kept.match('GET', '/proxy'), kept.match('GET', '/proxy/a'));
});

test('a pattern that could match below the prefix turns the keeping off', () => {
  for (const extra of ['/proxy/special', '/:anything/x', '/*/x']) {
    const { kept, plain } = both([['GET', extra]]);
    assert.notEqual(kept.match('GET', '/proxy/a'), kept.match('GET', '/proxy/special'), extra);
    for (const path of ['/proxy/special', '/proxy/a/x', '/proxy/a']) {
      assert.deepEqual(handlers(kept.match('GET', path)), handlers(plain.match('GET', path)), `${extra}: ${path}`);
    }
  }
});
