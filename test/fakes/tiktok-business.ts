/**
 * @module TikTok API for Business, as its authorization guides describe it (Marketing API:
 * https://business-api.tiktok.com/portal/docs?id=1738373141733378, Accounts API:
 * https://business-api.tiktok.com/portal/docs?id=1737565048641538):
 * - Marketing API (advertisers): the end user approves at `/portal/auth?app_id&redirect_uri&state` and
 *   comes back with `auth_code` (and `code`, the same value) and `state`; `POST
 *   /open_api/v1.3/oauth2/access_token/` takes JSON `{app_id, secret, auth_code}` and answers
 *   `{code: 0, message: "OK", request_id, data: {access_token, advertiser_ids, scope}}`: a token that
 *   does not expire.
 * - Accounts API (TikTok account holders): approval at TikTok's `/v2/auth/authorize/?client_key&…`,
 *   back with `code`; `POST /open_api/v1.3/tt_user/oauth2/token/` takes JSON `{client_id,
 *   client_secret, grant_type: authorization_code, auth_code, redirect_uri}` and answers in `data`
 *   `{access_token, expires_in (a day), refresh_token, refresh_token_expires_in, open_id, scope,
 *   token_type}`; `/tt_user/oauth2/refresh_token/` takes `{client_id, client_secret, grant_type:
 *   refresh_token, refresh_token}`.
 * Every failure is HTTP 200 with a non-zero `code` and a `message`, no `data` (as the API answers);
 * API calls under `/open_api/v1.3/` need the token in the `Access-Token` header.
 */
import { randomBytes } from 'node:crypto';
import { json, redirect, Router, startFakeServer, type FakeServer, type RequestContext, type Reply } from './server.js';

export const TIKTOK_CLIENT = { appId: 'tt-app-7', secret: 'tt-secret-7' };
export const TIKTOK_ADVERTISER_IDS = ['7000000000000000001', '7000000000000000002'];
const DAY_S = 86_400;

export interface TikTokBusinessState {
  codes: Map<string, { redirectUri: string; api: 'marketing' | 'accounts' }>;
  tokens: Set<string>;
  refreshTokens: Set<string>;
  /** The JSON bodies of the token requests, as received, by path. */
  tokenRequests: { path: string; body: Record<string, unknown> }[];
}

const fail = (code: number, message: string): Reply => json(200, { code, message, request_id: randomBytes(8).toString('hex'), data: {} });
const ok = (data: Record<string, unknown>): Reply => json(200, { code: 0, message: 'OK', request_id: randomBytes(8).toString('hex'), data });

export async function startTikTokBusinessFake(): Promise<FakeServer<TikTokBusinessState>> {
  const state: TikTokBusinessState = { codes: new Map(), tokens: new Set(), refreshTokens: new Set(), tokenRequests: [] };
  const router = new Router();

  const approve = (api: 'marketing' | 'accounts', idParam: string) => (ctx: RequestContext) => {
    const q = ctx.query;
    const redirectUri = q.get('redirect_uri');
    if (q.get(idParam) !== TIKTOK_CLIENT.appId || !redirectUri) return json(400, { message: `${idParam} and redirect_uri are required` });
    const code = randomBytes(10).toString('hex');
    state.codes.set(code, { redirectUri, api });
    const back = new URL(redirectUri);
    if (api === 'marketing') back.searchParams.set('auth_code', code);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state') ?? '');
    return redirect(back.toString());
  };
  router.get('/portal/auth', approve('marketing', 'app_id'));
  router.get('/v2/auth/authorize', approve('accounts', 'client_key'));

  const jsonBody = (ctx: RequestContext): Record<string, unknown> | null => {
    if (!(ctx.headers['content-type'] ?? '').startsWith('application/json')) return null;
    try {
      const body = JSON.parse(ctx.body) as unknown;
      return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };
  const issue = () => {
    const token = `tt_${randomBytes(12).toString('hex')}`;
    state.tokens.add(token);
    return token;
  };
  const accountsTokens = () => {
    const refresh = `ttr_${randomBytes(12).toString('hex')}`;
    state.refreshTokens.add(refresh);
    return {
      access_token: issue(),
      token_type: 'Bearer',
      expires_in: DAY_S,
      refresh_token: refresh,
      refresh_token_expires_in: 365 * DAY_S,
      open_id: 'open-1',
      scope: 'user.info.basic,comment.list',
    };
  };

  router.post('/open_api/v1.3/oauth2/access_token', (ctx) => {
    const body = jsonBody(ctx);
    if (!body) return fail(40002, 'the body must be JSON');
    state.tokenRequests.push({ path: ctx.path, body });
    if (body.app_id !== TIKTOK_CLIENT.appId || body.secret !== TIKTOK_CLIENT.secret) return fail(40001, 'app_id or secret is wrong');
    const code = state.codes.get(String(body.auth_code));
    if (code?.api !== 'marketing') return fail(40101, 'auth_code is invalid or expired');
    state.codes.delete(String(body.auth_code));
    return ok({ access_token: issue(), advertiser_ids: TIKTOK_ADVERTISER_IDS, scope: [1, 2, 4] });
  });
  router.post('/open_api/v1.3/tt_user/oauth2/token', (ctx) => {
    const body = jsonBody(ctx);
    if (!body) return fail(40002, 'the body must be JSON');
    state.tokenRequests.push({ path: ctx.path, body });
    if (body.client_id !== TIKTOK_CLIENT.appId || body.client_secret !== TIKTOK_CLIENT.secret) return fail(40001, 'client_id or client_secret is wrong');
    if (body.grant_type !== 'authorization_code') return fail(40002, 'grant_type must be authorization_code');
    const code = state.codes.get(String(body.auth_code));
    if (code?.api !== 'accounts' || code.redirectUri !== body.redirect_uri) return fail(40101, 'auth_code is invalid, or redirect_uri differs');
    state.codes.delete(String(body.auth_code));
    return ok(accountsTokens());
  });
  router.post('/open_api/v1.3/tt_user/oauth2/refresh_token', (ctx) => {
    const body = jsonBody(ctx);
    if (!body) return fail(40002, 'the body must be JSON');
    state.tokenRequests.push({ path: ctx.path, body });
    if (body.client_id !== TIKTOK_CLIENT.appId || body.client_secret !== TIKTOK_CLIENT.secret) return fail(40001, 'client_id or client_secret is wrong');
    if (body.grant_type !== 'refresh_token' || !state.refreshTokens.delete(String(body.refresh_token))) return fail(40104, 'refresh_token is invalid');
    return ok(accountsTokens());
  });
  router.on('*', '/open_api/v1.3/:a/:b', (ctx) =>
    state.tokens.has(ctx.headers['access-token'] ?? '') ? ok({ list: [] }) : fail(40105, 'Access token is incorrect or has been revoked'),
  );

  return startFakeServer(state, (ctx) => router.dispatch(ctx) ?? json(404, { code: 40400, message: 'not found' }));
}
