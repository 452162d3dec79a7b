/**
 * @module api/routes/proxy — `ALL /proxy/*`: a raw request to the provider on behalf of a connection,
 * auth injected. Method, path, query and body go upstream unchanged (the body streamed), and the
 * upstream answer comes back unchanged (status, body streamed, headers minus hop-by-hop, CORS and
 * cookies). Retries on network errors, 5xx, 429 and `Retry-On` statuses, when the body can be replayed,
 * under the write policy (lib/http/retry-policy): a POST or PATCH without an `Idempotency-Key` that
 * reached the provider (any answer but 429, a timeout or reset after sending) is not sent again;
 * a 401 is tried once more with the stored credentials when they are newer than the cached ones, or
 * after a new login when they are a session the provider may end early (BILL).
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'hono';
import { z } from 'zod';
import { newerTarget, providerTarget, reauthorizedTarget } from '../../features/connections/target.js';
import { BadRequest, UpstreamError } from '../../lib/errors.js';
import {
  AddressNotAllowed,
  assertUrlAllowed,
  InvalidUrl,
  NetworkError,
  retryAfterMs,
  type AbortEmitter,
  type ProviderResponse,
  type ResponseBody,
} from '../../lib/http/index.js';
import { isUnsafeToRepeat } from '../../lib/http/retry-policy.js';
import type { AppDeps, AppEnv } from '../context.js';
import { nodeRequest, nodeResponse, preparedAnswer } from '../node-response.js';
import { anyContent, defineRoute } from '../route.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';

/** Largest request body kept in memory so that it can be sent again on a retry. */
export const REPLAYABLE_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** The longest wait between attempts: the caller's request is held for all of them. */
export const MAX_RETRY_WAIT_MS = 60_000;
const BASE_BACKOFF_MS = 1000;

const FORWARD_PREFIXES = ['switchyard-proxy-', 'nango-proxy-'];
// Hop-by-hop headers belong to one connection; content-length and host are set per request.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
const NOT_FORWARDED = new Set([...HOP_BY_HOP, 'host', 'content-length']);
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

const blankAsAbsent = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const flag = z
  .string()
  .regex(/^\s*(?:true|false|1|0)\s*$/i, 'must be true or false')
  .optional();

const proxyHeaders = z.object({
  'Connection-Id': connectionIdSchema,
  'Provider-Config-Key': uniqueKeySchema,
  Retries: z.preprocess(
    blankAsAbsent,
    z
      .string()
      .regex(/^\s*\d+\s*$/, 'must be an integer from 0 to 10')
      .transform(Number)
      .pipe(z.number().int().min(0).max(10))
      .optional(),
  ),
  'Retry-On': z.preprocess(
    blankAsAbsent,
    z
      .string()
      .regex(/^\s*\d{3}\s*(,\s*\d{3}\s*)*$/, 'must be a comma-separated list of HTTP status codes')
      .optional(),
  ),
  'Base-Url-Override': z.string().max(2048).optional(),
  Decompress: flag,
  'Forward-Headers-On-Redirect': flag,
  'Nango-Activity-Log-Id': z.string().max(255).optional(),
  'Nango-Is-Sync': flag,
  'Nango-Is-Dry-Run': flag,
});

/** The path and query after `/proxy`, as the caller wrote them (`url` is the request's, already normalised: no URL parse). */
function upstreamPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const hash = url.indexOf('#', start);
  const target = start === -1 ? '/' : url.slice(start, hash === -1 ? undefined : hash);
  const rest = target.replace(/^\/proxy(?=[/?]|$)/, '');
  return rest === '' || rest.startsWith('?') ? `/${rest}` : rest;
}

/**
 * The caller's headers that go upstream. Read from the node request when there is one (names already
 * lower case, repeats joined): iterating the web `Headers` would first build a full copy of them.
 */
function forwardedHeaders(c: Context<AppEnv>): Record<string, string> {
  const node = nodeRequest(c);
  const incoming: Iterable<[string, string | string[] | undefined]> = node ? Object.entries(node.headers) : c.req.raw.headers;
  const out: Record<string, string> = {};
  const contentType = node ? node.headers['content-type'] : c.req.header('content-type');
  if (contentType) out['content-type'] = contentType;
  for (const [name, value] of incoming) {
    if (value === undefined) continue;
    const prefix = FORWARD_PREFIXES.find((p) => name.startsWith(p));
    if (!prefix) continue;
    const target = name.slice(prefix.length);
    if (target && !NOT_FORWARDED.has(target) && !target.startsWith('proxy-')) out[target] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Whether an upstream answer's header (lower case) comes back: not hop-by-hop, proxy, CORS or cookies. */
function returned(name: string): boolean {
  return !HOP_BY_HOP.has(name) && !name.startsWith('proxy-') && !name.startsWith('access-control-') && name !== 'set-cookie';
}

function responseHeaders(upstream: ProviderResponse['headers']): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(upstream)) {
    const n = name.toLowerCase();
    if (!returned(n)) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(n, v);
  }
  return out;
}

async function* chunksOf(reader: ReadableStreamDefaultReader<Uint8Array>, first: Uint8Array[] = []): AsyncGenerator<Uint8Array> {
  yield* first.splice(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

/** A Node stream over a web stream that reads only when the consumer asks for more. */
function nodeStream(reader: ReadableStreamDefaultReader<Uint8Array>, first?: Uint8Array[]): Readable {
  return Readable.from(chunksOf(reader, first), { objectMode: false });
}

/** A web stream over the upstream body, pulled chunk by chunk so memory stays bounded. */
function webStream(upstream: ResponseBody): ReadableStream<Uint8Array> {
  const body = upstream.readable();
  const iterator = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel() {
        body.on('error', () => undefined);
        body.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Writes the upstream answer straight to the node response and streams its body in, skipping the web
 * `Response` and its stream adapters (which also held each answer for a timer tick). The headers the
 * middleware prepared (request id, CORS) win over the upstream's, as they do on a `Response`. The
 * returned answer only tells the middleware the status: the node server sees its headers already sent
 * (api/app.ts `serveFetch`). The body's chunks go from undici into the node response (lib/http/streamed-body,
 * with backpressure): a body that fails midway cuts the connection, as a web stream's would, and a client
 * that goes away stops the upstream download.
 */
function answerOnNode(c: Context<AppEnv>, outgoing: ServerResponse, res: ProviderResponse, method: string): Response {
  // One object and one writeHead: a header node refuses throws before anything is sent, and the error mapper answers.
  const { marker, headers: prepared } = preparedAnswer(c, res.status);
  // A flat name, value list: node writes it as it is, without a header object built first.
  const headers: string[] = [];
  for (const name in res.headers) {
    const n = name.toLowerCase();
    if (!returned(n) || n in prepared) continue;
    const value = res.headers[name]!;
    headers.push(n, Array.isArray(value) ? value.join(', ') : value);
  }
  for (const name in prepared) headers.push(name, prepared[name]!);
  outgoing.writeHead(res.status, headers);
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(res.status) || !res.stream) {
    res.stream?.discard();
    outgoing.end();
  } else {
    res.stream.pipeTo(outgoing);
  }
  return marker;
}

class CallerGone extends EventEmitter implements AbortEmitter {
  aborted = false;
  reason: unknown = undefined;
}

/**
 * Emits `abort` when the caller's connection closes before its answer is written, which stops the
 * upstream call. Lighter than the request's AbortSignal: @hono/node-server makes an AbortController for
 * it, and undici adds and removes an EventTarget listener, ~10 µs a call.
 */
function callerGone(outgoing: ServerResponse): CallerGone {
  const gone = new CallerGone();
  if (outgoing.destroyed) gone.aborted = true;
  else
    outgoing.once('close', () => {
      if (outgoing.writableFinished) return;
      gone.aborted = true;
      gone.emit('abort');
    });
  return gone;
}

type OutgoingBody = { kind: 'none' } | { kind: 'buffer'; data: Buffer } | { kind: 'stream'; stream: Readable; length: string | null };

/**
 * Decides how the request body goes upstream: none; buffered (replayable, only when retries are
 * asked for and it fits); or streamed (sent once, so no retry).
 */
async function outgoingBody(c: Context<AppEnv>, wantsReplay: boolean): Promise<OutgoingBody> {
  const raw = c.req.raw;
  if (raw.method === 'GET' || raw.method === 'HEAD') return { kind: 'none' };
  const length = raw.headers.get('content-length');
  const chunked = raw.headers.has('transfer-encoding');
  if (!raw.body || (!chunked && (length === null || length.trim() === '0'))) return { kind: 'none' };
  const reader = raw.body.getReader();
  const declared = length === null ? NaN : Number(length);
  if (!wantsReplay || declared > REPLAYABLE_BODY_LIMIT_BYTES) return { kind: 'stream', stream: nodeStream(reader), length: chunked ? null : length };
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { kind: 'buffer', data: Buffer.concat(chunks, total) };
    chunks.push(value);
    total += value.byteLength;
    if (total > REPLAYABLE_BODY_LIMIT_BYTES) return { kind: 'stream', stream: nodeStream(reader, chunks), length: chunked ? null : length };
  }
}

const NO_STATUSES: ReadonlySet<number> = new Set();

function retryOnSet(value: string | undefined): ReadonlySet<number> {
  if (!value) return NO_STATUSES;
  return new Set((value ?? '').split(',').flatMap((s) => (s.trim() ? [Number(s.trim())] : [])));
}

function shouldRetryStatus(status: number, retryOn: ReadonlySet<number>): boolean {
  return status >= 500 || status === 429 || retryOn.has(status);
}

function backoffMs(attempt: number): number {
  return Math.min(BASE_BACKOFF_MS * 2 ** attempt, MAX_RETRY_WAIT_MS);
}

function toApiError(err: unknown): unknown {
  if (err instanceof AddressNotAllowed) return new BadRequest('address_not_allowed', err.message, { host: err.host });
  if (err instanceof InvalidUrl) return new BadRequest('invalid_url', err.message);
  if (err instanceof NetworkError) {
    return err.code === 'timeout' ? new UpstreamError('upstream_timeout', err.message, 504) : new UpstreamError('upstream_unreachable', err.message, 502);
  }
  return err;
}

async function checkOverride(deps: AppDeps, value: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BadRequest('base_url_override_not_allowed', 'Base-Url-Override must be an absolute http(s) URL');
  }
  try {
    await assertUrlAllowed(url, deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS);
  } catch (err) {
    if (err instanceof AddressNotAllowed || err instanceof InvalidUrl)
      throw new BadRequest('base_url_override_not_allowed', `Base-Url-Override: ${err.message}`);
    throw toApiError(err);
  }
  return value;
}

export const proxy = defineRoute({
  method: 'all',
  path: '/proxy/:path',
  serves: ['/proxy', '/proxy/*'],
  operationId: 'proxy',
  summary: 'Call the provider with the connection’s credentials injected; the answer comes back unchanged',
  description:
    'Any method, path, query and body go to the provider as sent (headers prefixed Switchyard-Proxy- or Nango-Proxy- too); its answer, whatever its status and content, comes back unchanged. An unknown integration or connection answers 400, as Nango does.',
  tag: 'proxy',
  auth: 'secret_key',
  scope: 'environment:proxy',
  request: { headers: proxyHeaders },
  responses: {
    200: anyContent("The provider's 2xx answer, unchanged: its status, headers and a body of any content type"),
    default: anyContent("The provider's answer, unchanged (status, headers and body)"),
  },
  errors: [502, 504],
}).handle(async ({ deps, headers: h }, c) => {
  const env = c.get('environment');
  const retries = h.Retries ?? 0;
  const retryOn = retryOnSet(h['Retry-On']);
  const override = h['Base-Url-Override']?.trim() ? await checkOverride(deps, h['Base-Url-Override'].trim()) : null;

  const integration = await deps.lookups.integration(env.id, h['Provider-Config-Key']);
  if (!integration) throw new BadRequest('unknown_provider_config', `Provider config ${h['Provider-Config-Key']} does not exist`);
  const connection = await deps.lookups.connection(env.id, integration.uniqueKey, h['Connection-Id']);
  if (!connection) {
    throw new BadRequest(
      'unknown_connection',
      `Connection with connection id ${h['Connection-Id']} and provider config key ${integration.uniqueKey} not found`,
    );
  }
  let target = await providerTarget(deps, connection, integration);

  const method = c.req.method.toUpperCase();
  const path = upstreamPath(c.req.url);
  const headers = forwardedHeaders(c);
  // An OAuth 1.0a signature covers a form body's parameters, so it is read before the request is signed.
  const signsBody = target.auth.type === 'oauth1' && /^application\/x-www-form-urlencoded\b/i.test(headers['content-type'] ?? '');
  const body = await outgoingBody(c, retries > 0 || signsBody);
  if (body.kind === 'stream' && body.length !== null) headers['content-length'] = body.length;
  const replayable = body.kind !== 'stream';
  const attempts = replayable ? retries + 1 : 1;
  // The provider may have acted on a write whose answer was a 5xx or was lost: only a 429 or a request that never left is sent again.
  const unsafe = isUnsafeToRepeat(method, headers);
  const outgoing = nodeResponse(c);
  const signal = outgoing ? callerGone(outgoing) : c.req.raw.signal;

  // Not a `send` closure: tsx names each closure bound to a name, per call (`__name`).
  const request = {
    method,
    path,
    headers,
    body: body.kind === 'none' ? null : body.kind === 'buffer' ? body.data : body.stream,
    context: { environmentId: env.id, integration: integration.uniqueKey, connectionId: connection.connectionId, kind: 'proxy' as const },
    stream: true,
    signal,
  };

  let res: ProviderResponse;
  let reloaded = false;
  for (let attempt = 0; ; attempt++) {
    const last = attempt === attempts - 1;
    let wait: number;
    try {
      // An override elsewhere than the provider's origins gets the request without the credentials.
      res = await deps.http.request({ ...request, baseUrl: override ?? target.baseUrl, auth: override ? target.authAt(override) : target.auth });
      if (res.status === 401 && replayable && !reloaded) {
        // Another process may have refreshed the token after this one cached the connection, its
        // change notice still on the way: once, the stored credentials, if newer, are tried at once.
        reloaded = true;
        // Else a session the provider ended early (Bill's) is signed in again.
        const newer = (await newerTarget(deps, target)) ?? (await reauthorizedTarget(deps, target));
        if (newer) {
          res.stream?.discard();
          target = newer;
          attempt--;
          continue;
        }
      }
      if (last || !shouldRetryStatus(res.status, retryOn) || (unsafe && res.status !== 429)) break;
      const asked = retryAfterMs(res.headers, new Date(), target.provider.retry);
      // A provider asking for a longer pause than this synchronous route holds a request gets its answer back now.
      if (asked !== null && asked > MAX_RETRY_WAIT_MS) break;
      wait = asked ?? backoffMs(attempt);
      res.stream?.discard();
    } catch (err) {
      if (last || !(err instanceof NetworkError) || !err.retryable || (unsafe && err.sent)) throw toApiError(err);
      wait = backoffMs(attempt);
    }
    await sleep(wait, undefined, { signal: c.req.raw.signal });
  }

  if (outgoing) return answerOnNode(c, outgoing, res, method);
  const out = responseHeaders(res.headers);
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(res.status) || !res.stream) {
    res.stream?.discard();
    return new Response(null, { status: res.status, headers: out });
  }
  return new Response(webStream(res.stream), { status: res.status, headers: out });
});
