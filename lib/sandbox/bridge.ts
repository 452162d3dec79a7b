/**
 * @module sandbox/bridge — the host side of a sandboxed script's context: each message from the
 * isolate names one method of a whitelist and carries JSON arguments; it is answered with JSON.
 * The host ScriptContext behind it is bound to one connection, so a script reaches that
 * connection's provider and records and nothing else. Errors thrown on the host are kept here by
 * id, so the original (an UpstreamHttpError, a 429 for Temporal to wait out) comes back out of the
 * run when the script does not catch it.
 */
import type { HttpMethod, PaginateConfig, ProxyConfig, SyncContext, UncontrolledFetchOptions } from '../../sdk/types.js';
import type { WireBody } from './isolate/wire.js';

const METHODS = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Longest single setTimeout inside a script; the run's wall-time limit still applies. */
const MAX_SLEEP_MS = 5 * 60_000;
/** Context calls one run may have in flight at once; more wait their turn. */
const MAX_IN_FLIGHT = 16;
/** Log lines one run may write; the rest are dropped (with one line saying so). */
const MAX_LOG_LINES = 2000;

type Ctx = SyncContext<Record<string, unknown>, unknown>;

export interface Bridge {
  dispatch(method: unknown, argsJson: unknown): Promise<string>;
  hostError(id: number): unknown;
  close(): void;
}

class BridgeArgumentError extends Error {
  override name = 'TypeError';
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new BridgeArgumentError(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function records(v: unknown): { id: string }[] {
  if (!Array.isArray(v)) throw new BridgeArgumentError('records must be an array');
  return v as { id: string }[];
}

function model(v: unknown): string {
  if (typeof v !== 'string' || v === '') throw new BridgeArgumentError('model must be a non-empty string');
  return v;
}

/** A request body the isolate sent as bytes (base64, beside the JSON config), or undefined when it sent none. */
function bytesIn(v: unknown): Buffer<ArrayBuffer> | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new BridgeArgumentError('the body bytes must be base64');
  return Buffer.from(v, 'base64');
}

function fetchOptions(v: unknown, bytes: unknown): UncontrolledFetchOptions {
  const o = object(v, 'the fetch options');
  if (typeof o.url !== 'string') throw new BridgeArgumentError('url must be a URL or a string');
  const method = o.method === undefined || o.method === null ? 'GET' : String(o.method).toUpperCase();
  if (!METHODS.has(method as HttpMethod)) throw new BridgeArgumentError(`unsupported HTTP method ${method}`);
  const headers = o.headers === undefined || o.headers === null ? {} : object(o.headers, 'headers');
  if (!Object.values(headers).every((h) => typeof h === 'string')) throw new BridgeArgumentError('header values must be strings');
  if (o.body !== undefined && o.body !== null && typeof o.body !== 'string') throw new BridgeArgumentError('body must be a string or null');
  const body = bytesIn(bytes) ?? (o.body as string | null | undefined) ?? null;
  return { url: o.url, method: method as HttpMethod, headers: headers as Record<string, string>, body };
}

/** An upstream body on its way into the isolate (./isolate/wire.ts): bytes exactly, as base64. */
function wire(body: unknown): WireBody {
  if (body instanceof Uint8Array) return { bytes: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64') };
  return { data: body };
}

export function createBridge(ctx: Ctx): Bridge {
  const generators = new Map<number, AsyncGenerator<unknown[], void, undefined>>();
  const pages = new Map<number, unknown[]>();
  const errors = new Map<number, unknown>();
  const timers = new Set<NodeJS.Timeout>();
  let seq = 0;
  let closed = false;
  let logLines = 0;
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const slot = async () => {
    if (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight++;
  };
  const release = () => {
    inFlight--;
    waiting.shift()?.();
  };
  const tooManyLines = () => {
    if (++logLines <= MAX_LOG_LINES) return false;
    if (logLines === MAX_LOG_LINES + 1) ctx.log(`more than ${MAX_LOG_LINES} log lines in this run: the rest are dropped`, { level: 'warn' });
    return true;
  };

  const handlers: Record<string, (...args: unknown[]) => Promise<unknown>> = {
    async http(method, config, bytes) {
      if (typeof method !== 'string' || !METHODS.has(method.toUpperCase() as HttpMethod))
        throw new BridgeArgumentError(`unsupported HTTP method ${String(method)}`);
      const c = object(config, 'the request config') as unknown as ProxyConfig;
      if (typeof c.endpoint !== 'string') throw new BridgeArgumentError('config.endpoint must be a string');
      const data = bytesIn(bytes);
      const res = await ctx.proxy({ ...c, method: method.toUpperCase() as HttpMethod, ...(data && { data }) });
      return { status: res.status, headers: res.headers, body: wire(res.data) };
    },
    async 'paginate.start'(config, withPages) {
      const c = object(config, 'the paginate config') as unknown as PaginateConfig;
      if (typeof c.endpoint !== 'string') throw new BridgeArgumentError('config.endpoint must be a string');
      const id = ++seq;
      // The script's on_page runs in the isolate: the raw pages go back with the items.
      const seen: unknown[] = [];
      const paginate = withPages === true ? { ...c.paginate, on_page: async (page: unknown) => void seen.push(page) } : c.paginate;
      generators.set(id, ctx.paginate({ ...c, ...(paginate && { paginate }) }));
      pages.set(id, seen);
      return id;
    },
    async 'paginate.next'(id) {
      const g = generators.get(Number(id));
      if (!g) throw new BridgeArgumentError('unknown paginator');
      const r = await g.next();
      const seen = pages.get(Number(id)) ?? [];
      const raw = seen.splice(0).map((p) => {
        const { response, nextPageParam } = p as { response: { status: number; headers: unknown; data: unknown }; nextPageParam: unknown };
        return { nextPageParam, response: { status: response.status, headers: response.headers, body: wire(response.data) } };
      });
      if (r.done) {
        generators.delete(Number(id));
        pages.delete(Number(id));
      }
      return r.done ? { done: true, pages: raw } : { done: false, value: r.value, pages: raw };
    },
    async 'paginate.return'(id) {
      const g = generators.get(Number(id));
      generators.delete(Number(id));
      pages.delete(Number(id));
      await g?.return(undefined);
      return null;
    },
    getConnection: () => ctx.getConnection(),
    getToken: () => ctx.getToken(),
    getMetadata: () => ctx.getMetadata(),
    setMetadata: async (m) => (await ctx.setMetadata(object(m, 'metadata')), null),
    updateMetadata: async (m) => (await ctx.updateMetadata(object(m, 'metadata')), null),
    getEnvironmentVariables: () => ctx.getEnvironmentVariables(),
    getWebhookURL: () => ctx.getWebhookURL(),
    getIntegration: (queries) => {
      const include = queries === null || queries === undefined ? undefined : object(queries, 'the queries').include;
      if (include !== undefined && !(Array.isArray(include) && include.every((i) => i === 'webhook' || i === 'credentials')))
        throw new BridgeArgumentError("include must be a list of 'webhook' and 'credentials'");
      return ctx.getIntegration(include ? { include } : undefined);
    },
    async uncontrolledFetch(options, bytes) {
      const o = fetchOptions(options, bytes);
      const res = await ctx.uncontrolledFetch(o);
      const headers: [string, string][] = [];
      res.headers.forEach((value, name) => headers.push([name, value]));
      const body = Buffer.from(await res.arrayBuffer()).toString('base64');
      return { status: res.status, statusText: res.statusText, url: res.url, headers, body };
    },
    batchSave: (r, m) => ctx.batchSave(records(r), model(m)),
    batchUpdate: (r, m) => ctx.batchUpdate(records(r), model(m)),
    batchDelete: (r, m) => ctx.batchDelete(records(r), model(m)),
    getCheckpoint: () => ctx.getCheckpoint(),
    saveCheckpoint: async (c) => (await ctx.saveCheckpoint(c), null),
    clearCheckpoint: async () => (await ctx.clearCheckpoint(), null),
    listRecordsPage(m, cursor) {
      if (!ctx.listRecordsPage) throw new BridgeArgumentError('listRecords is not available in this run');
      if (cursor !== null && cursor !== undefined && typeof cursor !== 'string') throw new BridgeArgumentError('cursor must be a string');
      return ctx.listRecordsPage(model(m), cursor ?? undefined);
    },
    deleteRecordsFromPreviousExecutions: async (m) => (await ctx.deleteRecordsFromPreviousExecutions(model(m)), null),
    trackDeletesStart: async (m) => (await ctx.trackDeletesStart(model(m)), null),
    trackDeletesEnd: async (m) => (await ctx.trackDeletesEnd(model(m)), null),
    async log(level, message, fields) {
      if (tooManyLines()) return null;
      const extra = fields && typeof fields === 'object' ? (fields as Record<string, unknown>) : undefined;
      ctx.log(String(message), level === 'info' ? extra : { ...extra, level });
      return null;
    },
    /** `log(...args)` of the script: the host's context makes one line of them (lib: sdk/helpers logLine). */
    async logArgs(...args) {
      if (tooManyLines()) return null;
      ctx.log(...args);
      return null;
    },
    sleep: (ms) =>
      new Promise((resolve) => {
        const t = setTimeout(
          () => {
            timers.delete(t);
            resolve(null);
          },
          Math.min(Math.max(0, Number(ms) || 0), MAX_SLEEP_MS),
        );
        timers.add(t);
      }),
  };

  return {
    async dispatch(method, argsJson) {
      try {
        if (closed) throw new Error('the run is over');
        if (typeof method !== 'string' || !Object.hasOwn(handlers, method)) throw new BridgeArgumentError(`unknown context method ${String(method)}`);
        const args = typeof argsJson === 'string' ? (JSON.parse(argsJson) as unknown) : [];
        if (!Array.isArray(args)) throw new BridgeArgumentError('arguments must be an array');
        const queued = method !== 'log' && method !== 'logArgs' && method !== 'sleep';
        if (queued) await slot();
        let value: unknown;
        try {
          value = await handlers[method]!(...args);
        } finally {
          if (queued) release();
        }
        return JSON.stringify({ value: value === undefined ? null : value });
      } catch (err) {
        const id = ++seq;
        errors.set(id, err);
        const e = err as {
          name?: string;
          message?: string;
          status?: number;
          body?: unknown;
          headers?: unknown;
          code?: string;
          retryable?: boolean;
          payload?: unknown;
        };
        return JSON.stringify({
          error: {
            name: e.name ?? 'Error',
            message: e.message ?? String(err),
            status: e.status,
            body: e.body === undefined ? undefined : wire(e.body),
            headers: e.headers,
            code: e.code,
            retryable: e.retryable,
            payload: e.payload,
            hostErrorId: id,
          },
        });
      }
    },
    hostError: (id) => errors.get(id),
    close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      for (const g of generators.values()) void g.return(undefined).catch(() => undefined);
      generators.clear();
    },
  };
}
