/**
 * @module api/node-response — answering on the node response itself, skipping the web `Response`
 * that @hono/node-server would copy through a web stream (Hono rebuilds every answer as a new
 * `Response` once `c.res` has been touched). The returned `Response` only tells the middleware the
 * status; api/app.ts `serveFetch` tells the node server the answer is already sent.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';
import type { AppEnv } from './context.js';

/** This request's node response, when the API is served by @hono/node-server; null under a bare `app.fetch` (the legacy aliases' dispatch). */
export function nodeResponse(c: Context<AppEnv>): ServerResponse | null {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? outgoing : null;
}

/** This request's node request (headers with lower-case names, repeats joined), when served by @hono/node-server; null under a bare `app.fetch`. */
export function nodeRequest(c: Context): IncomingMessage | null {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming : null;
}

/**
 * The answer that tells the middleware the status, and the headers the middleware prepared (request
 * id, CORS) as a plain object to write on the node response. Read from that answer, not `c.res`,
 * which would build a spare `Response` for them.
 */
export function preparedAnswer(c: Context<AppEnv>, status: number): { marker: Response; headers: Record<string, string> } {
  const marker = c.newResponse(null, status as StatusCode);
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, value] of marker.headers) headers[name] = value;
  return { marker, headers };
}

/** A text answer (a string, or its UTF-8 bytes) with its length, written in one piece on the node response when there is one. */
export function sendText(c: Context<AppEnv>, status: ContentfulStatusCode, contentType: string, body: string | Buffer): Response {
  const outgoing = nodeResponse(c);
  if (!outgoing) return c.body(typeof body === 'string' ? body : body.toString('utf8'), status, { 'Content-Type': contentType });
  const { marker, headers } = preparedAnswer(c, status);
  headers['content-type'] = contentType;
  headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  outgoing.writeHead(status, headers);
  outgoing.end(body);
  return marker;
}
