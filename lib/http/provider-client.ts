/**
 * @module http/provider-client — the only way the platform calls a third party (integration scripts
 * through activities, and the proxy route): auth injection, the address policy, one keep-alive
 * undici Agent per origin, timeouts, typed errors and a request log entry for every call.
 */
import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { rootCertificates } from 'node:tls';
import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import { payloadHash, signAwsV4, type AwsSigV4Credentials } from './aws-sigv4.js';
import { assertLiteralHostAllowed, createPinnedLookup } from './address-policy.js';
import { InvalidUrl, NetworkError, ProviderError, RateLimited, ResponseTooLarge, UpstreamHttpError, type ResponseHeaders } from './errors.js';
import { formParameters, oauth1Header, type OAuth1Signer } from './oauth1.js';
import { redactUrl } from './redact.js';
import { StreamedBody, type ResponseBody } from './streamed-body.js';
import { DEFAULT_RATE_LIMIT_DELAY_MS, retryAfterMs } from './retry-after.js';
import { metric } from '../otel/metrics.js';
import { endProviderSpan, providerSpan } from '../otel/spans.js';

export type AuthInjection =
  | { type: 'bearer'; token: string }
  | { type: 'basic'; username: string; password: string }
  | { type: 'header'; name: string; value: string }
  /** Several headers and query parameters (a provider definition's templates, filled in). */
  | { type: 'custom'; headers: Record<string, string>; query: Record<string, string>; body?: Record<string, string>; clientCertificate?: ClientCertificate }
  /** Signed with AWS Signature Version 4 as it is sent; `headers` go along (and are signed when `x-amz-*` or content-type). */
  | ({ type: 'aws-sigv4'; headers?: Record<string, string> } & AwsSigV4Credentials)
  /** An OAuth 1.0a signature of each request as sent (its method, URL and form body), with other headers besides. */
  | {
      type: 'oauth1';
      signer: OAuth1Signer;
      headers: Record<string, string>;
      query: Record<string, string>;
      /** Protocol parameters of this request besides the usual ones (`oauth_callback`, `oauth_verifier`). */
      protocol?: Record<string, string>;
    }
  | { type: 'none' };

/** A TLS client certificate and its private key (PEM), for providers that want mutual TLS (ADP). */
export interface ClientCertificate {
  cert: string;
  key: string;
}

/** Response headers that say how long a 429 asks to wait, besides `Retry-After` and `X-RateLimit-Reset`. */
export interface RateLimitHeaders {
  /** Hold the time (epoch seconds or milliseconds, or an HTTP date) at which to retry. */
  at?: string | readonly string[];
  /** Hold how many seconds to wait. */
  after?: string | readonly string[];
}

export interface RequestContext {
  environmentId: number;
  integration?: string;
  connectionId?: string;
  runId?: string;
  kind: 'proxy' | 'action' | 'sync' | 'check' | 'auth' | 'webhook';
}

export type QueryValue = string | number | boolean | (string | number)[] | undefined;

export interface ProviderRequest {
  method: string;
  /** May carry a path prefix (`https://api.example.com/v2`). */
  baseUrl: string;
  /** Joined to the base URL's path; may include a query string. */
  path: string;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array | NodeJS.ReadableStream | null;
  auth: AuthInjection;
  context: RequestContext;
  /** Headers timeout and body (between chunks) timeout; default 30 s. */
  timeoutMs?: number;
  /** Return the body unread (`ProviderResponse.stream`) without buffering it. The caller must take or discard it. */
  stream?: boolean;
  /** When buffering, fail with ResponseTooLarge above this; default 50 MB. */
  maxResponseBytes?: number;
  /**
   * Aborts the call (e.g. the proxied client went away); the abort error is rethrown as is. An
   * emitter of `abort` (with `aborted` and `reason`, as undici reads them) is lighter than an AbortSignal.
   */
  signal?: AbortSignal | AbortEmitter;
  /** The provider's own rate-limit headers (its definition's `proxy.retry`), read on a 429. */
  rateLimitHeaders?: RateLimitHeaders;
  /** Mutual TLS outside an auth injection (a token request); an injection's own goes with it. */
  clientCertificate?: ClientCertificate;
}

/** What undici accepts as a signal besides an AbortSignal: an emitter of `abort`. */
export interface AbortEmitter extends EventEmitter {
  readonly aborted: boolean;
  readonly reason: unknown;
}

export interface ProviderResponse {
  status: number;
  headers: ResponseHeaders;
  /** The buffered body (empty when there is none); null when streamed. */
  body: Buffer | null;
  /** The body not read yet, when the request asked for it streamed: the caller must take or discard it. */
  stream: ResponseBody | null;
  url: string;
  durationMs: number;
}

export interface RequestLogEntry {
  environmentId: number;
  integration?: string;
  connectionId?: string;
  runId?: string;
  kind: RequestContext['kind'];
  method: string;
  /** Redacted: see redact.ts. Headers and bodies are never logged. */
  url: string;
  /** Null when no response arrived. */
  status: number | null;
  durationMs: number;
  /** Null when the request body is a stream. */
  requestBytes: number | null;
  /** Null when the response is streamed. */
  responseBytes: number | null;
  error?: string;
  createdAt: Date;
}

export type RequestLogSink = (entry: RequestLogEntry) => void | Promise<void>;

export interface ProviderHttpClient {
  /** Answers with any HTTP status; throws only when no usable response arrived (network, policy, size). */
  request(req: ProviderRequest): Promise<ProviderResponse>;
  /** Like request, but throws RateLimited for 429 and UpstreamHttpError for any other status ≥ 400. */
  requestOrThrow(req: ProviderRequest): Promise<ProviderResponse>;
  /** Waits for pending log writes, then closes every connection. */
  close(): Promise<void>;
}

export interface ProviderHttpClientOptions {
  /** Host names or IP literals that may resolve to private or loopback addresses. */
  allowedPrivateHosts: string[];
  requestLog?: RequestLogSink;
  defaultTimeoutMs?: number;
  now?: () => Date;
  /** The User-Agent of a request that sets none (GitHub answers 403 without one); default `DEFAULT_USER_AGENT`. */
  userAgent?: string;
  /** CA certificates (PEM) trusted besides Node's own, for providers behind a private CA. */
  extraCaCertificates?: string[];
}

export const DEFAULT_USER_AGENT = 'Switchyard';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 50 * 1024 * 1024;
export const ERROR_BODY_LIMIT_BYTES = 64 * 1024;
const MAX_CONNECT_TIMEOUT_MS = 10_000;
// Customer-supplied domains make the set of origins open-ended; beyond this the oldest Agent is closed.
const MAX_AGENTS = 256;

// Hop-by-hop and framing headers belong to each connection; undici sets or rejects them itself.
const DROPPED_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'expect']);

interface ParsedBase {
  origin: string;
  pathname: string;
  /** The base URL's path without its trailing slashes. */
  prefix: string;
  /** The base URL's query, without its `?`. */
  search: string;
}

// A few base URLs serve every call: each is parsed once (bounded, as customer domains are open-ended).
const MAX_PARSED_BASES = 1024;
const parsedBases = new Map<string, ParsedBase>();

function parseBase(baseUrl: string): ParsedBase {
  const known = parsedBases.get(baseUrl);
  if (known) return known;
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new InvalidUrl(`not a valid base URL: ${redactUrl(baseUrl)}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new InvalidUrl(`the URL scheme must be http or https, not ${base.protocol.slice(0, -1)}`);
  const parsed = { origin: base.origin, pathname: base.pathname, prefix: base.pathname.replace(/\/+$/, ''), search: base.search.slice(1) };
  if (parsedBases.size >= MAX_PARSED_BASES) parsedBases.clear();
  parsedBases.set(baseUrl, parsed);
  return parsed;
}

/**
 * The URL of a call: the base URL's origin and path, `path` below it, and the base's query, the
 * path's and `query` joined. One parse of the whole text, which normalises and percent-encodes the
 * path and query as the URL setters would (the path has no `?` or `#` left in it).
 */
export function buildUrl(baseUrl: string, path: string, query?: Record<string, QueryValue>): URL {
  const base = parseBase(baseUrl);
  const hash = path.indexOf('#');
  const withoutFragment = hash === -1 ? path : path.slice(0, hash);
  const q = withoutFragment.indexOf('?');
  const pathPart = q === -1 ? withoutFragment : withoutFragment.slice(0, q);
  const pathQuery = q === -1 ? '' : withoutFragment.slice(q + 1);

  let params = '';
  if (query) {
    const list = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) list.append(name, String(v));
    }
    params = list.toString();
  }
  let search = base.search;
  for (const part of [pathQuery, params]) if (part) search = search ? `${search}&${part}` : part;
  const pathname = pathPart ? `${base.prefix}/${pathPart.replace(/^\/+/, '')}` : base.pathname;
  return new URL(`${base.origin}${pathname}${search ? `?${search}` : ''}`);
}

export function authHeaders(auth: AuthInjection): Record<string, string> {
  return addAuthHeaders({}, auth);
}

/** Adds the headers that carry `auth` to `out` (names lower case, replacing any of the same name). */
function addAuthHeaders(out: Record<string, string>, auth: AuthInjection): Record<string, string> {
  switch (auth.type) {
    case 'bearer':
      out.authorization = `Bearer ${auth.token}`;
      return out;
    case 'basic':
      out.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
      return out;
    case 'header':
      out[auth.name.toLowerCase()] = auth.value;
      return out;
    case 'custom':
    case 'aws-sigv4':
    case 'oauth1':
      for (const [k, v] of Object.entries(auth.headers ?? {})) out[k.toLowerCase()] = v;
      return out;
    case 'none':
      return out;
  }
}

function isStreamBody(body: ProviderRequest['body']): body is NodeJS.ReadableStream {
  return body != null && typeof body !== 'string' && !(body instanceof Uint8Array);
}

/**
 * The body with the credentials' body fields (`proxy.body`) merged in: into a JSON object body, or as
 * the whole body when there is none. A stream or a body that is not a JSON object is sent as it is.
 */
function bodyWithAuth(req: ProviderRequest): ProviderRequest['body'] {
  const fields = req.auth.type === 'custom' ? req.auth.body : undefined;
  if (!fields || Object.keys(fields).length === 0 || ['GET', 'HEAD'].includes(req.method.toUpperCase())) return req.body;
  if (req.body == null || (typeof req.body === 'string' && req.body.trim() === '')) return JSON.stringify(fields);
  if (isStreamBody(req.body)) return req.body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof req.body === 'string' ? req.body : Buffer.from(req.body).toString('utf8'));
  } catch {
    return req.body;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return req.body;
  return JSON.stringify({ ...(parsed as Record<string, unknown>), ...fields });
}

function requestHeaders(req: ProviderRequest, userAgent: string, url: URL, now: Date, bodyMadeJson = false): Record<string, string> {
  const streamed = isStreamBody(req.body);
  const out: Record<string, string> = { 'user-agent': userAgent, ...(bodyMadeJson && { 'content-type': 'application/json' }) };
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    const n = name.toLowerCase();
    if (DROPPED_HEADERS.has(n) || (n === 'content-length' && !streamed)) continue;
    out[n] = value;
  }
  const headers = addAuthHeaders(req.auth.type === 'oauth1' ? { ...out } : out, req.auth);
  if (req.auth.type === 'oauth1') {
    const body = req.body instanceof Uint8Array ? Buffer.from(req.body).toString('utf8') : req.body;
    const form = formParameters(body, out['content-type']);
    headers.authorization = oauth1Header(req.auth.signer, { method: req.method, url: url.toString(), form, now, extra: req.auth.protocol });
    return headers;
  }
  if (req.auth.type !== 'aws-sigv4') return headers;
  const hash = payloadHash(streamed ? { stream: true } : (req.body as string | Uint8Array | null | undefined));
  return { ...headers, ...signAwsV4({ method: req.method, url, headers, payloadHash: hash }, req.auth, now) };
}

/**
 * A streamed body read whole when the request is signed with SigV4: every AWS service but S3
 * (which takes UNSIGNED-PAYLOAD) needs the body's hash in the signature. Callers bound the body
 * (the proxy's request size limit).
 */
async function signableBody(req: ProviderRequest): Promise<ProviderRequest> {
  if (req.auth.type !== 'aws-sigv4' || req.auth.service === 's3' || !isStreamBody(req.body)) return req;
  const chunks: Buffer[] = [];
  for await (const chunk of req.body as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(chunk));
  return { ...req, body: Buffer.concat(chunks) };
}

function requestBytes(body: ProviderRequest['body']): number | null {
  if (body == null) return 0;
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return null;
}

function responseHeaders(headers: Record<string, string | string[] | undefined>): ResponseHeaders {
  const out: ResponseHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = v;
  return out;
}

function firstHeader(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function readAll(body: Readable, limit: number, headers: ResponseHeaders): Promise<Buffer> {
  const declared = Number(firstHeader(headers, 'content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    body.destroy();
    throw new ResponseTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > limit) {
      body.destroy();
      throw new ResponseTooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

/** Up to `limit` bytes of a stream, then the stream is destroyed. */
async function readPrefix(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      total += (chunk as Buffer).length;
      if (total >= limit) break;
    }
  } catch {
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

/** JSON when the content type says so and it parses in full; text (truncated to 64 KB) otherwise. */
export function parseErrorBody(body: Buffer | null, contentType: string | undefined): unknown {
  if (!body || body.length === 0) return '';
  const text = body.subarray(0, ERROR_BODY_LIMIT_BYTES).toString('utf8');
  if (body.length <= ERROR_BODY_LIMIT_BYTES && contentType && /[/+]json\b/i.test(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {}
  }
  return text;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;
/** Failures to connect at all: the request never left, so any method may be sent again. */
const NOT_SENT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Maps what undici and the socket throw to the typed errors; anything else (a bad header, an abort) passes unchanged. */
function toProviderError(err: unknown, host: string, timeoutMs: number): unknown {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof ProviderError) return e;
  }
  if (!(err instanceof Error)) return err;
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const causeCode = (err.cause as NodeJS.ErrnoException | undefined)?.code;
  const sent = !NOT_SENT_CODES.has(code);
  if (TIMEOUT_CODES.has(code)) return new NetworkError('timeout', `${host} did not answer within ${timeoutMs} ms (${code})`, { cause: err, sent });
  if (code === 'UND_ERR_SOCKET') return new NetworkError(causeCode ?? 'socket', `connection to ${host} failed: ${err.message}`, { cause: err });
  if (TLS_CODE.test(code)) return new NetworkError(code, `TLS with ${host} failed: ${err.message}`, { cause: err, retryable: false });
  if (/^E(?!RR_)[A-Z_]+$/.test(code)) return new NetworkError(code, `connection to ${host} failed: ${code}`, { cause: err, sent });
  return err;
}

/*
 * What follows is module-level rather than closures made per call: the platform runs under tsx, whose
 * esbuild output names every closure bound to a name (`__name`), a property definition per call.
 */

function reportLogFailure(err: unknown): void {
  console.error('[switchyard] request log sink failed:', err);
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

/** What a call's request log entry is made from, fixed before it is sent. */
interface LoggedCall extends RequestContext {
  method: string;
  url: URL;
  started: number;
  requestBytes: number | null;
  createdAt: Date;
}

function logEntry(call: LoggedCall, status: number | null, responseBytes: number | null, error?: string): RequestLogEntry {
  const entry: RequestLogEntry = {
    environmentId: call.environmentId,
    kind: call.kind,
    method: call.method,
    url: redactUrl(call.url),
    status,
    durationMs: elapsed(call.started),
    requestBytes: call.requestBytes,
    responseBytes,
    createdAt: call.createdAt,
  };
  // Set only when known, as the entry's optional fields are absent rather than undefined.
  if (call.integration !== undefined) entry.integration = call.integration;
  if (call.connectionId !== undefined) entry.connectionId = call.connectionId;
  if (call.runId !== undefined) entry.runId = call.runId;
  if (error !== undefined) entry.error = error;
  return entry;
}

export function createProviderHttpClient(opts: ProviderHttpClientOptions): ProviderHttpClient {
  const allowed = [...opts.allowedPrivateHosts];
  const defaultTimeoutMs = opts.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = opts.now ?? (() => new Date());
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const lookup = createPinnedLookup(allowed);
  const agents = new Map<string, Agent>();
  /** The key last used or added: the Map's last entry. */
  let newest: string | undefined;
  const pendingLogs = new Set<Promise<void>>();
  let closed = false;

  const ca = opts.extraCaCertificates?.length ? [...rootCertificates, ...opts.extraCaCertificates] : undefined;

  /**
   * One pool per origin, and per client certificate: a connection made with one identity never carries another's requests.
   * An IP-literal host is checked against the address policy when its pool is made (the pinned lookup never sees it).
   */
  function agentFor(url: URL, clientCertificate?: ClientCertificate): Agent {
    const origin = url.origin;
    const key = clientCertificate
      ? `${origin} ${createHash('sha256').update(clientCertificate.cert).update('\0').update(clientCertificate.key).digest('hex')}`
      : origin;
    let agent = agents.get(key);
    if (agent) {
      // Re-insert so the Map's order is least recently used first (already last: nothing to move).
      if (key !== newest) {
        agents.delete(key);
        agents.set(key, agent);
        newest = key;
      }
      return agent;
    }
    assertLiteralHostAllowed(url.hostname, allowed);
    agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 10 * 60_000,
      connect: { lookup, timeout: Math.min(defaultTimeoutMs, MAX_CONNECT_TIMEOUT_MS), ...(ca && { ca }), ...clientCertificate },
    });
    agents.set(key, agent);
    newest = key;
    if (agents.size > MAX_AGENTS) {
      const [oldestOrigin, oldest] = agents.entries().next().value!;
      agents.delete(oldestOrigin);
      void oldest.close().catch(() => undefined);
    }
    return agent;
  }

  function log(entry: RequestLogEntry): void {
    if (!opts.requestLog) return;
    try {
      const result = opts.requestLog(entry);
      if (result && typeof result.then === 'function') {
        const p: Promise<void> = Promise.resolve(result)
          .catch(reportLogFailure)
          .finally(() => pendingLogs.delete(p));
        pendingLogs.add(p);
      }
    } catch (err) {
      reportLogFailure(err);
    }
  }

  async function request(original: ProviderRequest): Promise<ProviderResponse> {
    if (closed) throw new Error('the provider HTTP client is closed');
    const req = original.auth.type === 'aws-sigv4' ? await signableBody(original) : original;
    const url = buildUrl(
      req.baseUrl,
      req.path,
      (req.auth.type === 'custom' || req.auth.type === 'oauth1') && Object.keys(req.auth.query).length ? { ...req.query, ...req.auth.query } : req.query,
    );
    const method = req.method.toUpperCase();
    const timeoutMs = req.timeoutMs ?? defaultTimeoutMs;
    const createdAt = now();
    const started = performance.now();
    const sentBody = bodyWithAuth(req);
    const logged: LoggedCall = { ...req.context, method, url, started, requestBytes: requestBytes(sentBody), createdAt };
    let status: number | null = null;
    // One CLIENT span per request (a no-op without telemetry), labelled by the run around it.
    const span = providerSpan(method, url, req.context);
    try {
      const clientCertificate = req.clientCertificate ?? (req.auth.type === 'custom' ? req.auth.clientCertificate : undefined);
      const options = {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers: requestHeaders(sentBody === req.body ? req : { ...req, body: sentBody }, userAgent, url, createdAt, sentBody !== req.body),
        body: (sentBody ?? null) as string | Buffer | Uint8Array | Readable | null,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      };
      const agent = agentFor(url, clientCertificate);
      if (req.stream) {
        const body = new StreamedBody(req.signal ?? null, options.body);
        agent.dispatch(options, body);
        const start = await body.started;
        status = start.statusCode;
        // Logged when the headers arrive, with responseBytes null: the caller owns the body and may
        // never finish or drop it, and every call must still be logged exactly once.
        const durationMs = elapsed(started);
        log(logEntry(logged, status, null));
        endProviderSpan(span, status);
        metric.providerRequest(req.context, status);
        return { status, headers: responseHeaders(start.headers), body: null, stream: body, url: url.toString(), durationMs };
      }
      const res = await agent.request({ ...options, signal: req.signal ?? null });
      status = res.statusCode;
      const headers = responseHeaders(res.headers);
      const body = await readAll(res.body, req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, headers);
      const durationMs = elapsed(started);
      log(logEntry(logged, status, body.length));
      endProviderSpan(span, status);
      metric.providerRequest(req.context, status);
      return { status, headers, body, stream: null, url: url.toString(), durationMs };
    } catch (err) {
      const mapped = toProviderError(err, url.host, timeoutMs);
      log(logEntry(logged, status, null, mapped instanceof Error ? mapped.message : String(mapped)));
      endProviderSpan(span, status, mapped);
      metric.providerRequest(req.context, status);
      throw mapped;
    }
  }

  async function requestOrThrow(req: ProviderRequest): Promise<ProviderResponse> {
    const res = await request(req);
    if (res.status < 400) return res;
    const raw = res.stream ? await readPrefix(res.stream.readable(), ERROR_BODY_LIMIT_BYTES) : res.body;
    const body = parseErrorBody(raw, firstHeader(res.headers, 'content-type'));
    const url = redactUrl(res.url);
    if (res.status === 429) {
      const wait = retryAfterMs(res.headers, now(), req.rateLimitHeaders);
      throw new RateLimited(wait ?? DEFAULT_RATE_LIMIT_DELAY_MS, wait !== null, { status: 429, headers: res.headers, body, url });
    }
    throw new UpstreamHttpError(res.status, res.headers, body, url);
  }

  async function close(): Promise<void> {
    closed = true;
    await Promise.allSettled([...pendingLogs]);
    const all = [...agents.values()];
    agents.clear();
    newest = undefined;
    await Promise.allSettled(all.map((a) => a.close()));
  }

  return { request, requestOrThrow, close };
}
