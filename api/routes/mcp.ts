/**
 * @module api/routes/mcp — `/mcp`, the MCP server (api/mcp.ts) over Streamable HTTP; and agent
 * sessions, the scoped tokens an agent uses on it (`POST /agent-sessions`, `DELETE
 * /agent-sessions/:id`).
 */
import { z } from 'zod';
import { createAgentSession, revokeAgentSession, AGENT_SESSION_DEFAULT_TTL_S } from '../../features/agent-sessions/store.js';
import { endUserSchema } from '../../features/connections/tags.js';
import { BadRequest, Forbidden, NotFound, ValidationFailed } from '../../lib/errors.js';
import { collidingPrefix, handleMcpRequest, resolveScope, sessionScope, TOOL_SEPARATOR, type ToolScope } from '../mcp.js';
import type { AppDeps, AppEnv } from '../context.js';
import type { Context } from 'hono';
import { defineRoute } from '../route.js';
import { headers as parseHeaders, readJson } from '../validate.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';

const mcpHeaders = z.object({
  'connection-id': connectionIdSchema.optional(),
  'provider-config-key': uniqueKeySchema.optional(),
  'mcp-protocol-version': z.string().max(64).optional(),
});

const errorEnvelope = { $ref: '#/components/schemas/Error' };

/** Who calls /mcp (authenticated by the route's secret_key_or_agent_session middleware): a secret key with the connection headers, or an agent session (whose headers may only repeat its own connections). */
function scopeOf(c: Context<AppEnv>): ToolScope {
  const h = parseHeaders(c, mcpHeaders);
  const found = c.get('agentSession');
  if (found) {
    const named = h['connection-id'] ?? h['provider-config-key'];
    if (
      named !== undefined &&
      !found.session.connections.some(
        (conn) =>
          (h['connection-id'] === undefined || conn.connectionId === h['connection-id']) &&
          (h['provider-config-key'] === undefined || conn.providerConfigKey === h['provider-config-key']),
      )
    ) {
      throw new Forbidden('connection_not_in_session', 'The agent session does not include this connection');
    }
    return sessionScope(found.environment, found.session);
  }
  const env = c.get('environment');
  const connectionId = h['connection-id'];
  const providerConfigKey = h['provider-config-key'];
  if (!connectionId || !providerConfigKey) {
    throw new BadRequest('missing_connection', 'With a secret key, /mcp needs the connection-id and provider-config-key headers');
  }
  return { env, connections: [{ providerConfigKey, connectionId, prefix: '' }], allowed: null, rowsBound: false };
}

export const mcpRoute = defineRoute({
  method: 'all',
  path: '/mcp',
  operationId: 'mcp',
  summary: 'The MCP server (Streamable HTTP): the actions of a connection as tools',
  description:
    'Authenticate with a secret key plus the connection-id and provider-config-key headers (tools named by action), or with an agent session token ' +
    '(tools of its connections named <provider_config_key>__<action>). POST carries one JSON-RPC message; JSON or SSE as the Accept header lists first. ' +
    'The server is stateless: GET (a standalone stream) and other methods answer 405.',
  tag: 'agents',
  auth: 'secret_key_or_agent_session',
  scope: 'environment:mcp',
  handlerParses: { headers: mcpHeaders },
  responses: {
    200: {
      description: 'The JSON-RPC answer, as JSON or as an SSE stream',
      content: { 'application/json': { schema: {} }, 'text/event-stream': { schema: { type: 'string' } } },
    },
    202: { description: 'A notification or a response accepted' },
    405: { description: 'Only POST is served (stateless server)', content: { 'application/json': { schema: errorEnvelope } } },
    406: { description: 'The Accept header must list application/json and text/event-stream', content: { 'application/json': { schema: errorEnvelope } } },
  },
  errors: [400, 403, 415],
}).handle(async ({ deps }, c) => serveMcp(deps, c, scopeOf(c)));

/** One MCP request for a scope: POST only (the server is stateless), its body a JSON-RPC message. */
export async function serveMcp(deps: AppDeps, c: Context<AppEnv>, scope: ToolScope): Promise<Response> {
  if (c.req.method !== 'POST') {
    const error = { code: 'method_not_allowed', message: 'This MCP server is stateless: POST JSON-RPC messages' };
    return c.json({ error }, 405, { Allow: 'POST' });
  }
  const body = await readJson(c);
  if (body === undefined) throw new BadRequest('invalid_body', 'The body must be a JSON-RPC message (or a batch of them)');
  return handleMcpRequest(deps, scope, c.req.raw, body);
}

const sessionConnection = z.object({ provider_config_key: uniqueKeySchema, connection_id: connectionIdSchema }).strict();
const createSessionBody = z
  .object({
    end_user: endUserSchema,
    connections: z.array(sessionConnection).min(1).max(50),
    tools: z.array(z.string().min(1).max(512)).max(500).optional(),
    expires_in: z
      .number()
      .int()
      .min(1)
      .max(30 * 24 * 3600)
      .optional()
      .describe('Seconds until it expires (default 3600)'),
  })
  .strict()
  .refine((b) => new Set(b.connections.map((x) => x.provider_config_key)).size === b.connections.length, {
    message: 'one connection per provider_config_key (tool names are <provider_config_key>__<action>)',
    path: ['connections'],
  })
  .superRefine((b, ctx) => {
    const keys = b.connections.map((x) => x.provider_config_key);
    const at = collidingPrefix(keys.map((k) => `${k}${TOOL_SEPARATOR}`));
    if (at < 0) return;
    ctx.addIssue({
      code: 'custom',
      path: ['connections', at],
      message: `'${keys[at]}' and another key of the session start the same tool names (<provider_config_key>__<action>): use one of them per session`,
    });
  });
const createSessionResponse = z.object({
  data: z.object({ id: z.string(), token: z.string(), mcp_url: z.string(), expires_at: z.string() }),
});

export const createAgentSessionRoute = defineRoute({
  method: 'post',
  path: '/agent-sessions',
  operationId: 'createAgentSession',
  summary: 'An agent session: a token for /mcp limited to some connections (and tools), expiring',
  tag: 'agents',
  auth: 'secret_key',
  scope: 'environment:agent_sessions:write',
  request: { body: createSessionBody },
  responses: { 201: createSessionResponse },
  errors: [],
}).handle(async ({ deps, body, reply }, c) => {
  const env = c.get('environment');
  const connections = body.connections.map((x) => ({ providerConfigKey: x.provider_config_key, connectionId: x.connection_id }));
  const tools = body.tools ?? null;
  const prefixes = connections.map((x) => `${x.providerConfigKey}${TOOL_SEPARATOR}`);
  const stray = tools?.findIndex((t) => !prefixes.some((p) => t.startsWith(p))) ?? -1;
  if (tools && stray >= 0) {
    throw new ValidationFailed('invalid_body', [
      { code: 'custom', path: ['tools', stray], message: `'${tools[stray]}' is not <provider_config_key>__<action> of one of the session's connections` },
    ]);
  }
  const resolved = await resolveScope(deps, { env, connections: connections.map((x) => ({ ...x, prefix: '' })), allowed: null, rowsBound: false });
  const bound = connections.map((x, i) => ({ ...x, connectionPk: resolved[i]!.connectionPk }));
  const expiresAt = new Date(deps.clock.now().getTime() + (body.expires_in ?? AGENT_SESSION_DEFAULT_TTL_S) * 1000);
  const { token, session } = await createAgentSession(deps.db, { environmentId: env.id, endUser: body.end_user, connections: bound, tools, expiresAt });
  return reply(201, { data: { id: session.id, token, mcp_url: `${deps.config.publicUrl}/mcp`, expires_at: session.expiresAt.toISOString() } });
});

export const deleteAgentSessionRoute = defineRoute({
  method: 'delete',
  path: '/agent-sessions/:id',
  operationId: 'deleteAgentSession',
  summary: 'Revoke an agent session',
  tag: 'agents',
  auth: 'secret_key',
  scope: 'environment:agent_sessions:write',
  request: { params: z.object({ id: z.uuid() }) },
  responses: { 204: { description: 'Revoked' } },
  errors: [404],
}).handle(async ({ deps, params }, c) => {
  if (!(await revokeAgentSession(deps.db, c.get('environment').id, params.id))) throw new NotFound('not_found', `No agent session '${params.id}'`);
  return c.body(null, 204);
});
