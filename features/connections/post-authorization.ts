/**
 * @module features/connections/post-authorization — the connection-config values known only after
 * authorization, as the definition declares them: query parameters of the OAuth redirect
 * (`redirect_uri_metadata`), token-response fields (`token_response_metadata`) and the answer of one
 * call made with the new token (`post_connection`). The call's URL and auth come from the resolver
 * (target.ts), and the filled config is checked by it before the connection is saved.
 */
import type { ProviderHttpClient, RequestContext } from '../../lib/http/index.js';
import type { StoredCredentials } from './credentials.js';
import { OAuthError, tokenMetadata } from './oauth.js';
import type { Endpoints } from './target.js';

/** The value at a response path (`0.id`, `dc`, `accounts[is_default=true].base_uri`); undefined when absent. */
export function valueAt(body: unknown, path: string): unknown {
  let current = body;
  for (const segment of path.split('.')) {
    const [, name, field, wanted] = /^([^[]*)(?:\[([^=\]]+)=([^\]]*)\])?$/.exec(segment) ?? [];
    if (name === undefined) return undefined;
    if (name !== '')
      current = current !== null && typeof current === 'object' && Object.hasOwn(current, name) ? (current as Record<string, unknown>)[name] : undefined;
    if (field !== undefined) {
      current = Array.isArray(current)
        ? current.find((item) => item !== null && typeof item === 'object' && String((item as Record<string, unknown>)[field]) === wanted)
        : undefined;
    }
    if (current === undefined || current === null) return undefined;
  }
  return current;
}

const given = (value: unknown) => value !== undefined && value !== null && value !== '';

async function postConnectionValues(
  http: ProviderHttpClient,
  e: Endpoints,
  credentials: StoredCredentials,
  context: RequestContext,
): Promise<Record<string, unknown>> {
  const call = e.provider.postConnection;
  const request = e.postConnectionRequest(credentials);
  if (!call || !request) return {};
  const res = await http.request({
    method: call.method,
    baseUrl: request.baseUrl,
    path: call.endpoint,
    headers: { accept: 'application/json', ...request.headers },
    auth: request.auth,
    context,
  });
  let body: unknown;
  try {
    body = JSON.parse(res.body?.toString('utf8') ?? '');
  } catch {
    body = undefined;
  }
  if (res.status >= 400 || body === undefined) {
    throw new OAuthError(
      'post_connection_failed',
      `${e.provider.name} answered ${res.status} to ${call.endpoint}, which gives the connection's ${Object.keys(call.set).join(', ')}`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, path] of Object.entries(call.set)) {
    const value = valueAt(body, path);
    if (given(value)) out[key] = value;
  }
  return out;
}

/**
 * The connection config after the code exchange: the end user's values, then the redirect's, the
 * token response's and the post-connection call's (a value the end user gave is kept). A value the
 * definition says comes after authorization and is not optional must have come.
 */
export async function configAfterAuthorization(opts: {
  http: ProviderHttpClient;
  endpointsOf: (config: Record<string, unknown>) => Endpoints;
  config: Record<string, unknown>;
  redirectQuery: Record<string, unknown>;
  tokenResponse: Record<string, unknown>;
  credentials: StoredCredentials;
  context: RequestContext;
}): Promise<Record<string, unknown>> {
  const provider = opts.endpointsOf(opts.config).provider;
  const config = { ...opts.config };
  for (const key of provider.redirectUriMetadata ?? []) {
    const value = opts.redirectQuery[key];
    if (!given(config[key]) && typeof value === 'string' && value !== '') config[key] = value;
  }
  Object.assign(config, tokenMetadata(provider, opts.tokenResponse));
  const fetched = await postConnectionValues(opts.http, opts.endpointsOf(config), opts.credentials, opts.context);
  for (const [key, value] of Object.entries(fetched)) if (!given(config[key])) config[key] = value;
  for (const [key, field] of Object.entries(provider.connectionConfig)) {
    const optional = provider.definition.connection_config?.[key]?.optional;
    if (field.automatic && !optional && !given(config[key])) {
      throw new OAuthError('missing_connection_config', `${provider.name} did not give the connection's ${key} after authorization`);
    }
  }
  opts.endpointsOf(config).check();
  return config;
}
