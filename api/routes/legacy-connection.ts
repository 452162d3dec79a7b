/**
 * @module api/routes/legacy-connection — the removed `/connection` paths. From 2026-01-20 every
 * method answers 410 Gone naming the replacement; before that date they are aliases of the
 * `/connections` paths, marked with a Deprecation header.
 */
import { dates } from '../../lib/clock.js';
import { Gone } from '../../lib/errors.js';
import { anyContent, defineRoute } from '../route.js';

function replacementFor(method: string, path: string): string {
  if (/^\/connection\/[^/]+\/metadata$/.test(path)) return 'POST|PATCH /connections/metadata (this path was not carried over)';
  if (path === '/connection/metadata') return `${method} /connections/metadata`;
  if (path === '/connection' && method === 'POST') return 'POST /connections (credentials nested under `credentials`)';
  return `${method} ${path.replace(/^\/connection/, '/connections')}`;
}

/** Converts the legacy flat POST /connection body into the nested one. */
function nestCredentials(flat: Record<string, unknown>): Record<string, unknown> {
  const { access_token, refresh_token, expires_at, api_key, username, password, ...rest } = flat;
  for (const k of ['expires_in', 'no_expiration', 'oauth_token', 'oauth_token_secret', 'raw', 'oauth_client_id_override', 'oauth_client_secret_override'])
    delete rest[k];
  const credentials =
    api_key !== undefined
      ? { type: 'API_KEY', apiKey: api_key }
      : username !== undefined
        ? { type: 'BASIC', username, password: password ?? '' }
        : { type: 'OAUTH2', access_token, ...(refresh_token ? { refresh_token } : {}), ...(expires_at ? { expires_at } : {}) };
  return { ...rest, credentials };
}

/** The nested body, or the text unchanged when it is not a JSON object: /connections then names what is wrong. */
function nestedBody(text: string): string {
  let flat: unknown;
  try {
    flat = JSON.parse(text);
  } catch {
    return text;
  }
  return flat !== null && typeof flat === 'object' && !Array.isArray(flat) ? JSON.stringify(nestCredentials(flat as Record<string, unknown>)) : text;
}

export const legacyConnection = defineRoute({
  method: 'all',
  path: '/connection',
  serves: ['/connection', '/connection/*'],
  operationId: 'legacyConnection',
  summary: 'Removed: answers 410 Gone with the /connections replacement',
  description:
    'Every method on /connection and /connection/… From 2026-01-20: 410 Gone naming the replacement. Before: an alias of the /connections path, marked with a Deprecation header.',
  tag: 'connections',
  auth: 'none',
  responses: {
    200: anyContent('Before 2026-01-20 only: the success of the /connections path it aliases, any content type'),
    default: anyContent('Before 2026-01-20: the answer of the /connections path it aliases (with Deprecation and Link headers)'),
  },
  errors: [410],
}).handle(async ({ deps }, c) => {
  const path = c.req.path.replace(/\/+$/, '') || '/connection';
  const method = c.req.method;
  if (deps.clock.now() >= dates.connectionPathsRemoved) {
    throw new Gone('endpoint_removed', `${method} ${path} was removed on 2026-01-20. Use ${replacementFor(method, path)} instead.`);
  }
  const url = new URL(c.req.url);
  url.pathname = path.replace(/^\/connection/, '/connections');
  let bodyText: string | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    bodyText = await c.req.text();
    if (path === '/connection' && method === 'POST' && bodyText) bodyText = nestedBody(bodyText);
  }
  const res = await c.get('dispatch')(new Request(url, { method, headers: c.req.raw.headers, body: bodyText }));
  const out = new Response(res.body, res);
  out.headers.set('Deprecation', 'true');
  out.headers.set('Link', `<${url.pathname}>; rel="successor-version"`);
  return out;
});
