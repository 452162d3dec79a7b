/**
 * @module Generic OAuth 2 authorization server (authorization code + PKCE, refresh tokens), usable
 * stand-alone or mounted inside another fake so one origin serves both auth and API.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  BodyParseError,
  Router,
  basicCredentials,
  bearerToken,
  escapeHtml,
  html,
  json,
  parseBody,
  randomHex,
  randomToken,
  redirect,
  sleep,
  startFakeServer,
} from './server.js';
import type { Body, FakeServer, Handler, Reply, RequestContext } from './server.js';

export type TokenShape = 'standard' | 'slack';

export interface SlackIdentity {
  teamId: string;
  teamName: string;
  botUserId: string;
  appId: string;
  authedUserId: string;
}

export interface OAuthProviderOptions {
  clientId: string;
  clientSecret: string;
  /** Lifetime of access tokens; default 3600. Slack tokens without refresh never expire. */
  accessTokenTtlSeconds?: number;
  /** Default: true for 'standard', false for 'slack' (Slack only issues them with token rotation). */
  issueRefreshTokens?: boolean;
  /** Replace the refresh token on every refresh (old one stops working); default false. */
  rotateRefreshTokens?: boolean;
  tokenShape?: TokenShape;
  /** Redirect at once from the authorize endpoint instead of rendering the consent page. */
  autoApprove?: boolean;
  /** Allowed redirect URIs; any http(s) URL when omitted. */
  redirectUris?: string[];
  requirePkce?: boolean;
  /** Google behaviour: a refresh token is only issued when authorize had access_type=offline. */
  refreshTokenRequiresOfflineAccess?: boolean;
  /** Scope granted when the authorize request names none. */
  defaultScope?: string;
  slack?: Partial<SlackIdentity>;
  /** Query parameters added to the redirect with the code (QuickBooks' `realmId`). */
  redirectParams?: Record<string, string>;
}

export interface OAuthPaths {
  authorize: string;
  token: string;
  /** A separate refresh endpoint (Figma's): the token path then refuses refresh_token grants, and this one accepts only them. */
  refresh?: string;
  userinfo?: string;
}

export interface PendingAuthorization {
  id: string;
  redirectUri: string;
  state: string;
  scope: string;
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | 'plain' | null;
  offlineAccess: boolean;
}

export interface AuthorizationCode {
  code: string;
  redirectUri: string;
  scope: string;
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | 'plain' | null;
  offlineAccess: boolean;
  expiresAt: number;
  used: boolean;
}

export interface IssuedToken {
  accessToken: string;
  refreshToken: string | null;
  scope: string;
  issuedAt: number;
  /** Epoch ms; null = never expires. */
  expiresAt: number | null;
  revoked: boolean;
  grant: 'authorization_code' | 'refresh_token' | 'seed';
}

export interface RefreshTokenRecord {
  refreshToken: string;
  scope: string;
  issuedAt: number;
  revoked: boolean;
  uses: number;
}

export interface OAuthProviderState {
  pendingAuthorizations: Record<string, PendingAuthorization>;
  codes: AuthorizationCode[];
  tokens: IssuedToken[];
  refreshTokens: RefreshTokenRecord[];
  /** Successful refresh_token grants. */
  refreshCount: number;
}

export function createOAuthProviderState(): OAuthProviderState {
  return { pendingAuthorizations: {}, codes: [], tokens: [], refreshTokens: [], refreshCount: 0 };
}

const CODE_TTL_MS = 10 * 60 * 1000;

/** Thrown inside the token endpoint; rendered per token shape. */
class TokenError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly slackCode: string,
  ) {
    super(code);
  }
}

export class OAuthProvider {
  readonly state: OAuthProviderState;
  private readonly shape: TokenShape;
  private readonly ttlSeconds: number;
  private readonly refreshEnabled: boolean;
  private readonly slack: SlackIdentity;

  constructor(
    private readonly options: OAuthProviderOptions,
    state: OAuthProviderState = createOAuthProviderState(),
  ) {
    this.state = state;
    this.shape = options.tokenShape ?? 'standard';
    this.ttlSeconds = options.accessTokenTtlSeconds ?? 3600;
    this.refreshEnabled = options.issueRefreshTokens ?? this.shape === 'standard';
    this.slack = {
      teamId: 'T0FAKETEAM',
      teamName: 'Fake Team',
      botUserId: 'U0FAKEBOT1',
      appId: 'A0FAKEAPP1',
      authedUserId: 'U0FAKEUSR1',
      ...options.slack,
    };
  }

  /** A gate every token response waits on (a token endpoint that hangs), and a trickled body. */
  private tokenHold: Promise<void> | null = null;
  private tokenTrickle: { everyMs: number; chunks: number } | null = null;

  mount(router: Router, paths: OAuthPaths): void {
    router.get(paths.authorize, (ctx) => this.authorize(ctx, paths.authorize));
    router.get(`${paths.authorize}/decision`, (ctx) => this.decide(ctx));
    const tokenRoute = (grant: 'authorization_code' | 'refresh_token' | undefined) => async (ctx: RequestContext) => {
      if (this.tokenHold) await this.tokenHold;
      const reply = this.token(ctx, grant);
      return this.tokenTrickle ? trickled(reply, this.tokenTrickle, ctx.signal) : reply;
    };
    router.post(paths.token, tokenRoute(paths.refresh ? 'authorization_code' : undefined));
    if (paths.refresh) router.post(paths.refresh, tokenRoute('refresh_token'));
    if (paths.userinfo) router.get(paths.userinfo, (ctx) => this.userinfo(ctx));
  }

  /** The valid (known, unexpired, unrevoked) token record for an access token. */
  verifyAccessToken(accessToken: string | undefined): IssuedToken | undefined {
    if (!accessToken) return undefined;
    const token = this.state.tokens.find((t) => t.accessToken === accessToken);
    if (!token || token.revoked) return undefined;
    if (token.expiresAt !== null && token.expiresAt <= Date.now()) return undefined;
    return token;
  }

  /** Registers a pre-shared access token (e.g. the static token a fake is started with). */
  seedToken(accessToken: string, options: { scope?: string; expiresInSeconds?: number } = {}): IssuedToken {
    const now = Date.now();
    const token: IssuedToken = {
      accessToken,
      refreshToken: null,
      scope: options.scope ?? this.options.defaultScope ?? '',
      issuedAt: now,
      expiresAt: options.expiresInSeconds === undefined ? null : now + options.expiresInSeconds * 1000,
      revoked: false,
      grant: 'seed',
    };
    this.state.tokens.push(token);
    return token;
  }

  /** Makes one access token (or all when omitted) expired as of now. */
  expireToken(accessToken?: string): void {
    const past = Date.now() - 1;
    for (const token of this.state.tokens) {
      if (accessToken === undefined || token.accessToken === accessToken) token.expiresAt = past;
    }
  }

  /** Later token responses wait until the returned function is called (the token endpoint hangs). */
  holdTokenResponses(): () => void {
    let release!: () => void;
    this.tokenHold = new Promise((resolve) => (release = resolve));
    return () => {
      this.tokenHold = null;
      release();
    };
  }

  /**
   * Later token responses send their headers at once, then one space every `everyMs`, `chunks` times,
   * before the JSON (whitespace JSON allows): a token endpoint that trickles. null: answer at once again.
   */
  trickleTokenResponses(trickle: { everyMs: number; chunks: number } | null): void {
    this.tokenTrickle = trickle;
  }

  /** Revokes one refresh token (or all when omitted), forcing re-authorization. */
  revokeRefreshToken(refreshToken?: string): void {
    for (const record of this.state.refreshTokens) {
      if (refreshToken === undefined || record.refreshToken === refreshToken) record.revoked = true;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Authorize

  private authorize(ctx: RequestContext, authorizePath: string): Reply {
    const q = ctx.query;
    if (q.get('client_id') !== this.options.clientId) return errorPage('Unknown client_id.');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!this.redirectAllowed(redirectUri)) return errorPage('Invalid or unregistered redirect_uri.');

    const state = q.get('state') ?? '';
    const fail = (error: string, description: string): Reply => redirect(withParams(redirectUri, { error, error_description: description, state }));
    const responseType = q.get('response_type');
    // Slack's v2 authorize does not require response_type; standard servers do.
    if (responseType !== 'code' && !(this.shape === 'slack' && responseType === null)) {
      return fail('unsupported_response_type', 'response_type must be code');
    }
    if (!state) return fail('invalid_request', 'state is required');

    const challenge = q.get('code_challenge');
    const method = challenge ? (q.get('code_challenge_method') ?? 'plain') : null;
    if (method !== null && method !== 'S256' && method !== 'plain') {
      return fail('invalid_request', 'unsupported code_challenge_method');
    }
    if (!challenge && this.options.requirePkce) return fail('invalid_request', 'code_challenge is required');

    const pending: PendingAuthorization = {
      id: randomToken(12),
      redirectUri,
      state,
      scope: q.get('scope') ?? this.options.defaultScope ?? '',
      codeChallenge: challenge,
      codeChallengeMethod: method,
      offlineAccess: q.get('access_type') === 'offline',
    };
    if (q.get('auto') === '1' || this.options.autoApprove) return this.approve(pending);
    this.state.pendingAuthorizations[pending.id] = pending;
    return consentPage(`${authorizePath}/decision`, this.options.clientId, pending);
  }

  private decide(ctx: RequestContext): Reply {
    const id = ctx.query.get('request') ?? '';
    const pending = this.state.pendingAuthorizations[id];
    if (!pending) return errorPage('Unknown or already answered authorization request.');
    delete this.state.pendingAuthorizations[id];
    if (ctx.query.get('decision') === 'deny') {
      return redirect(withParams(pending.redirectUri, { error: 'access_denied', state: pending.state }));
    }
    return this.approve(pending);
  }

  private approve(pending: PendingAuthorization): Reply {
    const code: AuthorizationCode = {
      code: randomToken(18),
      redirectUri: pending.redirectUri,
      scope: pending.scope,
      codeChallenge: pending.codeChallenge,
      codeChallengeMethod: pending.codeChallengeMethod,
      offlineAccess: pending.offlineAccess,
      expiresAt: Date.now() + CODE_TTL_MS,
      used: false,
    };
    this.state.codes.push(code);
    return redirect(withParams(pending.redirectUri, { code: code.code, state: pending.state, ...this.options.redirectParams }));
  }

  private redirectAllowed(uri: string): boolean {
    if (this.options.redirectUris) return this.options.redirectUris.includes(uri);
    try {
      const protocol = new URL(uri).protocol;
      return protocol === 'http:' || protocol === 'https:';
    } catch {
      return false;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Token

  private token(ctx: RequestContext, only?: 'authorization_code' | 'refresh_token'): Reply {
    try {
      const body = parseBody(ctx);
      this.authenticateClient(ctx, body);
      const grant = stringField(body, 'grant_type');
      if (only && grant !== only) throw new TokenError(400, 'unsupported_grant_type', 'invalid_grant_type');
      // Slack's oauth.v2.access defaults to the code grant when grant_type is omitted.
      if (grant === 'authorization_code' || (grant === undefined && this.shape === 'slack')) {
        return this.tokenResponse(this.exchangeCode(body), 'authorization_code');
      }
      if (grant === 'refresh_token') return this.tokenResponse(this.refresh(body), 'refresh_token');
      throw new TokenError(400, 'unsupported_grant_type', 'invalid_grant_type');
    } catch (err) {
      if (err instanceof BodyParseError) return this.tokenError(new TokenError(400, 'invalid_request', 'invalid_arguments'));
      if (err instanceof TokenError) return this.tokenError(err);
      throw err;
    }
  }

  private authenticateClient(ctx: RequestContext, body: Body): void {
    const basic = basicCredentials(ctx.headers);
    // RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64.
    const clientId = basic ? decodeURIComponent(basic.user) : stringField(body, 'client_id');
    const secret = basic ? decodeURIComponent(basic.pass) : stringField(body, 'client_secret');
    if (clientId !== this.options.clientId) throw new TokenError(401, 'invalid_client', 'invalid_client_id');
    if (secret === undefined || !safeEqual(secret, this.options.clientSecret)) {
      throw new TokenError(401, 'invalid_client', 'bad_client_secret');
    }
  }

  private exchangeCode(body: Body): { scope: string; refreshToken: string | null } {
    const code = this.state.codes.find((c) => c.code === stringField(body, 'code'));
    if (!code || code.used || code.expiresAt <= Date.now()) {
      throw new TokenError(400, 'invalid_grant', 'invalid_code');
    }
    code.used = true;
    const redirectUri = stringField(body, 'redirect_uri');
    if (redirectUri !== undefined && redirectUri !== code.redirectUri) {
      throw new TokenError(400, 'invalid_grant', 'bad_redirect_uri');
    }
    if (code.codeChallenge !== null) {
      const verifier = stringField(body, 'code_verifier');
      if (!verifier || pkceChallenge(verifier, code.codeChallengeMethod) !== code.codeChallenge) {
        throw new TokenError(400, 'invalid_grant', 'invalid_code_verifier');
      }
    }
    const wantsRefresh = this.refreshEnabled && (code.offlineAccess || !this.options.refreshTokenRequiresOfflineAccess);
    return { scope: code.scope, refreshToken: wantsRefresh ? this.newRefreshToken(code.scope) : null };
  }

  private refresh(body: Body): { scope: string; refreshToken: string | null } {
    const presented = stringField(body, 'refresh_token');
    const record = this.state.refreshTokens.find((r) => r.refreshToken === presented);
    if (!record || record.revoked) throw new TokenError(400, 'invalid_grant', 'invalid_refresh_token');
    record.uses += 1;
    this.state.refreshCount += 1;
    if (!this.options.rotateRefreshTokens) return { scope: record.scope, refreshToken: record.refreshToken };
    record.revoked = true;
    return { scope: record.scope, refreshToken: this.newRefreshToken(record.scope) };
  }

  private newRefreshToken(scope: string): string {
    const refreshToken = this.shape === 'slack' ? `xoxe-1-${randomToken(30)}` : `rt_${randomToken(30)}`;
    this.state.refreshTokens.push({ refreshToken, scope, issuedAt: Date.now(), revoked: false, uses: 0 });
    return refreshToken;
  }

  private tokenResponse(grant: { scope: string; refreshToken: string | null }, kind: IssuedToken['grant']): Reply {
    const expires = this.shape === 'standard' || this.refreshEnabled;
    const now = Date.now();
    const token: IssuedToken = {
      accessToken: this.newAccessToken(),
      refreshToken: grant.refreshToken,
      scope: grant.scope,
      issuedAt: now,
      expiresAt: expires ? now + this.ttlSeconds * 1000 : null,
      revoked: false,
      grant: kind,
    };
    this.state.tokens.push(token);
    const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
    return json(200, this.shape === 'slack' ? this.slackBody(token) : this.standardBody(token), noStore);
  }

  private standardBody(token: IssuedToken): Record<string, unknown> {
    // Google omits refresh_token when it is not re-issued; mirror that instead of sending null.
    return {
      access_token: token.accessToken,
      token_type: 'bearer',
      expires_in: this.ttlSeconds,
      ...(token.refreshToken ? { refresh_token: token.refreshToken } : {}),
      scope: token.scope,
    };
  }

  private slackBody(token: IssuedToken): Record<string, unknown> {
    return {
      ok: true,
      access_token: token.accessToken,
      token_type: 'bot',
      scope: token.scope,
      bot_user_id: this.slack.botUserId,
      app_id: this.slack.appId,
      team: { id: this.slack.teamId, name: this.slack.teamName },
      enterprise: null,
      authed_user: { id: this.slack.authedUserId },
      is_enterprise_install: false,
      ...(token.refreshToken ? { refresh_token: token.refreshToken, expires_in: this.ttlSeconds } : {}),
    };
  }

  private newAccessToken(): string {
    if (this.shape === 'slack') return `xoxb-${digits(12)}-${digits(13)}-${randomToken(18)}`;
    return `at_${randomToken(30)}`;
  }

  private tokenError(err: TokenError): Reply {
    if (this.shape === 'slack') return json(200, { ok: false, error: err.slackCode });
    const headers: Record<string, string> = err.status === 401 ? { 'www-authenticate': 'Basic realm="oauth"' } : {};
    return json(err.status, { error: err.code, error_description: describe(err.code) }, headers);
  }

  // ------------------------------------------------------------------------------------------
  // Userinfo

  private userinfo(ctx: RequestContext): Reply {
    const token = this.verifyAccessToken(bearerToken(ctx.headers));
    if (!token) {
      return json(
        401,
        { error: 'invalid_token', error_description: 'The access token is missing, unknown or expired.' },
        { 'www-authenticate': 'Bearer error="invalid_token"' },
      );
    }
    return json(200, {
      sub: '100000000000000000001',
      email: 'fake.user@example.com',
      email_verified: true,
      name: 'Fake User',
      scope: token.scope,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** The reply with its body sent slowly: spaces first, then the body; stops when the client goes away. */
function trickled(reply: Reply, trickle: { everyMs: number; chunks: number }, signal: AbortSignal): Reply {
  const body = typeof reply.body === 'string' || Buffer.isBuffer(reply.body) ? reply.body : '';
  async function* chunks(): AsyncGenerator<string | Buffer> {
    for (let i = 0; i < trickle.chunks; i++) {
      yield ' ';
      await sleep(trickle.everyMs, signal);
      if (signal.aborted) return;
    }
    yield body;
  }
  return { status: reply.status, headers: reply.headers ?? {}, body: Readable.from(chunks()) };
}

export function pkceChallenge(verifier: string, method: 'S256' | 'plain' | null): string {
  if (method === 'S256') return createHash('sha256').update(verifier).digest('base64url');
  return verifier;
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function stringField(body: Body, key: string): string | undefined {
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
}

function withParams(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) if (value !== '') url.searchParams.set(key, value);
  return url.toString();
}

function digits(count: number): string {
  return BigInt(`0x${randomHex(8)}`)
    .toString()
    .padStart(count, '0')
    .slice(0, count);
}

function describe(code: string): string {
  switch (code) {
    case 'invalid_client':
      return 'Client authentication failed.';
    case 'invalid_grant':
      return 'The grant is invalid, expired, already used or does not match.';
    case 'unsupported_grant_type':
      return 'grant_type must be authorization_code or refresh_token.';
    default:
      return 'The request is malformed.';
  }
}

function errorPage(message: string): Reply {
  return html(400, `<!doctype html><html><body><h1>OAuth error</h1><p id="error">${escapeHtml(message)}</p></body></html>`);
}

function consentPage(action: string, clientId: string, pending: PendingAuthorization): Reply {
  const scope = pending.scope ? escapeHtml(pending.scope) : '(none)';
  return html(
    200,
    `<!doctype html>
<html>
  <head><meta charset="utf-8"><title>Authorize ${escapeHtml(clientId)}</title></head>
  <body>
    <h1>Authorize access</h1>
    <p>Application <code>${escapeHtml(clientId)}</code> requests scope <code id="scope">${scope}</code>.</p>
    <form method="get" action="${escapeHtml(action)}">
      <input type="hidden" name="request" value="${escapeHtml(pending.id)}">
      <button id="approve" type="submit" name="decision" value="approve">Approve</button>
      <button id="deny" type="submit" name="decision" value="deny">Deny</button>
    </form>
  </body>
</html>`,
  );
}

// ---------------------------------------------------------------------------------------------
// Stand-alone fake

export interface OAuthProviderFake extends FakeServer<OAuthProviderState> {
  provider: OAuthProvider;
  expireToken(accessToken?: string): void;
  revokeRefreshToken(refreshToken?: string): void;
}

/** Endpoints: GET /oauth/authorize, POST /oauth/token, GET /userinfo. */
export async function startOAuthProviderFake(options: OAuthProviderOptions): Promise<OAuthProviderFake> {
  const provider = new OAuthProvider(options);
  const router = new Router();
  provider.mount(router, { authorize: '/oauth/authorize', token: '/oauth/token', userinfo: '/userinfo' });
  const notFound: Handler = () => json(404, { error: 'not_found' });
  const fake = await startFakeServer(provider.state, (ctx) => router.dispatch(ctx) ?? notFound(ctx));
  return {
    ...fake,
    provider,
    expireToken: (accessToken) => provider.expireToken(accessToken),
    revokeRefreshToken: (refreshToken) => provider.revokeRefreshToken(refreshToken),
  };
}
