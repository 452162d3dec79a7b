/**
 * @module Fakes of providers whose connection needs values known only after authorization, each an
 * OAuth 2 server (oauth-provider.ts) on the provider's documented paths plus the calls that give those
 * values, as the providers' docs describe them:
 * - Atlassian (Jira, Confluence): `GET /oauth/token/accessible-resources` lists the sites (`id` is the cloudId).
 * - QuickBooks: the redirect carries `realmId`; the API is under `/v3/company/{realmId}`.
 * - Mailchimp: `GET /oauth2/metadata` with `Authorization: OAuth <token>` gives `dc`.
 * - DocuSign: `GET /oauth/userinfo` lists the accounts, the default one's `base_uri` is the API host.
 * - Basecamp: `GET /authorization.json` lists the accounts (product `bc3`); every API call needs a User-Agent naming the app.
 * - Harvest: `GET /api/v2/accounts` lists the accounts (product `harvest`); calls need `Harvest-Account-Id` and a User-Agent.
 * - Figma: tokens from `/v1/oauth/token`, refreshed at `/v1/oauth/refresh` only.
 * - Auth0: `/authorize` and `/oauth/token` on the tenant domain, the Management API under `/api/v2`.
 * - Instagram: the code exchange gives a short-lived (1 hour) token and `user_id`, no refresh token;
 *   `GET /access_token?grant_type=ig_exchange_token&client_secret&access_token` trades it for a
 *   long-lived one (60 days); `GET /refresh_access_token?grant_type=ig_refresh_token&access_token`
 *   renews an unexpired long-lived token at least 24 hours old. Errors as the Graph API's `OAuthException`.
 * - BigCommerce: `/oauth2/authorize` and `/oauth2/token` refuse a request without the store's
 *   `context` (`stores/{store_hash}`; authorize also `account_uuid`); the token never expires and comes
 *   with `context`, `account_uuid`, `user` and `owner`, no refresh token; the API is under
 *   `/stores/{store_hash}` and reads the token from `X-Auth-Token` only.
 */
import { randomBytes } from 'node:crypto';
import { OAuthProvider, type OAuthPaths } from './oauth-provider.js';
import { Router, bearerToken, json, parseBody, startFakeServer } from './server.js';
import type { FakeServer, Handler, RequestContext } from './server.js';

export type PostAuthProviderKind =
  'atlassian' | 'quickbooks' | 'mailchimp' | 'docusign' | 'basecamp' | 'harvest' | 'figma' | 'auth0' | 'instagram' | 'bigcommerce';

export const POST_AUTH_CLIENT = { clientId: 'pa-client', clientSecret: 'pa-secret' };
export const ATLASSIAN_CLOUD_ID = '1324a887-45db-1bf4-1e99-ef0ff456d421';
export const QUICKBOOKS_REALM_ID = '9130348651234567';
export const BASECAMP_ACCOUNT_ID = 999999999;
export const HARVEST_ACCOUNT_ID = 456789;
export const BIGCOMMERCE_STORE_HASH = 'g5cd38';
export const BIGCOMMERCE_ACCOUNT_UUID = '0d6c2a1e-4b7f-4e0a-9c3d-5f1e2b8a7c64';

export interface PostAuthProviderFake extends FakeServer<unknown> {
  provider: OAuthProvider;
  /** Requests the API part answered (not the OAuth endpoints). */
  apiCalls(path: string): { headers: Record<string, string>; query: Record<string, string> }[];
}

const PATHS: Record<PostAuthProviderKind, OAuthPaths> = {
  atlassian: { authorize: '/authorize', token: '/oauth/token' },
  quickbooks: { authorize: '/connect/oauth2', token: '/oauth2/v1/tokens/bearer' },
  mailchimp: { authorize: '/oauth2/authorize', token: '/oauth2/token' },
  docusign: { authorize: '/oauth/auth', token: '/oauth/token' },
  basecamp: { authorize: '/authorization/new', token: '/authorization/token' },
  harvest: { authorize: '/oauth2/authorize', token: '/api/v2/oauth2/token' },
  figma: { authorize: '/oauth', token: '/v1/oauth/token', refresh: '/v1/oauth/refresh' },
  auth0: { authorize: '/authorize', token: '/oauth/token' },
  instagram: { authorize: '/oauth/authorize', token: '/oauth/access_token' },
  bigcommerce: { authorize: '/oauth2/authorize', token: '/oauth2/token' },
};

const DAY_MS = 24 * 3600_000;
const INSTAGRAM_LONG_LIVED_S = 60 * 24 * 3600;

/** Instagram's long-lived tokens: when each was issued and expires (epoch ms of the fake's clock). */
export interface InstagramTokens {
  longLived: Map<string, { issuedAt: number; expiresAt: number }>;
  exchanged: string[];
  renewed: string[];
}

const unauthorized = () => json(401, { error: 'unauthorized' });

export async function startPostAuthProviderFake(
  kind: PostAuthProviderKind,
  opts: { now?: () => number } = {},
): Promise<PostAuthProviderFake & { instagram: InstagramTokens }> {
  const now = opts.now ?? Date.now;
  const instagram: InstagramTokens = { longLived: new Map(), exchanged: [], renewed: [] };
  const provider = new OAuthProvider({
    ...POST_AUTH_CLIENT,
    autoApprove: true,
    // Mailchimp's and Instagram's tokens come without a refresh token.
    ...(kind === 'mailchimp' || kind === 'instagram' || kind === 'bigcommerce' ? { issueRefreshTokens: false } : {}),
    // BigCommerce's tokens do not expire: ten years stands in.
    ...(kind === 'bigcommerce' ? { accessTokenTtlSeconds: 10 * 365 * 24 * 3600 } : {}),
    ...(kind === 'quickbooks' ? { redirectParams: { realmId: QUICKBOOKS_REALM_ID } } : {}),
  });
  const router = new Router();
  provider.mount(router, PATHS[kind]);
  const bearer =
    (handler: Handler): Handler =>
    (ctx) =>
      provider.verifyAccessToken(bearerToken(ctx.headers)) ? handler(ctx) : unauthorized();
  const named = (handler: Handler): Handler =>
    bearer((ctx) =>
      /\(.+\)/.test(ctx.headers['user-agent'] ?? '') ? handler(ctx) : json(400, { error: 'a User-Agent naming the app and a contact is required' }),
    );
  switch (kind) {
    case 'atlassian':
      router.get(
        '/oauth/token/accessible-resources',
        bearer(() =>
          json(200, [
            {
              id: ATLASSIAN_CLOUD_ID,
              url: 'https://acme.atlassian.net',
              name: 'acme',
              scopes: ['read:jira-work', 'read:confluence-content.all'],
              avatarUrl: 'https://site-admin-avatar-cdn.prod.public.atl-paas.net/avatars/240/rocket.png',
            },
          ]),
        ),
      );
      break;
    case 'mailchimp':
      router.get('/oauth2/metadata', (ctx) => {
        const token = /^OAuth (.+)$/.exec(ctx.headers.authorization ?? '')?.[1];
        if (!provider.verifyAccessToken(token)) return json(401, { error: 'invalid_token' });
        return json(200, {
          dc: 'us6',
          role: 'owner',
          accountname: 'Acme',
          user_id: 1234,
          login: { login_id: 1234 },
          login_url: 'https://login.mailchimp.com',
          api_endpoint: 'https://us6.api.mailchimp.com',
        });
      });
      break;
    case 'docusign':
      router.get(
        '/oauth/userinfo',
        bearer(() =>
          json(200, {
            sub: 'user-1',
            name: 'Ann',
            email: 'ann@example.com',
            accounts: [
              { account_id: 'acc-other', is_default: false, account_name: 'Other', base_uri: 'https://eu.docusign.net' },
              { account_id: 'acc-main', is_default: true, account_name: 'Main', base_uri: 'https://na3.docusign.net' },
            ],
          }),
        ),
      );
      break;
    case 'basecamp':
      router.get(
        '/authorization.json',
        named(() =>
          json(200, {
            expires_at: '2030-01-01T00:00:00Z',
            identity: { id: 9, first_name: 'Ann', last_name: 'Lee', email_address: 'ann@example.com' },
            accounts: [
              { product: 'hey', id: 111, name: 'HEY', href: 'https://app.hey.com', app_href: 'https://app.hey.com' },
              {
                product: 'bc3',
                id: BASECAMP_ACCOUNT_ID,
                name: 'Acme',
                href: `https://3.basecampapi.com/${BASECAMP_ACCOUNT_ID}`,
                app_href: `https://3.basecamp.com/${BASECAMP_ACCOUNT_ID}`,
              },
            ],
          }),
        ),
      );
      break;
    case 'harvest':
      router.get(
        '/api/v2/accounts',
        named(() =>
          json(200, {
            user: { id: 1, first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com' },
            accounts: [
              { id: 123, name: 'Acme', product: 'forecast' },
              { id: HARVEST_ACCOUNT_ID, name: 'Acme', product: 'harvest' },
            ],
          }),
        ),
      );
      break;
    case 'instagram': {
      const oauthException = (message: string) => json(400, { error: { message, type: 'OAuthException', code: 190 } });
      const issue = (list: string[]) => {
        const token = `IGAA${randomBytes(24).toString('hex')}`;
        instagram.longLived.set(token, { issuedAt: now(), expiresAt: now() + INSTAGRAM_LONG_LIVED_S * 1000 });
        list.push(token);
        return json(200, { access_token: token, token_type: 'bearer', expires_in: INSTAGRAM_LONG_LIVED_S });
      };
      router.get('/access_token', (ctx) => {
        if (ctx.query.get('grant_type') !== 'ig_exchange_token') return oauthException('grant_type must be ig_exchange_token');
        if (ctx.query.get('client_secret') !== POST_AUTH_CLIENT.clientSecret) return oauthException('Error validating client secret.');
        if (!provider.verifyAccessToken(ctx.query.get('access_token') ?? undefined)) return oauthException('Invalid OAuth access token.');
        return issue(instagram.exchanged);
      });
      router.get('/refresh_access_token', (ctx) => {
        if (ctx.query.get('grant_type') !== 'ig_refresh_token') return oauthException('grant_type must be ig_refresh_token');
        const held = instagram.longLived.get(ctx.query.get('access_token') ?? '');
        if (!held || held.expiresAt <= now()) return oauthException('Error validating access token: Session has expired.');
        if (now() - held.issuedAt < DAY_MS) return oauthException('A long-lived token can be refreshed once it is at least 24 hours old.');
        return issue(instagram.renewed);
      });
      break;
    }
    default:
  }
  const longLivedValid = (token: string | undefined) => {
    const held = token ? instagram.longLived.get(token) : undefined;
    return held !== undefined && held.expiresAt > now();
  };
  const api = (ctx: RequestContext) => {
    if (kind === 'bigcommerce') {
      if (!provider.verifyAccessToken(ctx.headers['x-auth-token'])) return unauthorized();
      if (!ctx.path.startsWith(`/stores/${BIGCOMMERCE_STORE_HASH}/`)) return json(404, { status: 404, title: 'store not found' });
      return json(200, { data: [], meta: {}, path: ctx.path });
    }
    const token = bearerToken(ctx.headers);
    if (!provider.verifyAccessToken(token) && !longLivedValid(token)) return unauthorized();
    if ((kind === 'basecamp' || kind === 'harvest') && !/\(.+\)/.test(ctx.headers['user-agent'] ?? '')) return json(400, { error: 'User-Agent required' });
    if (kind === 'harvest' && ctx.headers['harvest-account-id'] !== String(HARVEST_ACCOUNT_ID)) return json(403, { error: 'unknown account' });
    return json(200, { ok: true, path: ctx.path });
  };
  const handle = (ctx: RequestContext) => router.dispatch(ctx) ?? api(ctx);
  const fake = await startFakeServer<unknown>(provider.state, kind === 'bigcommerce' ? bigCommerce(handle) : handle);
  return {
    ...fake,
    provider,
    instagram,
    apiCalls: (path) => fake.requests.filter((r) => r.path === path).map((r) => ({ headers: r.headers, query: r.query })),
  };
}

const storeContext = `stores/${BIGCOMMERCE_STORE_HASH}`;

/** BigCommerce's OAuth endpoints around the generic ones: the store's context required, its token response's fields. */
function bigCommerce(handle: Handler): Handler {
  return async (ctx) => {
    if (ctx.path === PATHS.bigcommerce.authorize) {
      if (ctx.query.get('context') !== storeContext || ctx.query.get('account_uuid') !== BIGCOMMERCE_ACCOUNT_UUID)
        return json(400, { error: 'invalid_request', error_description: 'context and account_uuid must name the store and the app' });
      return handle(ctx);
    }
    if (ctx.path !== PATHS.bigcommerce.token || ctx.method !== 'POST') return handle(ctx);
    if (parseBody(ctx).context !== storeContext) return json(400, { error: 'invalid_request', error_description: 'context is required' });
    const reply = await handle(ctx);
    if (reply.status !== 200) return reply;
    const { access_token, scope } = JSON.parse(String(reply.body)) as { access_token: string; scope: string };
    const user = { id: 24654, username: 'merchant@example.com', email: 'merchant@example.com' };
    return json(200, { access_token, scope, user, owner: user, context: storeContext, account_uuid: BIGCOMMERCE_ACCOUNT_UUID });
  };
}
