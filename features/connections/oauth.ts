/**
 * @module features/connections/oauth — the OAuth 2 requests: authorize URLs (with PKCE where the
 * provider allows), code exchange, token refresh and client-credentials tokens, at the URLs and with
 * the parameters the resolver's endpoints give (target.ts), never a template filled here.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IntegrationCredentials, StoredCredentials } from './credentials.js';
import type { Provider } from '../providers/providers.js';
import type { ClientCertificate, ProviderHttpClient, RequestContext } from '../../lib/http/index.js';
import type { Endpoints } from './target.js';

export class OAuthError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(opts: {
  endpoints: Endpoints;
  credentials: IntegrationCredentials;
  redirectUri: string;
  state: string;
  codeChallenge?: string;
  userScopes?: string;
  extraParams?: Record<string, string>;
}): string {
  const provider = opts.endpoints.provider;
  const base = opts.endpoints.authorizationUrl(opts.credentials.client_id);
  if (!base) throw new OAuthError('invalid_auth_mode', `${provider.name} has no authorization URL`);
  const url = new URL(base);
  const scopes = (opts.credentials.scopes ? opts.credentials.scopes.split(',') : (provider.defaultScopes ?? [])).filter(Boolean);
  if (scopes.length) url.searchParams.set('scope', scopes.join(provider.scopeSeparator ?? ' '));
  if (opts.userScopes) url.searchParams.set('user_scope', opts.userScopes);
  for (const [k, v] of Object.entries({ ...opts.endpoints.params('authorization'), ...opts.extraParams })) url.searchParams.set(k, v);
  // Set last: the flow's own parameters are not the end user's to replace through authorization_params.
  url.searchParams.set('client_id', opts.credentials.client_id);
  url.searchParams.set('redirect_uri', opts.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('state', opts.state);
  for (const k of ['code_challenge', 'code_challenge_method']) url.searchParams.delete(k);
  if (opts.codeChallenge) {
    url.searchParams.set('code_challenge', opts.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  for (const [from, to] of Object.entries(provider.authorizationParamNames)) {
    const value = url.searchParams.get(from);
    if (value === null) continue;
    url.searchParams.delete(from);
    if (to) url.searchParams.set(to, value);
  }
  return url.toString();
}

type TokenResponse = Record<string, unknown>;

interface TokenRequest {
  endpoints: Endpoints;
  purpose: 'token' | 'refresh';
  client: { id: string; secret: string };
  params: Record<string, string>;
  context: RequestContext;
  /** Ends the whole request (headers and body), not only a pause between chunks. */
  signal?: AbortSignal;
  /** Mutual TLS: presented to the token endpoint. */
  clientCertificate?: ClientCertificate;
}

/**
 * One request to the provider's token endpoint (its `refresh_url` for refreshes when it has one): the
 * client id and secret in the body or in an Authorization: Basic header (`token_request_auth_method`),
 * the body as a form or JSON (`body_format`).
 */
async function tokenRequest(http: ProviderHttpClient, req: TokenRequest): Promise<TokenResponse> {
  const provider = req.endpoints.provider;
  const tokenUrl = req.endpoints.tokenUrl(req.purpose);
  if (!tokenUrl) throw new OAuthError('invalid_auth_mode', `${provider.name} has no token URL`);
  const json = provider.tokenRequestEncoding === 'json';
  const basic = provider.tokenRequestAuthMethod === 'basic';
  // A public client (MCP's dynamically registered ones) has no secret to send.
  const params = renamed(
    { ...req.params, ...(basic ? {} : { client_id: req.client.id, ...(req.client.secret !== '' && { client_secret: req.client.secret }) }) },
    provider.tokenParamNames,
  );
  const res = await http.request({
    method: 'POST',
    baseUrl: tokenUrl,
    path: '',
    headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: json ? JSON.stringify(params) : new URLSearchParams(params).toString(),
    auth: basic ? { type: 'basic', username: req.client.id, password: req.client.secret } : { type: 'none' },
    ...(req.clientCertificate && { clientCertificate: req.clientCertificate }),
    context: req.context,
    ...(req.signal && { signal: req.signal }),
  });
  const text = res.body?.toString('utf8') ?? '';
  let answer: TokenResponse;
  try {
    answer = text.trim().startsWith('{') ? (JSON.parse(text) as TokenResponse) : Object.fromEntries(new URLSearchParams(text));
  } catch {
    throw new OAuthError('token_exchange_failed', `the token endpoint answered ${res.status} with a body that is not JSON`);
  }
  const nested = provider.tokenResponseRoot === undefined ? answer : dotPath(answer, provider.tokenResponseRoot);
  const body: TokenResponse = nested !== null && typeof nested === 'object' && !Array.isArray(nested) ? (nested as TokenResponse) : {};
  // Slack answers HTTP 200 with {ok:false,error} on failure; TikTok's Business API HTTP 200 with {code,message} and no data.
  if (res.status >= 400 || answer.ok === false || typeof body.access_token !== 'string') {
    const said = [answer.error_description, answer.error, answer.message].find((v): v is string => typeof v === 'string' && v !== '');
    throw new OAuthError('token_exchange_failed', `the provider refused the token request: ${said ?? `HTTP ${res.status}`}`);
  }
  return body;
}

/** OAuth's parameter names replaced by the provider's (an empty name leaves the parameter out). */
function renamed(params: Record<string, string>, names: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    const name = Object.hasOwn(names, k) ? names[k]! : k;
    if (name !== '') out[name] = v;
  }
  return out;
}

/** The value at a dot path of a JSON answer (`team.id`). */
function dotPath(body: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((o, k) => (o !== null && typeof o === 'object' && Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined), body);
}

function credentialsFrom(body: TokenResponse, now: Date, previousRefresh?: string): StoredCredentials {
  const expiresIn = Number(body.expires_in);
  return {
    type: 'OAUTH2',
    access_token: body.access_token as string,
    ...(typeof body.refresh_token === 'string' ? { refresh_token: body.refresh_token } : previousRefresh ? { refresh_token: previousRefresh } : {}),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expires_at: new Date(now.getTime() + expiresIn * 1000).toISOString() } : {}),
    raw: body,
  };
}

/** The token-response fields a provider keeps in connection_config (dotted paths). */
export function tokenMetadata(provider: Provider, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of provider.tokenResponseMetadata ?? []) {
    const value = dotPath(body, field);
    if (value !== undefined) out[field] = value;
  }
  return out;
}

/**
 * The definition's `access_token_exchange` or `access_token_refresh`: a GET answered like a token
 * endpoint (`access_token`, `expires_in`). Undefined when the definition has none.
 */
export async function accessTokenRequest(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  kind: 'exchange' | 'refresh';
  accessToken: string;
  now: Date;
  context: RequestContext;
  signal?: AbortSignal;
}): Promise<StoredCredentials | undefined> {
  const request = opts.endpoints.accessTokenRequest(opts.kind, opts.accessToken);
  if (!request) return undefined;
  const res = await opts.http.request({
    method: 'GET',
    baseUrl: request.url,
    path: '',
    query: request.query,
    headers: { accept: 'application/json' },
    auth: { type: 'none' },
    context: opts.context,
    ...(opts.signal && { signal: opts.signal }),
  });
  let body: TokenResponse = {};
  try {
    body = JSON.parse(res.body?.toString('utf8') ?? '') as TokenResponse;
  } catch {
    // Reported below with the status.
  }
  if (res.status >= 400 || typeof body.access_token !== 'string') {
    const error = body.error as { message?: unknown } | string | undefined;
    const reason = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : `HTTP ${res.status}`;
    throw new OAuthError('token_exchange_failed', `the provider refused the ${opts.kind === 'exchange' ? 'token exchange' : 'token renewal'}: ${reason}`);
  }
  return credentialsFrom(body, opts.now);
}

export async function exchangeCode(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  credentials: IntegrationCredentials;
  code: string;
  redirectUri: string;
  codeVerifier?: string;
  now: Date;
  context: RequestContext;
}): Promise<{ credentials: StoredCredentials; raw: TokenResponse }> {
  const raw = await tokenRequest(opts.http, {
    endpoints: opts.endpoints,
    purpose: 'token',
    client: { id: opts.credentials.client_id, secret: opts.credentials.client_secret },
    params: {
      grant_type: 'authorization_code',
      ...opts.endpoints.params('token'),
      code: opts.code,
      redirect_uri: opts.redirectUri,
      ...(opts.codeVerifier ? { code_verifier: opts.codeVerifier } : {}),
    },
    context: opts.context,
  });
  // The code exchange's answer keeps its metadata (`raw`); the token is the exchanged one where the definition says so.
  const exchanged = await accessTokenRequest({ ...opts, kind: 'exchange', accessToken: raw.access_token as string });
  return { credentials: exchanged ?? credentialsFrom(raw, opts.now), raw };
}

export async function refreshToken(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  client: IntegrationCredentials;
  refreshToken: string;
  now: Date;
  context: RequestContext;
  signal?: AbortSignal;
}): Promise<StoredCredentials> {
  const raw = await tokenRequest(opts.http, {
    endpoints: opts.endpoints,
    purpose: 'refresh',
    client: { id: opts.client.client_id, secret: opts.client.client_secret },
    params: { grant_type: 'refresh_token', ...opts.endpoints.params('refresh'), refresh_token: opts.refreshToken },
    context: opts.context,
    signal: opts.signal,
  });
  return credentialsFrom(raw, opts.now, opts.refreshToken);
}

/**
 * A client-credentials token (auth_mode OAUTH2_CC), fetched with the connection's own client id and
 * secret, else the integration's; fetched again before it expires (refresh.ts).
 */
export async function clientCredentialsToken(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  connectionCredentials: { client_id?: string; client_secret?: string; client_certificate?: string; client_private_key?: string };
  now: Date;
  context: RequestContext;
  signal?: AbortSignal;
}): Promise<StoredCredentials> {
  const { provider, integration } = opts.endpoints;
  const id = opts.connectionCredentials.client_id ?? integration.credentials?.client_id;
  const secret = opts.connectionCredentials.client_secret ?? integration.credentials?.client_secret;
  if (!id || !secret) throw new OAuthError('missing_client_credentials', 'Neither the connection nor the integration has a client id and secret');
  const { client_certificate: cert, client_private_key: key } = opts.connectionCredentials;
  if (provider.requireClientCertificate && !(cert && key))
    throw new OAuthError(
      'missing_client_certificate',
      `${provider.name} requires a client certificate and its private key (client_certificate, client_private_key)`,
    );
  const scopes = (integration.credentials?.scopes ? integration.credentials.scopes.split(',') : (provider.defaultScopes ?? [])).filter(Boolean);
  const raw = await tokenRequest(opts.http, {
    endpoints: opts.endpoints,
    purpose: 'token',
    client: { id, secret },
    params: {
      grant_type: 'client_credentials',
      ...(scopes.length ? { scope: scopes.join(provider.scopeSeparator ?? ' ') } : {}),
      ...opts.endpoints.params('token'),
    },
    context: opts.context,
    signal: opts.signal,
    ...(cert && key && { clientCertificate: { cert, key } }),
  });
  const expiresIn = Number(raw.expires_in);
  return {
    type: 'OAUTH2_CC',
    token: raw.access_token as string,
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expires_at: new Date(opts.now.getTime() + expiresIn * 1000).toISOString() } : {}),
    ...(opts.connectionCredentials.client_id ? { client_id: opts.connectionCredentials.client_id } : {}),
    ...(opts.connectionCredentials.client_secret ? { client_secret: opts.connectionCredentials.client_secret } : {}),
    ...(cert && key && { client_certificate: cert, client_private_key: key }),
    raw,
  };
}
