/**
 * @module Fakes of providers whose requests carry a signature rather than a stored token, each
 * checking it as the provider's docs say:
 * - a JWT API (Ghost Admin API, App Store Connect, Snowflake's SQL API): `Authorization: <scheme> <jwt>`, the signature
 *   verified with the secret or the public key, the header and claims the provider asks for, `exp`
 *   in the future and no further than the provider allows;
 * - GitHub for a GitHub App: the installation page redirecting to the app's setup URL with
 *   `installation_id`, `setup_action` and `state` (with user authorization during installation: to
 *   its callback URL, with a `code` too, exchanged at `POST /login/oauth/access_token` for a user
 *   token that lasts 8 hours and a refresh token); `POST /app/installations/{id}/access_tokens`
 *   taking the app's RS256 JWT (`iss` the app id, at most 10 minutes long) and issuing tokens that
 *   expire after an hour; the REST API accepting only unexpired installation tokens;
 * - an AWS endpoint: every request's Signature Version 4 recomputed from what arrived (signed
 *   headers, query, body hash) with the secret of the access key it names, the date within 15 minutes.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { canonicalRequest, signingKey, stringToSign } from '../../lib/http/aws-sigv4.js';
import { Router, bearerToken, json, parseBody, redirect, startFakeServer } from './server.js';
import type { FakeServer, RequestContext } from './server.js';

const unauthorized = (message: string) => json(401, { message });

/** The header and payload of a compact JWT whose signature `key` verifies; a reason otherwise. */
export function verifiedJwt(
  token: string,
  alg: string,
  key: KeyObject | Buffer,
): { header: Record<string, unknown>; payload: Record<string, unknown> } | string {
  const parts = token.split('.');
  if (parts.length !== 3) return 'not a compact JWT';
  const [h, p, s] = parts as [string, string, string];
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
    payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'unreadable header or payload';
  }
  if (header.alg !== alg) return `alg must be ${alg}`;
  const input = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s, 'base64url');
  const hash = `sha${alg.slice(2)}`;
  let ok: boolean;
  if (alg.startsWith('HS')) {
    const expected = createHmac(hash, key as Buffer)
      .update(input)
      .digest();
    ok = expected.length === signature.length && timingSafeEqual(expected, signature);
  } else {
    ok = verify(hash, input, alg.startsWith('ES') ? { key: key as KeyObject, dsaEncoding: 'ieee-p1363' } : (key as KeyObject), signature);
  }
  return ok ? { header, payload } : 'bad signature';
}

export interface JwtApiFakeOptions {
  /** `Ghost`, `Bearer`. */
  scheme: string;
  alg: string;
  /** The HMAC secret's bytes, or the public key. */
  key: KeyObject | Buffer;
  /** Header fields and claims the token must carry. */
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  /** The longest `exp - iat` the provider accepts. */
  maxLifetimeSeconds: number;
  /** Request headers every call must carry besides the token (Snowflake's token type). */
  requestHeaders?: Record<string, string>;
  now?: () => number;
}

export type JwtApiFake = FakeServer<{ accepted: string[]; refused: string[] }>;

/** Any request answered 200 when its JWT holds. */
export async function startJwtApiFake(opts: JwtApiFakeOptions): Promise<JwtApiFake> {
  const state = { accepted: [] as string[], refused: [] as string[] };
  const now = () => Math.floor((opts.now ?? Date.now)() / 1000);
  return startFakeServer(state, (ctx) => {
    const [scheme, token] = (ctx.headers.authorization ?? '').split(' ');
    const refuse = (why: string) => {
      state.refused.push(why);
      return unauthorized(why);
    };
    if (scheme !== opts.scheme || !token) return refuse(`Authorization must be "${opts.scheme} <token>"`);
    for (const [k, v] of Object.entries(opts.requestHeaders ?? {})) if (ctx.headers[k] !== v) return refuse(`header ${k} must be ${v}`);
    const jwt = verifiedJwt(token, opts.alg, opts.key);
    if (typeof jwt === 'string') return refuse(jwt);
    for (const [k, v] of Object.entries(opts.header ?? {})) if (jwt.header[k] !== v) return refuse(`header ${k} must be ${String(v)}`);
    for (const [k, v] of Object.entries(opts.claims ?? {}))
      if (JSON.stringify(jwt.payload[k]) !== JSON.stringify(v)) return refuse(`claim ${k} must be ${JSON.stringify(v)}`);
    const { iat, exp } = jwt.payload as { iat?: number; exp?: number };
    if (typeof iat !== 'number' || typeof exp !== 'number') return refuse('iat and exp are required');
    if (exp <= now()) return refuse('the token expired');
    if (iat > now() + 60) return refuse('iat is in the future');
    if (exp - iat > opts.maxLifetimeSeconds) return refuse(`the token may last at most ${opts.maxLifetimeSeconds} s`);
    state.accepted.push(token);
    return json(200, { ok: true, path: ctx.path });
  });
}

export interface GitHubAppFakeState {
  /** Installation tokens and when they expire (epoch ms). */
  tokens: Map<string, number>;
  /** App JWTs refused, with the reason. */
  refused: string[];
  issued: { installationId: string; token: string; expiresAt: number }[];
  /** User tokens issued for a code or a refresh token (auth mode CUSTOM). */
  userTokens: { grant: string; token: string; refreshToken: string }[];
}

export interface GitHubAppFake extends FakeServer<GitHubAppFakeState> {
  /** Where the installation page sends the browser (the app's Setup URL). */
  setSetupUrl(url: string): void;
}

export const GITHUB_INSTALLATION_ID = '38631545';

/**
 * `oauth`: the app requests user authorization during installation (GitHub's registration option):
 * the installation page sends the browser to its callback URL (`setSetupUrl`) with a code as well.
 */
export async function startGitHubAppFake(opts: {
  appId: string;
  publicKey: KeyObject;
  slug: string;
  now?: () => number;
  oauth?: { clientId: string; clientSecret: string };
}): Promise<GitHubAppFake> {
  const state: GitHubAppFakeState = { tokens: new Map(), refused: [], issued: [], userTokens: [] };
  const now = () => (opts.now ?? Date.now)();
  let setupUrl = '';
  const codes = new Set<string>();
  const refreshTokens = new Set<string>();
  const router = new Router();
  router.get(`/apps/${opts.slug}/installations/new`, (ctx) => {
    const target = new URL(setupUrl);
    if (opts.oauth) {
      const code = randomBytes(10).toString('hex');
      codes.add(code);
      target.searchParams.set('code', code);
    }
    target.searchParams.set('installation_id', GITHUB_INSTALLATION_ID);
    target.searchParams.set('setup_action', 'install');
    const stateParam = ctx.query.get('state');
    if (stateParam) target.searchParams.set('state', stateParam);
    return redirect(target.toString());
  });
  // GitHub's errors here are 200s with an `error` field, as its user access token page says.
  router.post('/login/oauth/access_token', (ctx) => {
    const p = parseBody(ctx) as Record<string, string>;
    if (!opts.oauth || p.client_id !== opts.oauth.clientId || p.client_secret !== opts.oauth.clientSecret)
      return json(200, { error: 'incorrect_client_credentials' });
    const grant = p.grant_type === 'refresh_token' ? 'refresh_token' : 'authorization_code';
    const spent = grant === 'refresh_token' ? refreshTokens.delete(p.refresh_token ?? '') : codes.delete(p.code ?? '');
    if (!spent) return json(200, { error: grant === 'refresh_token' ? 'bad_refresh_token' : 'bad_verification_code' });
    const token = `ghu_${randomBytes(18).toString('hex')}`;
    const refreshToken = `ghr_${randomBytes(30).toString('hex')}`;
    refreshTokens.add(refreshToken);
    state.userTokens.push({ grant, token, refreshToken });
    return json(200, {
      access_token: token,
      expires_in: 28800,
      refresh_token: refreshToken,
      refresh_token_expires_in: 15811200,
      scope: '',
      token_type: 'bearer',
    });
  });
  router.post('/app/installations/:id/access_tokens', (ctx) => {
    const refuse = (why: string) => {
      state.refused.push(why);
      return unauthorized(why);
    };
    if (ctx.params.id !== GITHUB_INSTALLATION_ID) return json(404, { message: 'Not Found' });
    const jwt = verifiedJwt(bearerToken(ctx.headers) ?? '', 'RS256', opts.publicKey);
    if (typeof jwt === 'string') return refuse(`A JSON web token could not be decoded: ${jwt}`);
    const { iat, exp, iss } = jwt.payload as { iat?: number; exp?: number; iss?: unknown };
    const seconds = Math.floor(now() / 1000);
    if (String(iss) !== opts.appId) return refuse("'Issuer' claim ('iss') must be the app id");
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp <= seconds || iat > seconds + 60) return refuse("'Expiration time' claim ('exp') is invalid");
    if (exp - iat > 600) return refuse("'Expiration time' claim ('exp') is too far in the future");
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    const expiresAt = now() + 3600_000;
    state.tokens.set(token, expiresAt);
    state.issued.push({ installationId: ctx.params.id, token, expiresAt });
    return json(201, {
      token,
      expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      permissions: { contents: 'read' },
      repository_selection: 'all',
    });
  });
  router.on('*', '/installation/repositories', (ctx) => {
    const token = /^(?:Bearer|token) (.+)$/.exec(ctx.headers.authorization ?? '')?.[1];
    const expiresAt = token ? state.tokens.get(token) : undefined;
    if (expiresAt === undefined || expiresAt <= now()) return unauthorized('Bad credentials');
    return json(200, { total_count: 1, repositories: [{ id: 1, full_name: 'acme/app' }] });
  });
  const fake = await startFakeServer(state, (ctx) => router.dispatch(ctx) ?? json(404, { message: 'Not Found' }));
  return Object.assign(fake, { setSetupUrl: (url: string) => void (setupUrl = url) });
}

export interface AwsFakeState {
  /** Each request's outcome: `ok`, or why its signature was refused. */
  checks: string[];
}

/** An AWS endpoint (any path) that verifies Signature Version 4 as AWS does. */
export async function startAwsFake(opts: {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
  service: string;
}): Promise<FakeServer<AwsFakeState>> {
  const state: AwsFakeState = { checks: [] };
  return startFakeServer(state, (ctx: RequestContext) => {
    const why = awsSignatureProblem(ctx, opts);
    state.checks.push(why ?? 'ok');
    if (why) return json(403, { message: why, __type: 'SignatureDoesNotMatch' });
    return json(200, { ok: true, path: ctx.path });
  });
}

function awsSignatureProblem(ctx: RequestContext, opts: Parameters<typeof startAwsFake>[0]): string | null {
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
    ctx.headers.authorization ?? '',
  );
  if (!m) return 'missing or malformed Authorization';
  const [, keyId, date, region, service, signed, signature] = m as unknown as string[];
  if (keyId !== opts.accessKeyId) return 'The security token included in the request is invalid';
  if (region !== opts.region || service !== opts.service) return `credential scope must be ${opts.region}/${opts.service}`;
  const amzDate = ctx.headers['x-amz-date'] ?? '';
  const at = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (!amzDate.startsWith(date!) || Number.isNaN(at) || Math.abs(at - Date.now()) > 15 * 60_000) return 'Signature expired or x-amz-date invalid';
  const names = signed!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return 'host and x-amz-date must be signed';
  if (opts.sessionToken && (ctx.headers['x-amz-security-token'] !== opts.sessionToken || !names.includes('x-amz-security-token')))
    return 'the session token must be sent and signed';
  const bodyHash = createHash('sha256').update(ctx.rawBody).digest('hex');
  const claimed = ctx.headers['x-amz-content-sha256'];
  if (claimed !== undefined && claimed !== bodyHash && claimed !== 'UNSIGNED-PAYLOAD') return 'x-amz-content-sha256 does not match the body';
  const url = new URL(`http://${ctx.headers.host}${ctx.path}${ctx.query.size ? `?${ctx.query.toString()}` : ''}`);
  const headers = Object.fromEntries(names.filter((n) => n !== 'host').map((n) => [n, ctx.headers[n] ?? '']));
  const { canonical } = canonicalRequest({ method: ctx.method, url, headers, payloadHash: claimed ?? bodyHash }, service!);
  const expected = createHmac('sha256', signingKey(opts.secretAccessKey, date!, region!, service!))
    .update(stringToSign(canonical, amzDate, `${date}/${region}/${service}/aws4_request`))
    .digest('hex');
  return expected === signature ? null : 'The request signature we calculated does not match the signature you provided';
}
