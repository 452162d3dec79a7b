/**
 * @module features/connections/github-app — auth_modes APP (a GitHub App installation) and CUSTOM
 * (the same with user authorization during installation, Nango's `github-app-oauth`): the app
 * signs a JWT with its private key (RS256, `iss` the app id, `iat` 60 s in the past against clock
 * drift, `exp` under GitHub's 10-minute limit), and exchanges it at the definition's `token_url`
 * (`POST /app/installations/{installation_id}/access_tokens`) for an installation access token,
 * which lasts an hour and is fetched again before it expires (refresh.ts). As GitHub's "Generating
 * an installation access token for a GitHub App" and "Generating a JSON Web Token" pages describe.
 */
import type { ProviderHttpClient, RequestContext } from '../../lib/http/index.js';
import { InvalidSigningKey, signJwt } from '../../lib/jwt.js';
import { githubAppKey, type StoredCredentials, type StoredCustomCredentials } from './credentials.js';
import { exchangeCode, OAuthError } from './oauth.js';
import type { Endpoints } from './target.js';

/** The app's own JWT: GitHub refuses one whose `exp` is more than 10 minutes after its `iat`. */
export function appJwt(appId: string, privateKey: string, now: Date): string {
  const seconds = Math.floor(now.getTime() / 1000);
  // Nango keeps the key as its dashboard sends it, the .pem file base64-encoded: either form is taken.
  const pem = privateKey.includes('-----BEGIN') ? privateKey : Buffer.from(privateKey, 'base64').toString('utf8');
  try {
    return signJwt({ alg: 'RS256', header: { typ: 'JWT' }, payload: { iat: seconds - 60, exp: seconds + 9 * 60, iss: appId }, key: pem });
  } catch (err) {
    if (err instanceof InvalidSigningKey) throw new OAuthError('invalid_credentials', `the app's private key cannot sign: ${err.message}`);
    throw err;
  }
}

/** An installation access token for the connection's `installation_id`. */
export async function installationToken(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  config: Record<string, unknown>;
  now: Date;
  context: RequestContext;
  signal?: AbortSignal;
}): Promise<Extract<StoredCredentials, { type: 'APP' }>> {
  const { integration, provider } = opts.endpoints;
  const app = githubAppKey(integration.credentials);
  if (!app) throw new OAuthError('missing_credentials', `Integration ${integration.uniqueKey} has no GitHub App id and private key`);
  const url = opts.endpoints.tokenUrl('installation');
  if (!url) throw new OAuthError('invalid_auth_mode', `${provider.name} has no token URL`);
  const res = await opts.http.request({
    method: 'POST',
    baseUrl: url,
    path: '',
    headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
    auth: { type: 'bearer', token: appJwt(app.appId, app.privateKey, opts.now) },
    context: opts.context,
    ...(opts.signal && { signal: opts.signal }),
  });
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(res.body?.toString('utf8') ?? '') as Record<string, unknown>;
  } catch {
    // Reported below with the status.
  }
  if (res.status >= 400 || typeof body.token !== 'string') {
    const reason = typeof body.message === 'string' ? body.message : `HTTP ${res.status}`;
    throw new OAuthError('token_exchange_failed', `GitHub refused the installation token: ${reason}`);
  }
  const expiresAt = typeof body.expires_at === 'string' && !Number.isNaN(Date.parse(body.expires_at)) ? new Date(body.expires_at).toISOString() : undefined;
  const { token, ...raw } = body;
  return { type: 'APP', access_token: token, ...(expiresAt && { expires_at: expiresAt }), raw };
}

/**
 * CUSTOM: what GitHub's redirect to the app's callback URL brings after an installation with user
 * authorization: the user's code exchanged at the OAuth token URL (none on an installation update)
 * and the installation's token, as Nango's combined credentials (`app`, `user`).
 */
export async function appAndUserCredentials(opts: {
  http: ProviderHttpClient;
  endpoints: Endpoints;
  code: string | undefined;
  redirectUri: string;
  now: Date;
  context: RequestContext;
}): Promise<{ credentials: StoredCustomCredentials; raw: Record<string, unknown> }> {
  const client = opts.endpoints.integration.credentials;
  if (client?.type !== 'CUSTOM')
    throw new OAuthError('missing_credentials', `Integration ${opts.endpoints.integration.uniqueKey} has no GitHub App OAuth client`);
  const user = opts.code ? await exchangeCode({ ...opts, credentials: client, code: opts.code }) : null;
  const app = await installationToken({ ...opts, config: opts.endpoints.connectionConfig });
  let userToken: StoredCustomCredentials['user'] = null;
  if (user?.credentials.type === 'OAUTH2') {
    const { config_override: _, ...token } = user.credentials;
    userToken = token;
  }
  return {
    credentials: { type: 'CUSTOM', app: { ...app, access_token: app.access_token! }, user: userToken, raw: app.raw ?? {} },
    raw: user?.raw ?? {},
  };
}
