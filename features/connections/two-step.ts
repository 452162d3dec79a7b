/**
 * @module features/connections/two-step — auth_mode TWO_STEP: the fields the end user entered are
 * exchanged for a token by the request the definition describes (`token_url`, `token_params` and
 * `token_headers` filled with `${credentials.x}`, `body_format`, `token_request_method`), the token
 * and its expiry read where `token_response` says. The same request gives a new token before the
 * old one expires (refresh.ts). A declared `assertion` (SAP SuccessFactors' SAML bearer grant) is
 * signed before each request (saml-bearer.ts). URLs and filled templates come from the resolver (target.ts).
 */
import { ValidationFailed } from '../../lib/errors.js';
import type { ProviderHttpClient, RequestContext } from '../../lib/http/index.js';
import { twoStepFields, type StoredTwoStepCredentials } from './credentials.js';
import { OAuthError } from './oauth.js';
import { samlBearerAssertion } from './saml-bearer.js';
import type { Endpoints } from './target.js';

function at(body: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((o, k) => (o !== null && typeof o === 'object' && Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined), body);
}

/** When the token expires: `expireIn` seconds from now, or `expireAt` a date or epoch seconds; else the definition's fixed lifetime. */
function expiryOf(endpoints: Endpoints, body: unknown, now: Date): string | undefined {
  const spec = endpoints.provider.twoStep!;
  const value = spec.response.token_expiration ? at(body, spec.response.token_expiration) : undefined;
  if (value !== undefined && value !== null && value !== '') {
    const n = Number(value);
    if ((spec.response.token_expiration_strategy ?? 'expireAt') === 'expireIn') {
      if (Number.isFinite(n) && n > 0) return new Date(now.getTime() + n * 1000).toISOString();
    } else {
      const date = Number.isFinite(n) ? new Date(n * 1000) : new Date(String(value));
      if (!Number.isNaN(date.getTime())) return date.toISOString();
    }
    throw new OAuthError(
      'token_exchange_failed',
      `the token response's ${spec.response.token_expiration} is not an expiry (${spec.response.token_expiration_strategy ?? 'expireAt'})`,
    );
  }
  return spec.expiresInMs ? new Date(now.getTime() + spec.expiresInMs).toISOString() : undefined;
}

/** A token for the entered fields (a new connection's, or a renewal with the stored ones). */
export async function twoStepToken(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  credentials: Record<string, unknown>;
  now: Date;
  context: RequestContext;
  signal?: AbortSignal;
}): Promise<StoredTwoStepCredentials> {
  const { endpoints } = opts;
  const provider = endpoints.provider;
  const spec = provider.twoStep;
  const tokenUrl = endpoints.tokenUrl('token');
  if (!spec || !tokenUrl) throw new OAuthError('invalid_auth_mode', `${provider.name} has no TWO_STEP token request`);
  const fields = twoStepFields(opts.credentials);
  for (const [key, field] of Object.entries(provider.credentialFields)) {
    if (!field.optional && !fields[key])
      throw new ValidationFailed(
        'missing_credentials',
        [{ code: 'invalid_value', message: `is required: ${field.title}`, path: ['credentials', key] }],
        `credentials.${key} is required: ${field.title}`,
      );
  }
  // A declared assertion is signed anew for each request, as `${credentials.assertion}`; it is not stored.
  const filled = spec.assertion ? { ...fields, assertion: samlBearerAssertion(endpoints, fields, tokenUrl, opts.now) } : fields;
  const params = endpoints.params('token', filled, opts.now);
  const json = provider.tokenRequestEncoding === 'json';
  // GET and PUT (Tripletex's) carry the parameters in the query, POST in the body.
  const inQuery = spec.method !== 'POST';
  const url = new URL(tokenUrl);
  if (inQuery) for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await opts.http.request({
    method: spec.method,
    baseUrl: url.toString(),
    path: '',
    headers: {
      accept: 'application/json',
      ...(inQuery ? {} : { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' }),
      ...endpoints.tokenHeaders(fields),
    },
    ...(inQuery ? {} : { body: json ? JSON.stringify(params) : new URLSearchParams(params).toString() }),
    auth: { type: 'none' },
    context: opts.context,
    ...(opts.signal && { signal: opts.signal }),
  });
  const text = res.body?.toString('utf8') ?? '';
  if (res.status >= 400) throw new OAuthError('token_exchange_failed', `the token request was refused (HTTP ${res.status})`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Nango's empty `token` path: the answer is the token itself, JSON or not.
    if (spec.response.token !== '') throw new OAuthError('token_exchange_failed', `the token request was answered ${res.status} with a body that is not JSON`);
    body = text.trim();
  }
  const token = spec.response.token === '' ? body : at(body, spec.response.token);
  if (typeof token !== 'string' || token === '')
    throw new OAuthError('token_exchange_failed', spec.response.token ? `the token response has no ${spec.response.token}` : 'the token response is empty');
  const refresh = spec.response.refresh_token ? at(body, spec.response.refresh_token) : undefined;
  const expiresAt = expiryOf(endpoints, body, opts.now);
  return {
    ...fields,
    type: 'TWO_STEP',
    token,
    ...(typeof refresh === 'string' && refresh ? { refresh_token: refresh } : {}),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
    raw: body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {},
  };
}
