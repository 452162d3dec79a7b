/**
 * Every public method of the pinned @nangohq/node (its class's own prototype, not a list typed
 * here) called against a running platform: each request it makes must be served by a route of the
 * table (api/routes/index.ts) other than the catch-all of script endpoints, which answers any path
 * (404 `Unknown endpoint`, or a 400 for its headers). A 404 for a missing record or a 400 for the
 * placeholder arguments passes: the route exists. Arguments are one
 * placeholder value that reads as the string 'x' wherever the client builds a path or a body;
 * where a method needs a shape of its own (an array of sync names, an abortable wait), it is
 * given below, and a method that still makes no request fails the test, so a method added by an
 * upgrade of the client is not skipped unnoticed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { servedPaths } from '../api/route.js';
import { routeTable } from '../api/routes/index.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

/**
 * The route of the table that serves a request, by operationId. The catch-all of script endpoints
 * (`/*`) answers any path, with a 400 or a 404 of its own: it is not a route of Nango's API, so a
 * request only it serves counts as unserved whatever its status.
 */
function routeOf(method: string, path: string): string | null {
  for (const { spec } of routeTable) {
    if (spec.operationId === 'scriptEndpoint') continue;
    if (spec.method !== 'all' && spec.method.toUpperCase() !== method) continue;
    for (const served of servedPaths(spec)) {
      const pattern = new RegExp(`^${served.replace(/\*$/, '.*').replace(/:[A-Za-z_]+/g, '[^/]+')}$`);
      if (pattern.test(path)) return spec.operationId;
    }
  }
  return null;
}

/** Methods that make no HTTP call by design (local checks and helpers). */
const LOCAL = new Set(['constructor', 'enrichHeaders', 'verifyWebhookSignature', 'verifyIncomingWebhookRequest']);

const PROXY_CONFIG = { endpoint: '/x', providerConfigKey: 'x', connectionId: 'x' };

/** 'x' as a string, a path segment, a JSON body and any property of itself. */
const X: unknown = new Proxy(
  {},
  {
    get: (_target, key) => {
      if (key === Symbol.toPrimitive || key === 'toString' || key === 'toJSON') return () => 'x';
      if (key === 'then' || typeof key === 'symbol') return undefined;
      return X;
    },
  },
);

/** A signal that aborts a wait as soon as the client starts it (after its first request). */
const abortingSignal = { aborted: false, addEventListener: (_: string, fn: () => void) => fn(), removeEventListener: () => {} };

/** Arguments of their own, for the methods the placeholder cannot drive to a request. */
const ARGS: Record<string, unknown[]> = {
  triggerSync: ['x', ['x'], 'x'],
  startSync: ['x', ['x'], 'x'],
  pauseSync: ['x', ['x'], 'x'],
  syncStatus: ['x', ['x'], 'x'],
  waitForConnection: ['x', 'x', { signal: abortingSignal }],
  listConnections: [],
  getScriptsConfig: [],
  listProviders: [{}],
  listIntegrations: [],
  getEnvironmentVariables: [],
  getAsyncActionResult: [{ id: 'x' }],
  listRecords: [{ providerConfigKey: 'x', connectionId: 'x', model: 'x' }],
  updateSyncConnectionFrequency: ['x', 'x', 'x', 'every hour'],
  proxy: [{ ...PROXY_CONFIG, method: 'GET' }],
  get: [PROXY_CONFIG],
  post: [PROXY_CONFIG],
  put: [PROXY_CONFIG],
  patch: [PROXY_CONFIG],
  delete: [PROXY_CONFIG],
};

describe('every method of @nangohq/node reaches a route the platform serves', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform();
  });
  after(async () => {
    await t?.stop();
  });

  test('no method calls a path only the catch-all answers', async () => {
    // Every answer the client receives, as it receives it.
    type Answer = { config?: { method?: string; url?: string }; status?: number };
    const calls: string[] = [];
    const record = (r: Answer | undefined) => calls.push(`${r?.config?.method?.toUpperCase()} ${new URL(r?.config?.url ?? '/', t.url).pathname} ${r?.status}`);
    const nango = new Nango(
      { secretKey: t.devKey, host: t.url },
      {
        interceptors: {
          response: {
            onFulfilled: (r) => (record(r as Answer), r),
            onRejected: (e: unknown) => {
              record((e as { response?: Answer }).response);
              throw e;
            },
          },
        },
      },
    );
    const methods = Object.getOwnPropertyNames(Nango.prototype).filter((m) => !LOCAL.has(m) && !m.startsWith('_'));
    assert.ok(methods.length >= 45, `${methods.length} methods found on the client's prototype`);
    const unknown: string[] = [];
    const silent: string[] = [];
    const reached: string[] = [];
    for (const name of methods) {
      const fn = (nango as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
      const from = calls.length;
      try {
        const out = fn.apply(nango, ARGS[name] ?? Array.from({ length: Math.max(fn.length, 1) }, () => X));
        // paginate-style methods hand back an iterator: take one page.
        if (out && typeof (out as AsyncIterator<unknown>).next === 'function') await (out as AsyncIterator<unknown>).next();
        else await out;
      } catch {
        // A 4xx for the placeholders: what matters is the route that answered.
      }
      const made = calls.slice(from);
      if (made.length === 0) {
        silent.push(name);
        continue;
      }
      const unserved = made.filter((c) => !routeOf(c.split(' ')[0]!, c.split(' ')[1]!));
      if (unserved.length) unknown.push(`${name}: ${unserved.join(', ')}`);
      else reached.push(`${name}: ${made.join(', ')}`);
    }
    console.log(`${reached.length} methods reached a route:\n  ${reached.join('\n  ')}`);
    assert.deepEqual(unknown, [], `calls no route of the table serves:\n${unknown.join('\n')}`);
    assert.deepEqual(silent, [], 'methods that made no request (give them arguments in ARGS)');
  });
});
