/**
 * @module A generic third party driven by a provider definition (features/providers/definition.ts):
 * whatever the definition says the platform must do, the fake checks. OAuth 2 authorize, token and
 * refresh endpoints (PKCE unless `disable_pkce`, `authorization_params`, `token_params`,
 * `refresh_params` with their placeholders filled, client authentication by `token_request_auth_method`, body by `body_format`,
 * the grant types), a client-credentials token endpoint with expiring tokens, an API under `/api`
 * that accepts only the credentials placed as the definition's `proxy.headers`/`proxy.query`
 * templates say (else the auth mode's default), a verification endpoint, 429s carrying the
 * definition's `proxy.retry` header, and a listing paged as `proxy.paginate` describes.
 *
 * TWO_STEP: a token request at /auth/token checked against the definition's `token_params`,
 * `token_headers`, `body_format` and `token_request_method` (GET and PUT: the parameters in the
 * query), answered as `token_response` says; credentials in a `${base64(...)}` header are decoded.
 *
 * OAUTH1: POST /oauth1/request_token, GET /oauth1/authorize, POST /oauth1/access_token (RFC 5849
 * section 2, every request's signature checked by oauth1-check.ts, `request_params`,
 * `authorization_params` and `token_params` expected where they belong); API calls signed with the
 * access token. TBA: API calls signed HMAC-SHA256 with the token id and secret, realm the account.
 * SIGNATURE: API calls carrying a fresh WSSE UsernameToken made from the username and password.
 *
 * Paths: GET /oauth/authorize, POST /oauth/token, POST /oauth/refresh, /auth/token, GET /api/me, GET /api/items,
 * GET /api/limited. Start it, then `define()` the definition under test (its URLs point here).
 */
import { createHash, randomBytes } from 'node:crypto';
import { tokenUrlOf, type ProviderDefinitionInput } from '../../features/providers/definition.js';
import { checkOAuth1 } from './oauth1-check.js';
import { json, redirect, startFakeServer, type FakeServer, type Reply, type RequestContext } from './server.js';

export interface GenericProviderState {
  definition: ProviderDefinitionInput | null;
  /** Access tokens in force (OAuth 2 and client credentials), with their expiry (ms). */
  tokens: Map<string, number>;
  refreshTokens: Set<string>;
  codes: Map<string, { redirectUri: string; challenge: string | null }>;
  /** TWO_STEP token requests, as received (method, parsed params, headers). */
  twoStepRequests: { method: string; params: Record<string, string>; headers: Record<string, string | undefined> }[];
  /** Token requests by grant type, as received (parsed body, and whether the client authenticated by Basic). */
  tokenRequests: { path: string; grantType: string; body: Record<string, string>; basicAuth: boolean; contentType: string }[];
  /** OAUTH1: request tokens issued (secret, callback, verifier once authorized) and access tokens (secret). */
  requestTokens: Map<string, { secret: string; callback: string; verifier?: string }>;
  accessTokens: Map<string, string>;
  /** OAuth 1.0a nonces seen (timestamp:nonce): each is accepted once. */
  nonces: Set<string>;
  /** How many more GET /api/limited answer 429. */
  limitedRemaining: number;
  /** The problems the fake found with a request (empty when the platform did everything as defined). */
  problems: string[];
}

export interface GenericProviderOptions {
  clientId: string;
  clientSecret: string;
  /** For API_KEY definitions. */
  apiKey?: string;
  /** For BASIC definitions. */
  username?: string;
  password?: string;
  /** Lifetime of access tokens; default 3600. */
  accessTokenTtlSeconds?: number;
  /** Items of GET /api/items; default 7. */
  items?: number;
  /** Fields returned by the token endpoint besides the tokens (kept by token_response_metadata). */
  tokenExtras?: Record<string, unknown>;
  /** For TWO_STEP definitions: the fields the end user must enter (the definition's `${credentials.x}`). */
  fields?: Record<string, string>;
  /** For TBA definitions: the token the end user created, and the realm (account id) requests must name. */
  tba?: { tokenId: string; tokenSecret: string; realm: string };
}

export interface GenericProviderFake extends FakeServer<GenericProviderState> {
  define(def: ProviderDefinitionInput): void;
  /** The next `times` GET /api/limited answer 429 with the definition's retry header asking `waitSeconds`. */
  rateLimit(times: number, waitSeconds: number): void;
}

export async function startGenericProviderFake(opts: GenericProviderOptions): Promise<GenericProviderFake> {
  const state: GenericProviderState = {
    definition: null,
    tokens: new Map(),
    refreshTokens: new Set(),
    codes: new Map(),
    tokenRequests: [],
    twoStepRequests: [],
    requestTokens: new Map(),
    accessTokens: new Map(),
    nonces: new Set(),
    limitedRemaining: 0,
    problems: [],
  };
  let waitSeconds = 1;
  const ttl = opts.accessTokenTtlSeconds ?? 3600;
  const itemCount = opts.items ?? 7;
  const def = () => {
    if (!state.definition) throw new Error('define() a definition first');
    return state.definition;
  };
  const problem = (status: number, message: string): Reply => {
    state.problems.push(message);
    return json(status, { error: 'invalid_request', error_description: message });
  };

  function issue(withRefresh: boolean): Record<string, unknown> {
    const access = `at_${randomBytes(12).toString('hex')}`;
    state.tokens.set(access, Date.now() + ttl * 1000);
    const out: Record<string, unknown> = { access_token: access, token_type: 'bearer', expires_in: ttl, ...opts.tokenExtras };
    if (withRefresh) {
      const refresh = `rt_${randomBytes(12).toString('hex')}`;
      state.refreshTokens.add(refresh);
      out.refresh_token = refresh;
    }
    return out;
  }

  function authorize(ctx: RequestContext): Reply {
    const d = def();
    const q = ctx.query;
    if (q.get('client_id') !== opts.clientId) return problem(400, 'authorize: wrong client_id');
    if (q.get('response_type') !== 'code') return problem(400, 'authorize: response_type must be code');
    const redirectUri = q.get('redirect_uri');
    if (!redirectUri) return problem(400, 'authorize: no redirect_uri');
    for (const [k, v] of Object.entries(d.authorization_params ?? {})) if (!filled(v, q.get(k))) return problem(400, `authorize: ${k} must be ${v}`);
    const challenge = q.get('code_challenge');
    if (!d.disable_pkce && (!challenge || q.get('code_challenge_method') !== 'S256')) return problem(400, 'authorize: PKCE (S256) required');
    if (d.disable_pkce && challenge) return problem(400, 'authorize: PKCE sent although disable_pkce');
    const code = randomBytes(10).toString('hex');
    state.codes.set(code, { redirectUri, challenge });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state') ?? '');
    return redirect(back.toString());
  }

  function token(ctx: RequestContext): Reply {
    const d = def();
    const contentType = ctx.headers['content-type'] ?? '';
    const wantJson = d.body_format === 'json';
    if (wantJson !== contentType.startsWith('application/json')) return problem(400, `token: body must be ${wantJson ? 'JSON' : 'a form'}, got ${contentType}`);
    let body: Record<string, string>;
    try {
      body = wantJson ? (JSON.parse(ctx.body) as Record<string, string>) : Object.fromEntries(new URLSearchParams(ctx.body));
    } catch {
      return problem(400, 'token: unreadable body');
    }
    const basic = /^Basic\s+(.+)$/i.exec(ctx.headers.authorization ?? '')?.[1];
    const [user, pass] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    state.tokenRequests.push({ path: ctx.path, grantType: body.grant_type ?? '', body, basicAuth: Boolean(basic), contentType });
    if (d.token_request_auth_method === 'basic') {
      if (user !== opts.clientId || pass !== opts.clientSecret) return problem(401, 'token: client must authenticate with Basic');
      if (body.client_secret) return problem(400, 'token: client_secret in the body although token_request_auth_method is basic');
    } else if (body.client_id !== opts.clientId || body.client_secret !== opts.clientSecret) {
      return problem(401, 'token: client_id/client_secret must be in the body');
    }
    const refreshPath = d.refresh_url ? new URL(d.refresh_url).pathname : new URL(tokenUrlOf(d)!).pathname;
    switch (body.grant_type) {
      case 'authorization_code': {
        if (ctx.path !== new URL(tokenUrlOf(d)!).pathname) return problem(400, 'token: code exchanged at the wrong URL');
        const code = state.codes.get(body.code ?? '');
        if (!code) return problem(400, 'token: unknown code');
        state.codes.delete(body.code!);
        if (code.redirectUri !== body.redirect_uri) return problem(400, 'token: redirect_uri differs');
        if (
          code.challenge &&
          createHash('sha256')
            .update(body.code_verifier ?? '')
            .digest('base64url') !== code.challenge
        )
          return problem(400, 'token: code_verifier does not match');
        for (const [k, v] of Object.entries(d.token_params ?? {}))
          if (k !== 'grant_type' && !filled(v, body[k])) return problem(400, `token: ${k} must be ${v}`);
        return json(200, issue(true));
      }
      case 'refresh_token': {
        if (ctx.path !== refreshPath) return problem(400, `token: refresh sent to ${ctx.path}, not ${refreshPath}`);
        if (!state.refreshTokens.has(body.refresh_token ?? '')) return problem(400, 'token: unknown refresh_token');
        for (const [k, v] of Object.entries(d.refresh_params ?? {}))
          if (k !== 'grant_type' && !filled(v, body[k])) return problem(400, `refresh: ${k} must be ${v}`);
        return json(200, issue(false));
      }
      case 'client_credentials':
        if (ctx.path !== new URL(tokenUrlOf(d)!).pathname) return problem(400, 'token: client credentials at the wrong URL');
        for (const [k, v] of Object.entries(d.token_params ?? {}))
          if (k !== 'grant_type' && !filled(v, body[k])) return problem(400, `token: ${k} must be ${v}`);
        return json(200, issue(false));
      default:
        return problem(400, `token: unsupported grant_type ${body.grant_type}`);
    }
  }

  const signatureMethods = () => [def().signature_method ?? (def().auth_mode === 'TBA' ? 'HMAC-SHA256' : 'HMAC-SHA1')];
  const consumer = { consumerKey: opts.clientId, consumerSecret: opts.clientSecret };
  /** The definition's parameters of one OAuth 1.0a step, each filled, in the form body (POST) or the query (GET). */
  function stepParams(ctx: RequestContext, templates: Record<string, unknown> | undefined): string | null {
    const sent = ctx.method === 'GET' ? ctx.query : new URLSearchParams(ctx.body);
    for (const [k, v] of Object.entries(templates ?? {})) if (!filled(v as string, sent.get(k))) return `${k} must be ${String(v)}`;
    return null;
  }

  function oauth1RequestToken(ctx: RequestContext): Reply {
    const bad = checkOAuth1(ctx, { ...consumer, methods: signatureMethods(), seenNonces: state.nonces }) ?? stepParams(ctx, def().request_params);
    if (bad) return problem(401, `request_token: ${bad}`);
    const callback = /oauth_callback="([^"]*)"/.exec(ctx.headers.authorization ?? '')?.[1];
    if (!callback) return problem(400, 'request_token: no oauth_callback');
    const token = `rq_${randomBytes(8).toString('hex')}`;
    const secret = `rqs_${randomBytes(8).toString('hex')}`;
    state.requestTokens.set(token, { secret, callback: decodeURIComponent(callback) });
    return {
      status: 200,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `oauth_token=${token}&oauth_token_secret=${secret}&oauth_callback_confirmed=true`,
    };
  }

  /** The end user approves: back to the callback given with the request token, with a verifier. */
  function oauth1Authorize(ctx: RequestContext): Reply {
    const token = ctx.query.get('oauth_token') ?? '';
    const issued = state.requestTokens.get(token);
    if (!issued) return problem(400, 'authorize: unknown oauth_token');
    for (const [k, v] of Object.entries(def().authorization_params ?? {}))
      if (!filled(v, ctx.query.get(k))) return problem(400, `authorize: ${k} must be ${v}`);
    issued.verifier = `v_${randomBytes(6).toString('hex')}`;
    const back = new URL(issued.callback);
    back.searchParams.set('oauth_token', token);
    back.searchParams.set('oauth_verifier', issued.verifier);
    return redirect(back.toString());
  }

  function oauth1AccessToken(ctx: RequestContext): Reply {
    const p = /oauth_token="([^"]*)"/.exec(ctx.headers.authorization ?? '')?.[1] ?? '';
    const issued = state.requestTokens.get(decodeURIComponent(p));
    if (!issued?.verifier) return problem(401, 'access_token: request token unknown or not authorized');
    const bad =
      checkOAuth1(ctx, { ...consumer, token: decodeURIComponent(p), tokenSecret: issued.secret, methods: signatureMethods(), seenNonces: state.nonces }) ??
      stepParams(ctx, def().token_params);
    if (bad) return problem(401, `access_token: ${bad}`);
    if (/oauth_verifier="([^"]*)"/.exec(ctx.headers.authorization ?? '')?.[1] !== issued.verifier) return problem(401, 'access_token: wrong oauth_verifier');
    state.requestTokens.delete(decodeURIComponent(p));
    const token = `at1_${randomBytes(8).toString('hex')}`;
    const secret = `ats_${randomBytes(8).toString('hex')}`;
    state.accessTokens.set(token, secret);
    return { status: 200, headers: { 'content-type': 'text/plain' }, body: `oauth_token=${token}&oauth_token_secret=${secret}&user_id=42` };
  }

  /** A signed API call: OAUTH1 with an access token issued here, TBA with the end user's token and the realm. */
  function signedCall(ctx: RequestContext): boolean {
    const d = def();
    const token = decodeURIComponent(/oauth_token="([^"]*)"/.exec(ctx.headers.authorization ?? '')?.[1] ?? '');
    const expect =
      d.auth_mode === 'TBA'
        ? { token: opts.tba?.tokenId, tokenSecret: opts.tba?.tokenSecret, realm: opts.tba?.realm }
        : { token, tokenSecret: state.accessTokens.get(token) ?? '\u0000unknown' };
    const bad = checkOAuth1(ctx, { ...consumer, ...expect, methods: signatureMethods(), seenNonces: state.nonces });
    if (bad) state.problems.push(`api: ${bad}`);
    return bad === null;
  }

  /**
   * SIGNATURE (WSSE): the X-WSSE value where the definition's templates put `${accessToken}` (else the
   * X-WSSE header): the user name, a digest of nonce, creation time and secret (base64 of the SHA-1 hex,
   * as Emarsys documents it), created within five minutes, each nonce once.
   */
  function wsseCall(ctx: RequestContext): boolean {
    const headers = def().proxy?.headers ?? {};
    const name =
      Object.entries(headers)
        .find(([, t]) => t.includes('${accessToken}'))?.[0]
        ?.toLowerCase() ?? 'x-wsse';
    const value = ctx.headers[name] ?? '';
    const f = Object.fromEntries([...value.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const digest = Buffer.from(createHash('sha1').update(`${f.Nonce}${f.Created}${opts.password}`).digest('hex')).toString('base64');
    const fresh = Math.abs(Date.now() - Date.parse(f.Created ?? '')) < 300_000;
    const bad = !value.startsWith('UsernameToken ')
      ? `${name} is not a UsernameToken`
      : f.Username !== opts.username
        ? `Username ${f.Username} is not the API user`
        : f.PasswordDigest !== digest
          ? 'PasswordDigest does not match'
          : !fresh
            ? 'Created is not within five minutes'
            : state.nonces.has(`wsse:${f.Nonce}`)
              ? 'Nonce used before'
              : null;
    state.nonces.add(`wsse:${f.Nonce}`);
    if (bad) state.problems.push(`api: ${bad}`);
    return bad === null;
  }

  /**
   * TWO_STEP: the token request as the definition describes it (method, body format, every
   * `token_params` and `token_headers` template filled with the expected fields), answered with a
   * token where `token_response.token` says and its expiry as `token_expiration_strategy` says.
   */
  function twoStep(ctx: RequestContext): Reply {
    const d = def();
    const method = d.token_request_method ?? 'POST';
    if (ctx.method !== method) return problem(405, `two-step: token request must be ${method}`);
    let params: Record<string, string>;
    if (method !== 'POST') params = Object.fromEntries(ctx.query);
    else {
      const wantJson = (d.body_format ?? 'json') === 'json';
      const contentType = ctx.headers['content-type'] ?? '';
      if (wantJson !== contentType.startsWith('application/json'))
        return problem(400, `two-step: body must be ${wantJson ? 'JSON' : 'a form'}, got ${contentType}`);
      try {
        params = wantJson ? (JSON.parse(ctx.body || '{}') as Record<string, string>) : Object.fromEntries(new URLSearchParams(ctx.body));
      } catch {
        return problem(400, 'two-step: unreadable body');
      }
    }
    state.twoStepRequests.push({ method: ctx.method, params, headers: ctx.headers });
    for (const [k, t] of Object.entries(d.token_params ?? {}))
      if (typeof t === 'string' && !entered(t, params[k])) return problem(401, `two-step: ${k} must be ${t} with the entered fields`);
    for (const [k, t] of Object.entries(d.token_headers ?? {}))
      if (!entered(t, ctx.headers[k.toLowerCase()])) return problem(401, `two-step: header ${k} must be ${t} with the entered fields`);
    const spec = d.token_response!;
    const access = `ts_${randomBytes(12).toString('hex')}`;
    state.tokens.set(access, Date.now() + ttl * 1000);
    const body: Record<string, unknown> = { ...opts.tokenExtras };
    setPath(body, spec.token, access);
    if (spec.token_expiration)
      setPath(body, spec.token_expiration, spec.token_expiration_strategy === 'expireIn' ? ttl : new Date(Date.now() + ttl * 1000).toISOString());
    return json(200, body);
  }

  /**
   * Whether a TWO_STEP template was filled with the expected fields (`${credentials.x}`, `${base64(...)}`)
   * and dates (`${now+N:days:YYYY-MM-DD}`: today's UTC date N days on); other placeholders: any value.
   */
  function entered(template: string, actual: string | null | undefined): boolean {
    const withFields = (text: string) =>
      text
        .replace(/\$\{credentials\.(\w+)\}/g, (_, k: string) => opts.fields?.[k] ?? '\u0000missing')
        .replace(/\$\{now\+(\d+):days:YYYY-MM-DD\}/g, (_, days: string) => new Date(Date.now() + Number(days) * 86_400_000).toISOString().slice(0, 10));
    const expected = template.replace(/\$\{base64\(([^()]*)\)\}/g, (_, inner: string) => Buffer.from(withFields(inner)).toString('base64'));
    return filled(withFields(expected), actual);
  }

  /** The credentials the definition says the platform sends, checked against what came. */
  function authorized(ctx: RequestContext): boolean {
    const d = def();
    const headers = d.proxy?.headers ?? {};
    const query = d.proxy?.query ?? {};
    if (d.auth_mode === 'OAUTH1' || d.auth_mode === 'TBA') return signedCall(ctx);
    if (d.auth_mode === 'SIGNATURE') return wsseCall(ctx);
    const ref = {
      API_KEY: 'apiKey',
      BASIC: 'username',
      OAUTH2: 'accessToken',
      OAUTH2_CC: 'accessToken',
      TWO_STEP: 'accessToken',
      JWT: 'accessToken',
      APP: 'accessToken',
      MCP_OAUTH2: 'accessToken',
      MCP_OAUTH2_GENERIC: 'accessToken',
      AWS_SIGV4: null,
      NONE: null,
    }[d.auth_mode as 'NONE'];
    if (ref === null) return true;
    const templated = [...Object.values(headers), ...Object.values(query)].some(
      (t) => t.includes(`\${${ref}}`) || (ref === 'username' && t.includes('${password}')),
    );
    const secretOk = (values: Record<string, string>): boolean => {
      if (d.auth_mode === 'API_KEY') return values.apiKey === opts.apiKey;
      if (d.auth_mode === 'BASIC') return values.username === opts.username && values.password === opts.password;
      const exp = state.tokens.get(values.accessToken ?? '');
      return exp !== undefined && exp > Date.now();
    };
    if (!templated) {
      const auth = ctx.headers.authorization ?? '';
      if (d.auth_mode === 'BASIC') {
        const [u, p] = Buffer.from(/^Basic\s+(.+)$/i.exec(auth)?.[1] ?? '', 'base64')
          .toString('utf8')
          .split(':');
        return secretOk({ username: u ?? '', password: p ?? '' });
      }
      const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1] ?? '';
      return secretOk({ apiKey: bearer, accessToken: bearer });
    }
    // Find the secret where the templates put it: the value of each templated header/query with the secret's slot.
    const sent: Record<string, string> = {};
    const read = (template: string, actual: string | undefined | null): void => {
      if (actual == null) return;
      // `${base64(...)}`: the text around it as written, its content read from the decoded value.
      const b64 = /^(.*?)\$\{base64\(([^()]*)\)\}(.*)$/.exec(template);
      if (b64) {
        const [, before = '', inner = '', after = ''] = b64;
        if (actual.startsWith(before) && actual.endsWith(after) && actual.length >= before.length + after.length)
          read(inner, Buffer.from(actual.slice(before.length, actual.length - after.length), 'base64').toString('utf8'));
        return;
      }
      const escape = (lit: string) => lit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const parts = template.split(/\$\{([\w.]+)\}/);
      const pattern = new RegExp(`^${parts.map((part, i) => (i % 2 ? `(?<${part.replace('.', '_')}>.*)` : escape(part))).join('')}$`);
      const m = pattern.exec(actual);
      if (m?.groups) for (const [k, v] of Object.entries(m.groups)) sent[k] = v;
    };
    for (const [k, t] of Object.entries(headers)) read(t, ctx.headers[k.toLowerCase()]);
    for (const [k, t] of Object.entries(query)) read(t, ctx.query.get(k));
    return secretOk(sent);
  }

  function items(ctx: RequestContext): Reply {
    const p = def().proxy?.paginate;
    const all = Array.from({ length: itemCount }, (_, i) => ({ id: `item-${i + 1}` }));
    const limit = Number(ctx.query.get(p?.limit_name_in_request ?? 'limit') ?? 3) || 3;
    const wrap = (page: unknown[], extra: Record<string, unknown>) => {
      const body: Record<string, unknown> = { ...extra };
      setPath(body, p?.response_path ?? 'items', page);
      return json(200, body);
    };
    if (p?.type === 'offset') {
      const offset = Number(ctx.query.get(p.offset_name_in_request ?? 'offset') ?? 0);
      return wrap(all.slice(offset, offset + limit), {});
    }
    // cursor (default): the cursor is the index of the next item.
    const start = Number(ctx.query.get(p?.cursor_name_in_request ?? 'cursor') ?? 0);
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : '';
    const extra: Record<string, unknown> = {};
    setPath(extra, p?.cursor_path_in_response ?? 'next_cursor', next);
    return wrap(page, extra);
  }

  function limited(): Reply {
    if (state.limitedRemaining > 0) {
      state.limitedRemaining--;
      const retry = def().proxy?.retry ?? {};
      const headers: Record<string, string> = {};
      const [after] = [retry.after ?? []].flat();
      const [at] = [retry.at ?? []].flat();
      if (after) headers[after] = String(waitSeconds);
      else if (at) headers[at] = String(Math.ceil(Date.now() / 1000) + waitSeconds);
      return json(429, { error: 'rate_limited' }, headers);
    }
    return json(200, { ok: true });
  }

  const fake = await startFakeServer(state, (ctx) => {
    if (ctx.path === '/auth/token') return twoStep(ctx);
    if (ctx.path === '/oauth1/request_token') return oauth1RequestToken(ctx);
    if (ctx.method === 'GET' && ctx.path === '/oauth1/authorize') return oauth1Authorize(ctx);
    if (ctx.path === '/oauth1/access_token') return oauth1AccessToken(ctx);
    if (ctx.method === 'GET' && ctx.path === '/oauth/authorize') return authorize(ctx);
    if (ctx.method === 'POST' && (ctx.path === '/oauth/token' || ctx.path === '/oauth/refresh')) return token(ctx);
    if (!ctx.path.startsWith('/api/')) return json(404, { error: 'not_found' });
    if (!authorized(ctx)) return json(401, { error: 'unauthorized' });
    if (ctx.path === '/api/me') return json(200, { id: 'me', ok: true });
    if (ctx.path === '/api/items') return items(ctx);
    if (ctx.path === '/api/limited') return limited();
    return json(200, { path: ctx.path, query: Object.fromEntries(ctx.query) });
  });
  return Object.assign(fake, {
    define(d: ProviderDefinitionInput) {
      state.definition = d;
    },
    rateLimit(times: number, seconds: number) {
      state.limitedRemaining = times;
      waitSeconds = seconds;
    },
  });
}

/**
 * Whether a parameter the platform sent is its definition's template filled in: literally equal when
 * the template has no placeholder, else the same text around the placeholders with a value (never the
 * placeholder itself) in each.
 */
function filled(value: string | number | boolean | Record<string, unknown>, actual: string | null | undefined): boolean {
  if (actual == null) return false;
  // A YAML scalar is sent as its text; nested parameters belong to auth modes this fake does not speak.
  if (typeof value === 'object') return false;
  const template = String(value);
  if (!template.includes('${')) return actual === template;
  const parts = template.split(/\$\{[\w.]+\}/).map((lit) => lit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return !actual.includes('${') && new RegExp(`^${parts.join('[^$\\{\\}]+')}$`).test(actual);
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let o = target;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[keys.at(-1)!] = value;
}
