/**
 * @module Shared plumbing for the fake third-party servers: an HTTP server that records every
 * request and can inject faults, a tiny router, reply helpers and deterministic streamed content.
 */
import http from 'node:http';
import https from 'node:https';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
  /** Date.now() when the request arrived. */
  at: number;
  /** Status answered; 0 while the request is still being handled. */
  status: number;
}

export interface FailSpec {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** How many matching requests fail; default 1. */
  times?: number;
  match?: (r: { method: string; path: string }) => boolean;
}

export interface FakeServer<State> {
  url: string;
  state: State;
  requests: RecordedRequest[];
  failNext(spec: FailSpec): void;
  /** Every later request waits this long before it is answered (0: no delay). */
  setLatency(ms: number): void;
  close(): Promise<void>;
}

export interface RequestContext {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  rawBody: Buffer;
  body: string;
  params: Record<string, string>;
  /** The fake's own origin, e.g. http://127.0.0.1:41234 */
  origin: string;
  /** Aborted when the client goes away or the fake closes. */
  signal: AbortSignal;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

// ---------------------------------------------------------------------------------------------
// Replies

export const JSON_TYPE = 'application/json; charset=utf-8';

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(value) };
}

export function text(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body };
}

export function html(status: number, body: string): Reply {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body };
}

export function redirect(location: string, status = 302): Reply {
  return { status, headers: { location } };
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

// ---------------------------------------------------------------------------------------------
// Router

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

export class Router {
  private readonly routes: Route[] = [];

  /** `method` '*' matches any method; `:name` segments become ctx.params.name. */
  on(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method: method.toUpperCase(), segments: splitPath(pattern), handler });
    return this;
  }

  get(pattern: string, handler: Handler): this {
    return this.on('GET', pattern, handler);
  }

  post(pattern: string, handler: Handler): this {
    return this.on('POST', pattern, handler);
  }

  put(pattern: string, handler: Handler): this {
    return this.on('PUT', pattern, handler);
  }

  patch(pattern: string, handler: Handler): this {
    return this.on('PATCH', pattern, handler);
  }

  delete(pattern: string, handler: Handler): this {
    return this.on('DELETE', pattern, handler);
  }

  /** Runs the first matching route; undefined when none matches. */
  dispatch(ctx: RequestContext): Promise<Reply> | undefined {
    const segments = splitPath(ctx.path);
    for (const route of this.routes) {
      if (route.method !== '*' && route.method !== ctx.method) continue;
      const params = matchSegments(route.segments, segments);
      if (params) return Promise.resolve(route.handler({ ...ctx, params }));
    }
    return undefined;
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const a = actual[i] as string;
    if (p.startsWith(':')) params[p.slice(1)] = safeDecode(a);
    else if (p !== a) return undefined;
  }
  return params;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// ---------------------------------------------------------------------------------------------
// Server

export async function startFakeServer<State>(state: State, handle: Handler): Promise<FakeServer<State>> {
  const requests: RecordedRequest[] = [];
  const faults: FailSpec[] = [];
  const lifetime = new AbortController();
  let origin = '';

  const server = http.createServer((req, res) => {
    void serve(req, res).catch((err: unknown) => {
      if (!res.headersSent) writeReply(res, json(500, { error: errorMessage(err) }));
      else res.destroy();
    });
  });

  let latencyMs = 0;
  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = new URL(req.url ?? '/', origin);
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: flattenHeaders(req.headers),
      body: rawBody.toString('utf8'),
      at: Date.now(),
      status: 0,
    };
    requests.push(record);

    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    const ctx: RequestContext = {
      method: record.method,
      path: record.path,
      query: url.searchParams,
      headers: record.headers,
      rawBody,
      body: record.body,
      params: {},
      origin,
      signal: AbortSignal.any([clientGone.signal, lifetime.signal]),
    };

    if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
    const reply = takeFault(faults, record) ?? (await handle(ctx));
    record.status = reply.status;
    writeReply(res, reply);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    state,
    requests,
    failNext(spec) {
      faults.push({ ...spec, times: spec.times ?? 1 });
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    async close() {
      lifetime.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function takeFault(faults: FailSpec[], record: RecordedRequest): Reply | undefined {
  const index = faults.findIndex((f) => !f.match || f.match({ method: record.method, path: record.path }));
  if (index < 0) return undefined;
  const fault = faults[index] as FailSpec;
  fault.times = (fault.times ?? 1) - 1;
  if (fault.times <= 0) faults.splice(index, 1);
  const body = fault.body ?? '';
  return { status: fault.status, headers: { 'content-type': guessContentType(body), ...fault.headers }, body };
}

function guessContentType(body: string): string {
  try {
    JSON.parse(body);
    return JSON_TYPE;
  } catch {
    return 'text/plain; charset=utf-8';
  }
}

function writeReply(res: http.ServerResponse, reply: Reply): void {
  const { body } = reply;
  if (body instanceof Readable) {
    res.writeHead(reply.status, reply.headers);
    body.on('error', () => res.destroy());
    res.on('close', () => body.destroy());
    body.pipe(res);
    return;
  }
  const payload = body ?? '';
  res.writeHead(reply.status, { ...reply.headers, 'content-length': String(Buffer.byteLength(payload)) });
  res.end(payload);
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------------------------------------
// Request helpers

export type Body = Record<string, unknown>;

export class BodyParseError extends Error {}

/** Parses a JSON object or an x-www-form-urlencoded body (Rails-style `a[]`, `a[][k]` nesting). */
export function parseBody(ctx: RequestContext): Body {
  const trimmed = ctx.body.trim();
  if (trimmed === '') return {};
  const type = ctx.headers['content-type'] ?? '';
  const looksJson = type.includes('json') || (!type.includes('form') && trimmed.startsWith('{'));
  if (!looksJson) return parseNestedForm(new URLSearchParams(ctx.body));
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new BodyParseError('invalid JSON body');
  }
  if (!isRecord(value)) throw new BodyParseError('JSON body must be an object');
  return value;
}

export function parseNestedForm(params: URLSearchParams): Body {
  const out: Body = {};
  for (const [key, value] of params) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!match || !match[2]) {
      out[key] = value;
      continue;
    }
    const path = [...(match[2] as string).matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] as string);
    assignFormPath(out, match[1] as string, path, value);
  }
  return out;
}

function assignFormPath(target: Body, name: string, path: string[], value: string): void {
  const [first, second] = path;
  if (first === '' && second === undefined) {
    const list = Array.isArray(target[name]) ? (target[name] as unknown[]) : [];
    list.push(value);
    target[name] = list;
  } else if (first === '' && second !== undefined) {
    // `a[][k]=v` starts a new element when the last one already has k (Rails semantics).
    const list = Array.isArray(target[name]) ? (target[name] as Body[]) : [];
    let last = list[list.length - 1];
    if (!last || second in last) {
      last = {};
      list.push(last);
    }
    last[second] = value;
    target[name] = list;
  } else if (first !== undefined) {
    const nested = isRecord(target[name]) ? (target[name] as Body) : {};
    assignFormPath(nested, first, path.slice(1), value);
    target[name] = nested;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function bearerToken(headers: Record<string, string>): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(headers['authorization'] ?? '');
  return match ? (match[1] as string).trim() : undefined;
}

export function basicCredentials(headers: Record<string, string>): { user: string; pass: string } | undefined {
  const match = /^Basic\s+(.+)$/i.exec(headers['authorization'] ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), pass: decoded.slice(colon + 1) };
}

/** Strict integer parse: '12' → 12, '12abc' / '' / null → undefined. */
export function parseIntParam(value: string | null | undefined): number | undefined {
  if (value == null || !/^-?\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

// ---------------------------------------------------------------------------------------------
// Outgoing requests (webhooks)

export interface PostResult {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** POSTs exactly `body` (no re-serialisation) so signatures over the raw bytes stay valid. */
export function postRaw(target: string, body: string, headers: Record<string, string>): Promise<PostResult> {
  const url = new URL(target);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: flattenHeaders(res.headers),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

// ---------------------------------------------------------------------------------------------
// Deterministic content, streamed without holding it in memory

const PATTERN_PERIOD = 251; // prime, so the pattern never lines up with chunk boundaries
const CHUNK_SIZE = 64 * 1024;
const PATTERN = Buffer.from(Array.from({ length: CHUNK_SIZE + PATTERN_PERIOD }, (_, i) => i % PATTERN_PERIOD));

/** Byte i of every deterministic body is i % 251. */
function patternSlice(offset: number, length: number): Buffer {
  const start = offset % PATTERN_PERIOD;
  return PATTERN.subarray(start, start + length);
}

export function deterministicStream(bytes: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) {
        this.push(null);
        return;
      }
      const length = Math.min(CHUNK_SIZE, bytes - sent);
      const chunk = patternSlice(sent, length);
      sent += length;
      this.push(chunk);
    },
  });
}

/** Hex SHA-256 of the first `bytes` bytes of the deterministic content (for download checks). */
export function deterministicSha256(bytes: number): string {
  const hash = createHash('sha256');
  for (let sent = 0; sent < bytes; sent += CHUNK_SIZE) hash.update(patternSlice(sent, Math.min(CHUNK_SIZE, bytes - sent)));
  return hash.digest('hex');
}

export function deterministicBytes(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) out[i] = i % PATTERN_PERIOD;
  return out;
}

const MAX_BIG_BYTES = 4 * 1024 * 1024 * 1024;

/** GET /files/big?bytes=N — N deterministic bytes streamed in 64 KiB chunks. */
export const bigFileHandler: Handler = (ctx) => {
  const bytes = parseIntParam(ctx.query.get('bytes'));
  if (bytes === undefined || bytes < 0 || bytes > MAX_BIG_BYTES) {
    return json(400, { error: 'bytes must be an integer between 0 and 4 GiB' });
  }
  return {
    status: 200,
    headers: {
      'content-type': 'application/octet-stream',
      'content-length': String(bytes),
      'content-disposition': 'attachment; filename="big.bin"',
    },
    body: deterministicStream(bytes),
  };
};

/** GET /slow?ms=N — answers after N ms (or never, if the client or the fake goes away first). */
export const slowHandler: Handler = async (ctx) => {
  const ms = parseIntParam(ctx.query.get('ms')) ?? 1000;
  await sleep(ms, ctx.signal);
  return json(200, { ok: true, waited_ms: ms });
};

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Time

/** ISO-8601 UTC with microseconds, e.g. 2025-01-15T11:23:16.806002Z (Metabase style). */
export function isoMicros(date: Date = new Date()): string {
  const micros = String(Math.floor(Math.random() * 1000)).padStart(3, '0');
  return date.toISOString().replace(/Z$/, `${micros}Z`);
}

export function isoSeconds(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
