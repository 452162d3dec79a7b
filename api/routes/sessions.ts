/**
 * @module api/routes/sessions — agent sessions at Nango's paths and in its shapes (@nangohq/types
 * PostAgentSessions, DeleteAgentSession, PostAgentSessionMcp): `POST /sessions`, `DELETE
 * /sessions/:sessionId` and the session's MCP server at `/session/:sessionId/mcp`. They are our
 * agent sessions (api/routes/mcp.ts, features/agent-sessions/store.ts): the same tokens, tools and
 * runs; api/agent-session-toolset.ts maps Nango's tenant and toolset onto them.
 */
import { z } from 'zod';
import { AGENT_SESSION_DEFAULT_TTL_S, createAgentSession, endAgentSession } from '../../features/agent-sessions/store.js';
import { tagsSchema } from '../../features/connections/tags.js';
import { BadRequest, NotFound } from '../../lib/errors.js';
import { compileToolset, META_TOOLS, resolveTenant } from '../agent-session-toolset.js';
import { actionToolsOf, collidingPrefix, resolveScope, sessionScope, TOOL_SEPARATOR } from '../mcp.js';
import { defineRoute } from '../route.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';
import { mcpRoute, serveMcp } from './mcp.js';

const MAX_TTL_S = 30 * 24 * 3600;
const UNIT_S = { s: 1, m: 60, h: 3600, d: 86400 } as const;

const toolList = z.object({ tools: z.array(z.string().min(1).max(255)).max(500) }).strict();
const integrationPolicy = z.union([z.literal('*'), z.object({ allow: z.union([z.literal('*'), toolList]).optional(), deny: toolList.optional() }).strict()]);

const expiresIn = z
  .string()
  .regex(/^\d{1,7}[smhd]?$/, 'a number of seconds, or of minutes, hours or days with the unit: 900, 15m, 1h, 7d')
  .transform((v) => Number(v.replace(/[smhd]$/, '')) * UNIT_S[(/[smhd]$/.exec(v)?.[0] ?? 's') as keyof typeof UNIT_S])
  .refine((s) => s >= 1 && s <= MAX_TTL_S, `between 1 second and ${MAX_TTL_S / 86400} days`)
  .describe('How long until it expires: seconds, or 15m, 1h, 7d (default 1h; at most 30d)');

const createBody = z
  .object({
    tenant: z
      .object({
        connections: z
          .object({
            any: z
              .array(z.object({ tags: tagsSchema.refine((t) => Object.keys(t).length > 0, 'at least one tag') }).strict())
              .max(50)
              .optional(),
            pinned: z
              .array(z.object({ integration_id: uniqueKeySchema, connection_id: connectionIdSchema }).strict())
              .max(50)
              .optional(),
          })
          .strict()
          .refine((c) => (c.any?.length ?? 0) + (c.pinned?.length ?? 0) > 0, 'select connections with `any` (tags) or `pinned`'),
      })
      .strict(),
    toolset: z.union([z.literal('*'), z.record(uniqueKeySchema, integrationPolicy)]).optional(),
    pinned_tools: z.record(uniqueKeySchema, z.array(z.string().min(1).max(255)).max(500)).optional(),
    meta_tools: z
      .record(z.string(), z.boolean())
      .optional()
      .describe('Switchyard offers no meta tools (every tool of the session is in tools/list): each may only be false'),
    expires_in: expiresIn.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    const pinned = b.tenant.connections.pinned ?? [];
    pinned.forEach((p, i) => {
      if (pinned.findIndex((q) => q.integration_id === p.integration_id) < i)
        ctx.addIssue({ code: 'custom', path: ['tenant', 'connections', 'pinned', i], message: 'one connection per integration' });
    });
    for (const [name, on] of Object.entries(b.meta_tools ?? {})) {
      if (!(META_TOOLS as readonly string[]).includes(name)) {
        ctx.addIssue({ code: 'custom', path: ['meta_tools', name], message: `unknown meta tool (known: ${META_TOOLS.join(', ')})` });
      } else if (on) {
        ctx.addIssue({ code: 'custom', path: ['meta_tools', name], message: 'not offered by Switchyard: every tool of the session is listed in tools/list' });
      }
    }
  });

const toolsetSummary = z.object({ connected: z.boolean(), tools_pinned: z.number().int(), tools_searchable: z.number().int() });
const createResponse = z.object({
  data: z.object({
    session_id: z.string(),
    session_token: z.string(),
    mcp_url: z.string(),
    expires_at: z.string(),
    toolset: z.record(z.string(), toolsetSummary),
    meta_tools: z.object({ nango_tool_search: z.boolean(), nango_execute: z.boolean(), nango_proxy: z.boolean() }),
  }),
});

export const createNangoAgentSession = defineRoute({
  method: 'post',
  path: '/sessions',
  operationId: 'createSession',
  summary: "An agent session in Nango's shape: its connections by tags or pinned, its toolset, its MCP URL",
  description:
    'Each integration gets one connection: a pinned one, or the one its tag selectors match (several: 400 ambiguous_connections). The toolset allows and ' +
    'denies actions per integration. Every tool of the session is in tools/list (tools_searchable is 0 and no meta tool is offered). Refusals: 400 ' +
    'unknown_pinned_connection, ambiguous_connections, unknown_integration, unknown_tool, unsupported_function_type, tool_not_in_toolset, with their payload.',
  tag: 'agents',
  auth: 'secret_key',
  request: { body: createBody },
  responses: { 201: createResponse },
  errors: [],
}).handle(async ({ deps, body, reply }, c) => {
  const env = c.get('environment');
  const connections = await resolveTenant(deps, env, body);
  if (!connections.length) throw new BadRequest('no_connections', 'The tag selectors match no connection');
  const keys = connections.map((x) => x.providerConfigKey);
  const at = collidingPrefix(keys.map((k) => `${k}${TOOL_SEPARATOR}`));
  if (at >= 0)
    throw new BadRequest('colliding_integrations', `'${keys[at]}' and another integration of the session start the same tool names: use one of them`);
  const tools = await compileToolset(deps, env, connections, body);
  const resolved = await resolveScope(deps, { env, connections: connections.map((x) => ({ ...x, prefix: '' })), allowed: null, rowsBound: false });
  const bound = connections.map((x, i) => ({ ...x, connectionPk: resolved[i]!.connectionPk }));
  const expiresAt = new Date(deps.clock.now().getTime() + (body.expires_in ?? AGENT_SESSION_DEFAULT_TTL_S) * 1000);
  const { token, session } = await createAgentSession(deps.db, { environmentId: env.id, endUser: {}, connections: bound, tools, expiresAt });
  const listed = await actionToolsOf(deps, sessionScope(env, session));
  const toolset = Object.fromEntries(
    keys.map((k) => [k, { connected: true, tools_pinned: listed.filter((t) => t.providerConfigKey === k).length, tools_searchable: 0 }]),
  );
  return reply(201, {
    data: {
      session_id: session.id,
      session_token: token,
      mcp_url: `${deps.config.publicUrl}/session/${session.id}/mcp`,
      expires_at: session.expiresAt.toISOString(),
      toolset,
      meta_tools: { nango_tool_search: false, nango_execute: false, nango_proxy: false },
    },
  });
});

const sessionIdParam = z.object({ sessionId: z.uuid() });

export const deleteNangoAgentSession = defineRoute({
  method: 'delete',
  path: '/sessions/:sessionId',
  operationId: 'deleteSession',
  summary: 'End an agent session (its token stops working at once)',
  description: 'Also answers for a session that had already ended: `reason` is `expired` when it had expired first.',
  tag: 'agents',
  auth: 'secret_key',
  request: { params: sessionIdParam },
  responses: {
    200: z.object({ data: z.object({ session_id: z.string(), ended_at: z.string(), reason: z.enum(['terminated', 'expired']) }) }),
  },
  errors: [404],
}).handle(async ({ deps, params }, c) => {
  const ended = await endAgentSession(deps.db, c.get('environment').id, params.sessionId);
  if (!ended) throw new NotFound('not_found', `Agent session '${params.sessionId}' not found`);
  return { data: { session_id: params.sessionId, ended_at: ended.endedAt.toISOString(), reason: ended.reason } };
});

export const sessionMcpRoute = defineRoute({
  method: 'all',
  path: '/session/:sessionId/mcp',
  operationId: 'sessionMcp',
  summary: "An agent session's MCP server (Streamable HTTP), with its session token as bearer",
  description:
    'The MCP server of /mcp for one agent session: tools named <integration>__<action>. A token of another session answers 404 session_not_found. ' +
    'POST carries one JSON-RPC message; GET and other methods answer 405 (stateless server).',
  tag: 'agents',
  auth: 'agent_session',
  request: { params: sessionIdParam },
  responses: mcpRoute.spec.responses,
  errors: [404, 415],
}).handle(async ({ deps, params }, c) => {
  const found = c.get('agentSession')!;
  if (found.session.id !== params.sessionId) throw new NotFound('session_not_found', `Agent session '${params.sessionId}' not found`);
  return serveMcp(deps, c, sessionScope(found.environment, found.session));
});
