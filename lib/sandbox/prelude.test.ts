import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import { isolateScripts } from './isolate-scripts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A vm context with the polyfills and the prelude, and a host that records each message and answers
 * it with `answer` (asynchronously, through __sy_settle, as the bridge does).
 */
async function isolateLike(answer: (method: string, args: unknown[]) => Json) {
  const { polyfills, prelude } = await isolateScripts();
  const calls: [string, unknown[]][] = [];
  const context = vm.createContext({});
  const settle = () => vm.runInContext('__sy_settle', context) as (id: number, json: string) => void;
  context.__sy_host = (id: number, method: string, argsJson: string) => {
    const args = JSON.parse(argsJson) as unknown[];
    calls.push([method, args]);
    setImmediate(() => settle()(id, JSON.stringify(answer(method, args))));
  };
  vm.runInContext(polyfills, context);
  vm.runInContext(prelude, context);
  const start = (kind: string, arg: unknown, info: Json = {}) =>
    (vm.runInContext('__sy_start', context) as (kind: string, argJson: string, infoJson: string) => Promise<string>)(
      kind,
      JSON.stringify(arg),
      JSON.stringify(info),
    );
  return { context, calls, start: async (kind: string, arg: unknown = null, info: Json = {}) => JSON.parse(await start(kind, arg, info)) as Json };
}

test('the prelude hides the host callback and answers describe() from the bundle', async () => {
  const { context, start } = await isolateLike(() => ({ value: null }));
  assert.equal(vm.runInContext('typeof __sy_host', context), 'undefined');
  const missing = await start('describe');
  assert.deepEqual(
    { ...missing, error: { ...missing.error, stack: undefined } },
    {
      ok: false,
      error: { name: 'Error', message: 'the bundle exports no describe()/run(): build it with switchyard compile', stack: undefined },
    },
  );
  vm.runInContext(
    `var __switchyard = { describe: () => ({ name: 'x', url: new URL('https://a.example/p?q=1').searchParams.get('q') }), run: async () => undefined };`,
    context,
  );
  assert.deepEqual(await start('describe'), { ok: true, value: { name: 'x', url: '1' } });
});

test("a run's context calls the host with JSON messages; host errors come back with their fields", async () => {
  const { context, calls, start } = await isolateLike((method, args) => {
    if (method === 'http' && (args[1] as Json).endpoint === '/fail')
      return { error: { name: 'UpstreamHttpError', message: 'nope', status: 404, body: { data: { e: 1 } }, headers: { a: 'b' }, hostErrorId: 7 } };
    if (method === 'http') return { value: { status: 200, body: { data: args } } };
    if (method === 'paginate.start') return { value: 1 };
    if (method === 'paginate.next') return { value: calls.filter(([m]) => m === 'paginate.next').length < 3 ? { done: false, value: ['p'] } : { done: true } };
    return { value: null };
  });
  vm.runInContext(
    `var __switchyard = { describe: () => ({}), run: async (kind, ctx, arg) => {
      console.log('hello', { a: 1 });
      const got = await ctx.get({ endpoint: '/x' });
      const proxied = await ctx.proxy({ method: 'PUT', endpoint: '/y' });
      const pages = []; for await (const page of ctx.paginate({ endpoint: '/list' })) pages.push(page);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const cancelled = setTimeout(() => { throw new Error('cancelled timer ran'); }, 1); clearTimeout(cancelled);
      await ctx.batchSave([{ id: '1' }], 'Item');
      let caught; try { await ctx.get({ endpoint: '/fail' }); } catch (e) { caught = { name: e.name, status: e.status, response: e.response, message: e.message }; }
      return { kind, arg, id: ctx.connectionId, provider: ctx.provider, got: got.data, proxied: proxied.data, pages, caught };
    } };`,
    context,
  );
  const result = await start('action', { n: 1 }, { connectionId: 'c1', providerConfigKey: 'pk', provider: 'avalara-sandbox', isFullSync: false });
  assert.deepEqual(result, {
    ok: true,
    value: {
      kind: 'action',
      arg: { n: 1 },
      id: 'c1',
      provider: 'avalara-sandbox',
      got: ['GET', { endpoint: '/x' }, null],
      proxied: ['PUT', { method: 'PUT', endpoint: '/y' }, null],
      pages: [['p'], ['p']],
      caught: { name: 'UpstreamHttpError', status: 404, response: { status: 404, data: { e: 1 }, headers: { a: 'b' } }, message: 'nope' },
    },
  });
  assert.deepEqual(
    calls.map(([m]) => m),
    ['log', 'http', 'http', 'paginate.start', 'paginate.next', 'paginate.next', 'paginate.next', 'sleep', 'sleep', 'batchSave', 'http'],
  );
  assert.deepEqual(calls[0], ['log', ['info', 'hello {"a":1}']]);
  assert.deepEqual(calls[9], ['batchSave', [[{ id: '1' }], 'Item']]);
});

test('an error the script lets through is serialized with its host error id, payload and issues', async () => {
  const { context, start } = await isolateLike(() => ({ error: { name: 'UpstreamHttpError', message: 'rate limited', status: 429, hostErrorId: 3 } }));
  vm.runInContext(
    `var __switchyard = { describe: () => ({}), run: async (kind, ctx) => {
      if (kind === 'sync') await ctx.get({ endpoint: '/x' });
      const e = new Error('bad input'); e.name = 'ActionError'; e.payload = { field: 'x' }; e.issues = [{ path: ['a'], message: 'm', extra: 1 }]; throw e;
    } };`,
    context,
  );
  const fromHost = (await start('sync')).error;
  assert.equal(fromHost.hostErrorId, 3);
  assert.equal(fromHost.name, 'UpstreamHttpError');
  const own = (await start('action')).error;
  assert.deepEqual(
    { ...own, stack: undefined },
    { name: 'ActionError', message: 'bad input', stack: undefined, payload: { field: 'x' }, issues: [{ path: ['a'], message: 'm' }] },
  );
});

test("paginate's on_page runs in the isolate with each raw page; log(...args) goes to the host as values; lastSyncDate is a Date", async () => {
  const { context, calls, start } = await isolateLike((method) => {
    if (method === 'paginate.start') return { value: 1 };
    if (method === 'paginate.next') {
      const n = calls.filter(([m]) => m === 'paginate.next').length - 1;
      const pages = [{ nextPageParam: n < 2 ? n + 1 : undefined, response: { status: 200, headers: {}, body: { data: { n } } } }];
      return { value: n < 2 ? { done: false, value: [n], pages } : { done: true, pages } };
    }
    return { value: null };
  });
  vm.runInContext(
    `var __switchyard = { describe: () => ({}), run: async (kind, ctx) => {
      const seen = [];
      const items = [];
      const config = { endpoint: '/list', paginate: { type: 'page', on_page: async ({ nextPageParam, response }) => void seen.push([nextPageParam, response.data.n]) } };
      for await (const page of ctx.paginate(config)) items.push(...page);
      ctx.log('two values', 3, { level: 'warn' });
      return { items, seen, last: ctx.lastSyncDate instanceof Date ? ctx.lastSyncDate.toISOString() : null };
    } };`,
    context,
  );
  const result = await start('sync', null, { connectionId: 'c', providerConfigKey: 'p', isFullSync: false, lastSyncDate: '2026-01-02T03:04:05.000Z' });
  assert.deepEqual(result, {
    ok: true,
    value: {
      items: [0, 1],
      seen: [
        [1, 0],
        [2, 1],
        [null, 2],
      ],
      last: '2026-01-02T03:04:05.000Z',
    },
  });
  assert.deepEqual(calls[0], ['paginate.start', [{ endpoint: '/list', paginate: { type: 'page' } }, true]]);
  assert.deepEqual(calls.at(-1), ['logArgs', ['two values', 3, { level: 'warn' }]]);
});

test('bytes cross the bridge exactly both ways: binary request data, arraybuffer and stream responses, error bodies, fetch bodies', async () => {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const bytes = { bytes: all.toString('base64') };
  const { context, calls, start } = await isolateLike((method, args) => {
    const config = args[1] as Json;
    if (method === 'http' && config.endpoint === '/fail')
      return { error: { name: 'UpstreamHttpError', message: 'no', status: 500, body: bytes, hostErrorId: 1 } };
    if (method === 'http') return { value: { status: 200, headers: {}, body: config.endpoint === '/json' ? { data: { bytes: 'not bytes' } } : bytes } };
    if (method === 'uncontrolledFetch')
      return { value: { status: 200, statusText: 'OK', url: (args[0] as Json).url, headers: [], body: all.toString('base64') } };
    return { value: null };
  });
  vm.runInContext(
    `var __switchyard = { describe: () => ({}), run: async (kind, ctx) => {
      const show = (b) => [Buffer.isBuffer(b), Array.from(b).join(',')];
      const down = await ctx.get({ endpoint: '/file', responseType: 'arraybuffer' });
      const chunks = [];
      for await (const chunk of (await ctx.get({ endpoint: '/file', responseType: 'stream' })).data) chunks.push(chunk);
      const json = await ctx.get({ endpoint: '/json' });
      await ctx.post({ endpoint: '/up', data: Buffer.from(down.data) });
      await ctx.put({ endpoint: '/up', data: new Uint8Array(down.data).buffer });
      let failed; try { await ctx.get({ endpoint: '/fail', responseType: 'arraybuffer' }); } catch (e) { failed = [show(e.response.data), show(e.body)]; }
      const fetched = await fetch(new URL('https://files.example/f?x=1'), { method: 'post', headers: { 'x-a': '1' }, body: down.data });
      const form = await fetch('https://files.example/form', { method: 'POST', body: new URLSearchParams({ a: 'b c' }) });
      return { down: show(down.data), stream: chunks.map(show), json: json.data, failed, fetched: show(new Uint8Array(await fetched.arrayBuffer())), form: form.status };
    } };`,
    context,
  );
  const result = await start('action', null, { connectionId: 'c', providerConfigKey: 'p', isFullSync: false });
  const shown = [true, Array.from(all).join(',')];
  assert.deepEqual(result, {
    ok: true,
    value: { down: shown, stream: [shown], json: { bytes: 'not bytes' }, failed: [shown, shown], fetched: [false, shown[1]], form: 200 },
  });
  const sent = calls.filter(([m, args]) => m === 'http' && (args[1] as Json).endpoint === '/up').map(([, args]) => args);
  assert.deepEqual(sent, [
    ['POST', { endpoint: '/up' }, all.toString('base64')],
    ['PUT', { endpoint: '/up' }, all.toString('base64')],
  ]);
  const fetches = calls.filter(([m]) => m === 'uncontrolledFetch').map(([, args]) => args);
  assert.deepEqual(fetches, [
    [{ url: 'https://files.example/f?x=1', method: 'POST', headers: { 'x-a': '1' }, body: null }, all.toString('base64')],
    [
      { url: 'https://files.example/form', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' }, body: 'a=b+c' },
      null,
    ],
  ]);
});
