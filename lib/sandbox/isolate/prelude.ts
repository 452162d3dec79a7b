/**
 * @module sandbox/isolate/prelude — evaluated in every isolate after the polyfills, before the
 * script's bundle. It captures the one host callback (`__sy_host`, removed from the global object),
 * and builds the script's context on top of it: every context method is a JSON message to the host
 * (lib/sandbox/bridge.ts), answered through `__sy_settle`. It also provides console, setTimeout and
 * clearTimeout, and the global `fetch` Nango's runtime gives functions (./fetch.ts, through the same
 * host method as `nango.uncontrolledFetch`). There is no process, require, import or file access in
 * the isolate: plain V8 only. Bodies cross as ./wire.ts says, so bytes arrive as bytes.
 * `__sy_start` runs one entry point of the bundle and answers with JSON. The Node modules Nango's
 * functions may import are set up first (./node-modules.ts).
 */
import './node-modules.js';
import { FetchResponse, type FetchAnswer } from './fetch-response.js';
import { installFetch } from './fetch.js';
import { asResponseType, bytesOut, fromWire, type WireBody } from './wire.js';

/** An error of the host, as the bridge sends it. */
interface HostError {
  name?: string;
  message: string;
  status?: number;
  code?: string;
  body?: WireBody;
  headers?: unknown;
  retryable?: boolean;
  payload?: unknown;
  hostErrorId?: number;
}

type Host = (id: number, method: string, argsJson: string) => void;
type Json = Record<string, unknown>;

const G = globalThis as unknown as Record<string, unknown>;
const host = G.__sy_host as Host;
delete G.__sy_host;

const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: unknown) => void }>();
let seq = 0;
const call = <T = unknown>(method: string, args?: unknown[]): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const id = ++seq;
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    host(id, method, JSON.stringify(args === undefined ? [] : args));
  });

const HOST_ERROR_FIELDS = ['status', 'code', 'headers', 'retryable', 'payload'] as const;
const fromHost = (e: HostError): Error => {
  const err = new Error(e.message) as Error & Json;
  err.name = e.name || 'Error';
  for (const k of HOST_ERROR_FIELDS) if (e[k] !== undefined) err[k] = e[k];
  const body = fromWire(e.body);
  if (e.body !== undefined) err.body = body;
  if (e.status !== undefined) err.response = { status: e.status, data: body, headers: e.headers };
  Object.defineProperty(err, '__hostErrorId', { value: e.hostErrorId, enumerable: false });
  return err;
};

Object.defineProperty(globalThis, '__sy_settle', {
  value: (id: number, json: string) => {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    const r = JSON.parse(json) as { value?: unknown; error?: HostError };
    if (r.error) p.reject(fromHost(r.error));
    else p.resolve(r.value);
  },
});

// ---- timers: a sleep on the host ------------------------------------------------------------
let timerSeq = 0;
const cancelled = new Set<unknown>();
G.setTimeout = (fn: unknown, ms?: unknown, ...args: unknown[]): number => {
  const t = ++timerSeq;
  void call('sleep', [Number(ms) || 0]).then(() => {
    if (cancelled.delete(t)) return;
    if (typeof fn === 'function') fn(...args);
  });
  return t;
};
G.clearTimeout = (t: unknown) => void cancelled.add(t);

// ---- console: log lines of the run ---------------------------------------------------------
const text = (args: unknown[]): string =>
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
const logAt =
  (level: 'info' | 'warn' | 'error') =>
  (...args: unknown[]): void =>
    void call('log', [level, text(args)]).catch(() => undefined);
G.console = { log: logAt('info'), info: logAt('info'), debug: logAt('info'), warn: logAt('warn'), error: logAt('error') };

// ---- the script's context ------------------------------------------------------------------
interface RunInfo {
  connectionId: string;
  providerConfigKey: string;
  /** The integration's provider (Nango's `nango.provider`). */
  provider?: string;
  isFullSync: boolean;
  variant?: string;
  lastSyncDate?: string;
}

type OnPage = (page: { nextPageParam?: unknown; response: unknown }) => unknown;
/** A provider's answer as the bridge sends it. */
interface HostResponse {
  status: number;
  headers: unknown;
  body: WireBody;
}
type RequestConfig = { data?: unknown; responseType?: unknown } | null | undefined;

/** A request to the provider: a binary `data` goes as bytes beside the config; the answer's body is rebuilt as `responseType` asks. */
const request = async (method: string, config: RequestConfig) => {
  const bytes = config ? bytesOut(config.data) : null;
  const res = await call<HostResponse>('http', [method, bytes === null ? config : { ...config, data: undefined }, bytes]);
  return { status: res.status, headers: res.headers, data: asResponseType(fromWire(res.body), config && config.responseType) };
};
const uncontrolledFetch = async (options: unknown, bytes: string | null) => new FetchResponse(await call<FetchAnswer>('uncontrolledFetch', [options, bytes]));
installFetch(uncontrolledFetch);

/** A log argument as JSON can carry it (an Error as its stack). */
const loggable = (a: unknown): unknown => (a instanceof Error ? a.stack || String(a) : a);

const makeContext = (info: RunInfo) => {
  const send = (method: string) => (config: RequestConfig) => request(method, config);
  const one = (method: string) => (arg: unknown) => call(method, [arg]);
  return {
    connectionId: info.connectionId,
    providerConfigKey: info.providerConfigKey,
    ...(info.provider ? { provider: info.provider } : {}),
    isFullSync: info.isFullSync,
    variant: info.variant || 'base',
    ...(info.lastSyncDate ? { lastSyncDate: new Date(info.lastSyncDate) } : {}),
    get: send('GET'),
    post: send('POST'),
    put: send('PUT'),
    patch: send('PATCH'),
    delete: send('DELETE'),
    proxy: (config: (RequestConfig & { method?: string }) | null | undefined) => request((config && config.method) || 'GET', config),
    paginate: async function* (config: { paginate?: { on_page?: unknown } } | null): AsyncGenerator<unknown, void, undefined> {
      const onPage = config && config.paginate && typeof config.paginate.on_page === 'function' ? (config.paginate.on_page as OnPage) : null;
      const id = await call<number>('paginate.start', [config, onPage !== null]);
      let finished = false;
      try {
        for (;;) {
          const page = await call<{ done: boolean; value?: unknown; pages?: { nextPageParam?: unknown; response: HostResponse }[] }>('paginate.next', [id]);
          if (onPage)
            for (const p of page.pages || [])
              await onPage({
                nextPageParam: p.nextPageParam,
                response: { status: p.response.status, headers: p.response.headers, data: fromWire(p.response.body) },
              });
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
    getToken: () => call('getToken'),
    getMetadata: () => call('getMetadata'),
    setMetadata: one('setMetadata'),
    updateMetadata: one('updateMetadata'),
    getEnvironmentVariables: () => call('getEnvironmentVariables'),
    getWebhookURL: () => call('getWebhookURL'),
    getIntegration: (queries?: unknown) => call('getIntegration', [queries === undefined ? null : queries]),
    uncontrolledFetch: async (options: { url?: unknown; method?: unknown; headers?: unknown; body?: unknown } | null) => {
      const o = options || {};
      const url = o.url !== null && typeof o.url === 'object' && 'href' in o.url ? String(o.url.href) : String(o.url);
      const bytes = bytesOut(o.body);
      return uncontrolledFetch({ url, method: o.method, headers: o.headers, body: bytes === null ? o.body : null }, bytes);
    },
    batchSave: (records: unknown, model: unknown) => call('batchSave', [records, model]),
    batchUpdate: (records: unknown, model: unknown) => call('batchUpdate', [records, model]),
    batchDelete: (records: unknown, model: unknown) => call('batchDelete', [records, model]),
    listRecords: async function* (model: unknown, options?: { cursor?: unknown } | null): AsyncGenerator<unknown, void, undefined> {
      let cursor = options && typeof options.cursor === 'string' ? options.cursor : null;
      do {
        const page = await call<{ records: unknown[]; nextCursor: string | null }>('listRecordsPage', [model, cursor]);
        for (const record of page.records) yield record;
        cursor = page.nextCursor;
      } while (cursor);
    },
    getCheckpoint: () => call('getCheckpoint'),
    saveCheckpoint: one('saveCheckpoint'),
    clearCheckpoint: () => call('clearCheckpoint'),
    deleteRecordsFromPreviousExecutions: one('deleteRecordsFromPreviousExecutions'),
    trackDeletesStart: one('trackDeletesStart'),
    trackDeletesEnd: one('trackDeletesEnd'),
    log: (...args: unknown[]) => void call('logArgs', args.map(loggable)).catch(() => undefined),
  };
};

// ---- running an entry point of the bundle --------------------------------------------------
/** What the host gets back of an error the script let through. */
interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  hostErrorId?: number;
  payload?: unknown;
  issues?: { path: unknown; message: unknown }[];
}

const serialize = (e: unknown): SerializedError => {
  if (e === null || typeof e !== 'object') return { name: 'Error', message: String(e) };
  const x = e as Json;
  const out: SerializedError = { name: String(x.name || 'Error'), message: String(x.message || e), stack: typeof x.stack === 'string' ? x.stack : undefined };
  if (x.__hostErrorId !== undefined) out.hostErrorId = x.__hostErrorId as number;
  if ('payload' in x) {
    try {
      out.payload = JSON.parse(JSON.stringify(x.payload === undefined ? null : x.payload));
    } catch {
      out.payload = String(x.payload);
    }
  }
  if (Array.isArray(x.issues)) out.issues = (x.issues as Json[]).map((i) => ({ path: i.path, message: i.message }));
  return out;
};

interface Bundle {
  describe?: unknown;
  run?: unknown;
}

Object.defineProperty(globalThis, '__sy_start', {
  value: async (kind: string, argJson: string, infoJson: string): Promise<string> => {
    try {
      const bundle = G.__switchyard as Bundle | undefined;
      if (!bundle || typeof bundle.run !== 'function' || typeof bundle.describe !== 'function') {
        throw new Error('the bundle exports no describe()/run(): build it with switchyard compile');
      }
      if (kind === 'describe') return JSON.stringify({ ok: true, value: bundle.describe() });
      const value: unknown = await bundle.run(kind, makeContext(JSON.parse(infoJson) as RunInfo), JSON.parse(argJson));
      return JSON.stringify({ ok: true, value: value === undefined ? null : value });
    } catch (e) {
      return JSON.stringify({ ok: false, error: serialize(e) });
    }
  },
});
