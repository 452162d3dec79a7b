/**
 * @module sandbox/prelude — the JavaScript evaluated in every isolate before the script's bundle.
 * It captures the one host callback (`__sy_host`, removed from the global object), and builds the
 * script's context on top of it: every context method is a JSON message to the host, answered
 * through `__sy_settle`. It also provides console, setTimeout and clearTimeout. There is no
 * process, require, import, fetch or file access in the isolate: plain V8 only.
 */
export const PRELUDE = String.raw`(function () {
  'use strict';
  const host = globalThis.__sy_host;
  delete globalThis.__sy_host;
  const pending = new Map();
  let seq = 0;
  const call = (method, args) =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      pending.set(id, { resolve, reject });
      host(id, method, JSON.stringify(args === undefined ? [] : args));
    });
  const fromHost = (e) => {
    const err = new Error(e.message);
    err.name = e.name || 'Error';
    for (const k of ['status', 'code', 'body', 'headers', 'retryable', 'payload']) if (e[k] !== undefined) err[k] = e[k];
    if (e.status !== undefined) err.response = { status: e.status, data: e.body, headers: e.headers };
    Object.defineProperty(err, '__hostErrorId', { value: e.hostErrorId, enumerable: false });
    return err;
  };
  Object.defineProperty(globalThis, '__sy_settle', {
    value: (id, json) => {
      const p = pending.get(id);
      if (!p) return;
      pending.delete(id);
      const r = JSON.parse(json);
      if (r.error) p.reject(fromHost(r.error));
      else p.resolve(r.value);
    },
  });

  let timerSeq = 0;
  const cancelled = new Set();
  globalThis.setTimeout = (fn, ms, ...args) => {
    const t = ++timerSeq;
    call('sleep', [Number(ms) || 0]).then(() => {
      if (cancelled.delete(t)) return;
      if (typeof fn === 'function') fn(...args);
    });
    return t;
  };
  globalThis.clearTimeout = (t) => void cancelled.add(t);

  const text = (args) =>
    args
      .map((a) => {
        if (typeof a === 'string') return a;
        if (a instanceof Error) return a.stack || String(a);
        try {
          return JSON.stringify(a);
        } catch {
          return String(a);
        }
      })
      .join(' ');
  const logAt = (level) => (...args) => void call('log', [level, text(args)]).catch(() => undefined);
  globalThis.console = { log: logAt('info'), info: logAt('info'), debug: logAt('info'), warn: logAt('warn'), error: logAt('error') };

  const makeContext = (info) => {
    const send = (method) => (config) => call('http', [method, config]);
    return {
      connectionId: info.connectionId,
      providerConfigKey: info.providerConfigKey,
      isFullSync: info.isFullSync,
      get: send('GET'),
      post: send('POST'),
      put: send('PUT'),
      patch: send('PATCH'),
      delete: send('DELETE'),
      proxy: (config) => call('http', [(config && config.method) || 'GET', config]),
      paginate: async function* (config) {
        const id = await call('paginate.start', [config]);
        let finished = false;
        try {
          for (;;) {
            const page = await call('paginate.next', [id]);
            if (page.done) {
              finished = true;
              return;
            }
            yield page.value;
          }
        } finally {
          if (!finished) await call('paginate.return', [id]);
        }
      },
      getConnection: () => call('getConnection'),
      getMetadata: () => call('getMetadata'),
      setMetadata: (metadata) => call('setMetadata', [metadata]),
      batchSave: (records, model) => call('batchSave', [records, model]),
      batchUpdate: (records, model) => call('batchUpdate', [records, model]),
      batchDelete: (records, model) => call('batchDelete', [records, model]),
      getCheckpoint: () => call('getCheckpoint'),
      saveCheckpoint: (checkpoint) => call('saveCheckpoint', [checkpoint]),
      log: (message, fields) => void call('log', ['info', String(message), fields]).catch(() => undefined),
    };
  };

  const serialize = (e) => {
    if (e === null || typeof e !== 'object') return { name: 'Error', message: String(e) };
    const out = { name: String(e.name || 'Error'), message: String(e.message || e), stack: typeof e.stack === 'string' ? e.stack : undefined };
    if (e.__hostErrorId !== undefined) out.hostErrorId = e.__hostErrorId;
    if ('payload' in e) {
      try {
        out.payload = JSON.parse(JSON.stringify(e.payload === undefined ? null : e.payload));
      } catch {
        out.payload = String(e.payload);
      }
    }
    if (Array.isArray(e.issues)) out.issues = e.issues.map((i) => ({ path: i.path, message: i.message }));
    return out;
  };

  Object.defineProperty(globalThis, '__sy_start', {
    value: async (kind, argJson, infoJson) => {
      try {
        const bundle = globalThis.__switchyard;
        if (!bundle || typeof bundle.run !== 'function' || typeof bundle.describe !== 'function') {
          throw new Error('the bundle exports no describe()/run(): build it with switchyard compile');
        }
        if (kind === 'describe') return JSON.stringify({ ok: true, value: bundle.describe() });
        const value = await bundle.run(kind, makeContext(JSON.parse(infoJson)), JSON.parse(argJson));
        return JSON.stringify({ ok: true, value: value === undefined ? null : value });
      } catch (e) {
        return JSON.stringify({ ok: false, error: serialize(e) });
      }
    },
  });
})();`;
