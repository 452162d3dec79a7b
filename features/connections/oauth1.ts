/**
 * @module features/connections/oauth1 — the OAuth 1.0a connect flow (RFC 5849 section 2, Nango's
 * OAUTH1 keys): temporary credentials from the definition's `request_url` (with `request_params`
 * and the callback), the end user sent to `authorization_url` with that token, then the token
 * credentials from `token_url` for the verifier the provider's redirect brings. Every request is
 * signed with the integration's consumer key and secret (lib/http/oauth1.ts), at the URLs the
 * resolver's endpoints give (target.ts).
 */
import type { ProviderHttpClient, RequestContext } from '../../lib/http/index.js';
import type { IntegrationCredentials, StoredCredentials } from './credentials.js';
import { OAuthError } from './oauth.js';
import type { Endpoints } from './target.js';

export interface RequestToken {
  token: string;
  secret: string;
}

/** One signed request of the flow; its answer is form-encoded (section 2.1 and 2.3). */
async function signedRequest(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  client: IntegrationCredentials;
  step: 'request' | 'token';
  token?: RequestToken;
  protocol: Record<string, string>;
  context: RequestContext;
}): Promise<Record<string, string>> {
  const { endpoints } = opts;
  const spec = endpoints.provider.oauth1;
  const url = opts.step === 'request' ? endpoints.requestUrl() : endpoints.tokenUrl('token');
  if (!spec || !url) throw new OAuthError('invalid_auth_mode', `${endpoints.provider.name} has no OAuth 1.0a ${opts.step} URL`);
  const method = opts.step === 'request' ? spec.requestMethod : spec.tokenMethod;
  const params = endpoints.params(opts.step);
  const hasParams = Object.keys(params).length > 0;
  const res = await opts.http.request({
    method,
    baseUrl: url,
    path: '',
    ...(method === 'GET' ? { query: params } : {}),
    headers: {
      accept: 'application/x-www-form-urlencoded, application/json',
      ...(method === 'POST' && hasParams && { 'content-type': 'application/x-www-form-urlencoded' }),
    },
    ...(method === 'POST' && hasParams ? { body: new URLSearchParams(params).toString() } : {}),
    auth: {
      type: 'oauth1',
      signer: {
        consumerKey: opts.client.client_id,
        consumerSecret: opts.client.client_secret,
        ...(opts.token && { token: opts.token.token, tokenSecret: opts.token.secret }),
        signatureMethod: spec.signatureMethod,
      },
      headers: {},
      query: {},
      protocol: opts.protocol,
    },
    context: opts.context,
  });
  const text = res.body?.toString('utf8') ?? '';
  let body: Record<string, string>;
  try {
    body = text.trim().startsWith('{') ? (JSON.parse(text) as Record<string, string>) : Object.fromEntries(new URLSearchParams(text.trim()));
  } catch {
    throw new OAuthError('token_exchange_failed', `the provider answered the ${opts.step} token request ${res.status} with an unreadable body`);
  }
  if (res.status >= 400 || typeof body.oauth_token !== 'string' || !body.oauth_token) {
    const reason = typeof body.oauth_problem === 'string' ? body.oauth_problem : `HTTP ${res.status}`;
    throw new OAuthError('token_exchange_failed', `the provider refused the ${opts.step} token request: ${reason}`);
  }
  return body;
}

/** Section 2.1: temporary credentials, with the callback the provider redirects the end user to. */
export async function requestToken(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  client: IntegrationCredentials;
  callbackUrl: string;
  context: RequestContext;
}): Promise<RequestToken> {
  const body = await signedRequest({ ...opts, step: 'request', protocol: { oauth_callback: opts.callbackUrl } });
  return { token: body.oauth_token!, secret: body.oauth_token_secret ?? '' };
}

/** Section 2.2: where the end user authorizes the temporary credentials (Nango adds the scopes, `authorization_params` and the callback). */
export function authorizationUrl(opts: { endpoints: Endpoints; client: IntegrationCredentials; token: RequestToken; callbackUrl: string }): string {
  const { provider } = opts.endpoints;
  const base = opts.endpoints.authorizationUrl(opts.client.client_id);
  if (!base) throw new OAuthError('invalid_auth_mode', `${provider.name} has no authorization URL`);
  const url = new URL(base);
  const scopes = (opts.client.scopes ? opts.client.scopes.split(',') : (provider.defaultScopes ?? [])).filter(Boolean);
  if (scopes.length) url.searchParams.set('scope', scopes.join(provider.scopeSeparator ?? ' '));
  for (const [k, v] of Object.entries(opts.endpoints.params('authorization'))) url.searchParams.set(k, v);
  url.searchParams.set('oauth_token', opts.token.token);
  url.searchParams.set('oauth_callback', opts.callbackUrl);
  return url.toString();
}

/** Section 2.3: the token credentials for the verifier, signed with the temporary credentials. */
export async function accessToken(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  client: IntegrationCredentials;
  token: RequestToken;
  verifier: string;
  context: RequestContext;
}): Promise<{ credentials: StoredCredentials; raw: Record<string, string> }> {
  const raw = await signedRequest({ ...opts, step: 'token', protocol: { oauth_verifier: opts.verifier } });
  return { credentials: { type: 'OAUTH1', oauth_token: raw.oauth_token!, oauth_token_secret: raw.oauth_token_secret ?? '', raw }, raw };
}
