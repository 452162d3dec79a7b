/**
 * @module An MCP server and its authorization server, as the MCP specification's authorization
 * section describes them, driven by a provider definition (MCP_OAUTH2 or MCP_OAUTH2_GENERIC):
 *
 * - RFC 9728 protected-resource metadata at `/.well-known/oauth-protected-resource/mcp` (the server
 *   is `/mcp`), naming the authorization server `/auth`;
 * - RFC 8414 authorization-server metadata at `/.well-known/oauth-authorization-server/auth`;
 * - RFC 7591 dynamic client registration at POST `/auth/register`: issues a client id (and, with
 *   `confidential`, a secret) for the redirect URIs it is given;
 * - GET `/auth/authorize` (a registered client, its redirect URI, PKCE S256 required, the definition's
 *   `authorization_params`, and for a discovered server `resource` and the advertised scopes);
 * - POST `/auth/token`: the code with its PKCE verifier, and refresh tokens, for the client they were issued to;
 * - POST `/mcp` (JSON-RPC `tools/list`), only with a live Bearer token; without one, a 401 with
 *   `WWW-Authenticate: Bearer resource_metadata=...`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ProviderDefinitionInput } from '../../features/providers/definition.js';
import { json, redirect, startFakeServer, type FakeServer, type Reply, type RequestContext } from './server.js';

export const MCP_SCOPES = ['mcp:read', 'mcp:write'];

export interface McpProviderState {
  definition: ProviderDefinitionInput | null;
  /** Registered clients by id: their redirect URIs and secret (none for a public client). */
  clients: Map<string, { redirectUris: string[]; secret: string | null; body: Record<string, unknown> }>;
  codes: Map<string, { clientId: string; redirectUri: string; challenge: string; resource: string | null }>;
  tokens: Map<string, number>;
  refreshTokens: Map<string, string>;
  tokenRequests: { grantType: string; body: Record<string, string> }[];
  problems: string[];
}

export interface McpProviderFake extends FakeServer<McpProviderState> {
  define(def: ProviderDefinitionInput): void;
  /** The MCP server's URL, the one an end user enters for MCP_OAUTH2_GENERIC. */
  serverUrl: string;
}

export async function startMcpProviderFake(opts: { confidential?: boolean; accessTokenTtlSeconds?: number } = {}): Promise<McpProviderFake> {
  const state: McpProviderState = {
    definition: null,
    clients: new Map(),
    codes: new Map(),
    tokens: new Map(),
    refreshTokens: new Map(),
    tokenRequests: [],
    problems: [],
  };
  const ttl = opts.accessTokenTtlSeconds ?? 3600;
  const def = () => {
    if (!state.definition) throw new Error('define() a definition first');
    return state.definition;
  };
  const generic = () => def().auth_mode === 'MCP_OAUTH2_GENERIC';
  const problem = (status: number, message: string): Reply => {
    state.problems.push(message);
    return json(status, { error: 'invalid_request', error_description: message });
  };

  function register(ctx: RequestContext): Reply {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(ctx.body) as Record<string, unknown>;
    } catch {
      return problem(400, 'register: body must be JSON');
    }
    const uris = body.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string' && URL.canParse(u)))
      return problem(400, 'register: redirect_uris must be a list of URLs');
    if (body.token_endpoint_auth_method !== 'none') return problem(400, 'register: a public client (token_endpoint_auth_method none) is expected');
    for (const [k, v] of Object.entries(def().registration_params ?? {}))
      if (JSON.stringify(body[k]) !== JSON.stringify(v)) return problem(400, `register: ${k} must be ${JSON.stringify(v)}`);
    const clientId = `mcp_client_${randomBytes(8).toString('hex')}`;
    const secret = opts.confidential ? `mcp_secret_${randomBytes(12).toString('hex')}` : null;
    state.clients.set(clientId, { redirectUris: uris as string[], secret, body });
    return json(201, {
      ...body,
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...(secret && { client_secret: secret, client_secret_expires_at: 0, token_endpoint_auth_method: 'client_secret_post' }),
    });
  }

  function authorize(ctx: RequestContext): Reply {
    const q = ctx.query;
    const client = state.clients.get(q.get('client_id') ?? '');
    if (!client) return problem(400, 'authorize: unknown client_id (not registered)');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!client.redirectUris.includes(redirectUri)) return problem(400, 'authorize: redirect_uri was not registered');
    if (q.get('response_type') !== 'code') return problem(400, 'authorize: response_type must be code');
    const challenge = q.get('code_challenge');
    if (!challenge || q.get('code_challenge_method') !== 'S256') return problem(400, 'authorize: PKCE (S256) is required');
    for (const [k, v] of Object.entries(def().authorization_params ?? {}))
      if (q.get(k) !== String(v)) return problem(400, `authorize: ${k} must be ${String(v)}`);
    if (generic()) {
      if (q.get('resource') !== `${ctx.origin}/mcp`) return problem(400, `authorize: resource must be ${ctx.origin}/mcp`);
      if (q.get('scope') !== MCP_SCOPES.join(' ')) return problem(400, `authorize: scope must be the advertised ${MCP_SCOPES.join(' ')}`);
    } else if ((def().default_scopes ?? []).join(' ') !== (q.get('scope') ?? '')) return problem(400, 'authorize: scope must be the default_scopes');
    const code = randomBytes(10).toString('hex');
    state.codes.set(code, { clientId: q.get('client_id')!, redirectUri, challenge, resource: q.get('resource') });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state') ?? '');
    return redirect(back.toString());
  }

  function issue(clientId: string, withRefresh: boolean): Record<string, unknown> {
    const access = `mcp_at_${randomBytes(12).toString('hex')}`;
    state.tokens.set(access, Date.now() + ttl * 1000);
    const out: Record<string, unknown> = { access_token: access, token_type: 'Bearer', expires_in: ttl };
    if (withRefresh) {
      const refresh = `mcp_rt_${randomBytes(12).toString('hex')}`;
      state.refreshTokens.set(refresh, clientId);
      out.refresh_token = refresh;
    }
    return out;
  }

  function token(ctx: RequestContext): Reply {
    if (!(ctx.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return problem(400, 'token: body must be a form');
    const body = Object.fromEntries(new URLSearchParams(ctx.body));
    state.tokenRequests.push({ grantType: body.grant_type ?? '', body });
    const client = state.clients.get(body.client_id ?? '');
    if (!client) return problem(401, 'token: unknown client_id');
    if (client.secret !== null ? body.client_secret !== client.secret : body.client_secret !== undefined)
      return problem(401, client.secret ? 'token: client_secret must be the registered one' : 'token: a public client sends no client_secret');
    const resourceOk = (expected: string | null) => !generic() || body.resource === `${ctx.origin}/mcp` || body.resource === expected;
    if (body.grant_type === 'authorization_code') {
      const code = state.codes.get(body.code ?? '');
      if (!code) return problem(400, 'token: unknown code');
      state.codes.delete(body.code!);
      if (code.clientId !== body.client_id) return problem(400, 'token: code issued to another client');
      if (code.redirectUri !== body.redirect_uri) return problem(400, 'token: redirect_uri differs');
      if (
        createHash('sha256')
          .update(body.code_verifier ?? '')
          .digest('base64url') !== code.challenge
      )
        return problem(400, 'token: code_verifier does not match the code_challenge');
      if (!resourceOk(code.resource)) return problem(400, 'token: resource must be the MCP server');
      return json(200, issue(body.client_id!, true));
    }
    if (body.grant_type === 'refresh_token') {
      if (state.refreshTokens.get(body.refresh_token ?? '') !== body.client_id) return problem(400, 'token: unknown refresh_token for this client');
      if (!resourceOk(null)) return problem(400, 'refresh: resource must be the MCP server');
      return json(200, issue(body.client_id!, false));
    }
    return problem(400, `token: unsupported grant_type ${body.grant_type}`);
  }

  function mcp(ctx: RequestContext): Reply {
    const bearer = /^Bearer\s+(.+)$/i.exec(ctx.headers.authorization ?? '')?.[1] ?? '';
    const expires = state.tokens.get(bearer);
    if (expires === undefined || expires < Date.now())
      return json(401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer resource_metadata="${ctx.origin}/.well-known/oauth-protected-resource/mcp"` });
    let rpc: { id?: unknown; method?: unknown };
    try {
      rpc = JSON.parse(ctx.body || '{}') as typeof rpc;
    } catch {
      return json(400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } });
    }
    if (rpc.method !== 'tools/list') return json(200, { jsonrpc: '2.0', id: rpc.id ?? null, error: { code: -32601, message: 'Method not found' } });
    return json(200, { jsonrpc: '2.0', id: rpc.id ?? null, result: { tools: [{ name: 'search', inputSchema: { type: 'object' } }] } });
  }

  const fake = await startFakeServer(state, (ctx) => {
    const o = ctx.origin;
    if (ctx.method === 'GET' && ctx.path === '/.well-known/oauth-protected-resource/mcp')
      return json(200, { resource: `${o}/mcp`, authorization_servers: [`${o}/auth`], scopes_supported: MCP_SCOPES, bearer_methods_supported: ['header'] });
    if (ctx.method === 'GET' && ctx.path === '/.well-known/oauth-authorization-server/auth')
      return json(200, {
        issuer: `${o}/auth`,
        authorization_endpoint: `${o}/auth/authorize`,
        token_endpoint: `${o}/auth/token`,
        registration_endpoint: `${o}/auth/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
      });
    if (ctx.method === 'POST' && ctx.path === '/auth/register') return register(ctx);
    if (ctx.method === 'GET' && ctx.path === '/auth/authorize') return authorize(ctx);
    if (ctx.method === 'POST' && ctx.path === '/auth/token') return token(ctx);
    if (ctx.path.replace(/\/$/, '') === '/mcp' && ctx.method === 'POST') return mcp(ctx);
    return json(404, { error: 'not_found' });
  });
  return Object.assign(fake, {
    serverUrl: `${fake.url}/mcp`,
    define(d: ProviderDefinitionInput) {
      state.definition = d;
    },
  });
}
