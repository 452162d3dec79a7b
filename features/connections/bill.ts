/**
 * @module features/connections/bill — auth_mode BILL (Bill.com's v3 API): `POST /v3/login` (the
 * definition's `token_url`) with the username, password, organization id and developer key answers
 * a `sessionId`; every request carries it and the developer key in the `sessionId` and `devKey`
 * headers. A session ends after 35 minutes without a call, so the login is made again before that
 * (refresh.ts) and when Bill refuses the session (401, api/routes/proxy.ts). As Bill's "API login"
 * reference and "Common API error codes" pages describe.
 */
import type { ProviderHttpClient, RequestContext } from '../../lib/http/index.js';
import type { StoredCredentials } from './credentials.js';
import { OAuthError } from './oauth.js';
import type { Endpoints } from './target.js';

type Bill = Extract<StoredCredentials, { type: 'BILL' }>;

/** Bill ends a session after 35 minutes without a call; nothing in the login's answer says when. */
export const BILL_SESSION_MS = 35 * 60 * 1000;

/** The fields a definition's templates may name as `${credentials.x}` (Nango's names). */
export function billFields(c: Bill): Record<string, string> {
  const { type: _type, raw: _raw, expires_at: _expires, ...fields } = c;
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** The headers every request carries (Bill's names). */
export function billHeaders(c: Bill): Record<string, string> {
  return { sessionId: c.session_id ?? '', devKey: c.dev_key };
}

/** Signs in with the stored fields: the credentials with a new session. */
export async function billLogin(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  credentials: Bill;
  now: Date;
  context: RequestContext;
  signal?: AbortSignal;
}): Promise<Bill> {
  const url = opts.endpoints.tokenUrl('token');
  if (!url) throw new OAuthError('invalid_auth_mode', `${opts.endpoints.provider.name} has no login URL`);
  const { username, password, organization_id, dev_key } = opts.credentials;
  const res = await opts.http.request({
    method: 'POST',
    baseUrl: url,
    path: '',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ username, password, organizationId: organization_id, devKey: dev_key }),
    auth: { type: 'none' },
    context: opts.context,
    ...(opts.signal && { signal: opts.signal }),
  });
  let body: unknown;
  try {
    body = JSON.parse(res.body?.toString('utf8') ?? '');
  } catch {
    // Reported below with the status.
  }
  const answer = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (res.status >= 400 || typeof answer.sessionId !== 'string' || !answer.sessionId) {
    // Bill's errors are a list of { code, message } (BDC_1101: wrong username or password).
    const first = Array.isArray(body) ? (body[0] as Record<string, unknown> | undefined) : undefined;
    const reason = typeof first?.message === 'string' ? `${String(first.code ?? '')} ${first.message}`.trim() : `HTTP ${res.status}`;
    throw new OAuthError('token_exchange_failed', `Bill refused the login: ${reason}`);
  }
  const { sessionId, ...raw } = answer;
  return {
    type: 'BILL',
    username,
    password,
    organization_id: typeof answer.organizationId === 'string' ? answer.organizationId : organization_id,
    dev_key,
    session_id: sessionId,
    ...(typeof answer.userId === 'string' && { user_id: answer.userId }),
    expires_at: new Date(opts.now.getTime() + BILL_SESSION_MS).toISOString(),
    raw,
  };
}
