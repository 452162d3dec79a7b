/**
 * @module api/mcp — the MCP server (official `@modelcontextprotocol/sdk`, Streamable HTTP, stateless:
 * one server and transport per request). Its tools are actions of connections, pre-built and
 * deployed, whose endpoints are active: with a secret key and the `connection-id` /
 * `provider-config-key` headers, that connection's actions named by their action name; with an
 * agent session, the actions of its connections named `<provider_config_key>__<action>`, narrowed
 * to its `tools` list. `tools/call` runs the action through api/action-run.ts, the path of `POST
 * /action/trigger`; a failed action is a tool result with `isError: true`, never a protocol error.
 *
 * Keys and action names may hold `__`, so a name is never split: tools are found by the name they
 * were listed under, and a name more than one connection's prefix starts belongs to none (a session
 * with such keys is refused when created). An agent session is bound to the connection rows it was
 * given, so a connection deleted and created again under the same id is not the session's.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentSession } from '../features/agent-sessions/store.js';
import type { Environment } from '../features/environments/store.js';
import { MISSING, requireConnection } from '../features/connections/resolve.js';
import { isScriptEnabled, scriptsOf, type ActionHandle } from '../features/scripts/catalog.js';
import { SwitchyardError, ValidationFailed } from '../lib/errors.js';
import { runAction, type ActionRunOutcome } from './action-run.js';
import type { AppDeps } from './context.js';
import { API_VERSION } from './version.js';

/** One connection the caller may use, and the prefix of its tools' names ('' for a secret key). */
export interface ScopeConnection {
  providerConfigKey: string;
  connectionId: string;
  prefix: string;
  /** The row an agent session was given (absent: a session made before rows were bound, or a secret key). */
  connectionPk?: number;
}

export interface ToolScope {
  env: Environment;
  connections: ScopeConnection[];
  /** Tool names allowed (an agent session's `tools`); null: all. */
  allowed: string[] | null;
  /** Only the rows in `connectionPk` are the scope's connections (an agent session); false: whatever row has the id (a secret key). */
  rowsBound: boolean;
  agentSessionId?: string;
}

export const TOOL_SEPARATOR = '__';
/** The `_meta` key of a tool result holding the action run's id. */
export const RUN_ID_META = 'dev.switchyard/run_id';

/** The MCP revision from which tools carry an output schema. */
const OUTPUT_SCHEMA_SINCE = '2025-06-18';

interface ActionTool {
  name: string;
  providerConfigKey: string;
  connectionId: string;
  /** The connection row it was listed for: a call never reaches another row of the same id. */
  connectionPk: number;
  action: string;
  handle: ActionHandle;
}

function withoutMeta(schema: unknown): Record<string, unknown> | null {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return null;
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/** The integration and connection row of each connection of a scope; an unknown integration or connection (or, for a session, another row than its own) is a 400. */
export async function resolveScope(deps: AppDeps, scope: ToolScope) {
  const out = [];
  for (const conn of scope.connections) {
    const { integration, connection } = await requireConnection(deps.lookups, scope.env, conn.providerConfigKey, conn.connectionId, 'mcp');
    if (scope.rowsBound && connection.id !== conn.connectionPk) {
      throw MISSING.mcp.connection(conn.connectionId, conn.providerConfigKey);
    }
    out.push({ conn, integration, connectionPk: connection.id });
  }
  return out;
}

/**
 * The index of a prefix that another one starts (or that starts another): with both, some tool
 * name would belong to two connections (`a__` + `b__x` and `a__b__` + `x`). -1 when none.
 */
export function collidingPrefix(prefixes: string[]): number {
  return prefixes.findIndex((p, i) => prefixes.some((q, j) => j < i && (p.startsWith(q) || q.startsWith(p))));
}

/** The connection of a scope that a tool name starts with the prefix of, when exactly one does. */
function ownerOf(scope: ToolScope, toolName: string): ScopeConnection | null {
  const owners = scope.connections.filter((c) => toolName.startsWith(c.prefix));
  return owners.length === 1 ? owners[0]! : null;
}

/** The actions of a scope whose endpoints are active, as tools (a name that would belong to two connections is neither's). */
export async function actionToolsOf(deps: AppDeps, scope: ToolScope): Promise<ActionTool[]> {
  const tools: ActionTool[] = [];
  for (const { conn, integration, connectionPk } of await resolveScope(deps, scope)) {
    for (const [name, handle] of await scriptsOf(deps, integration)) {
      if (handle.type !== 'action' || !(await isScriptEnabled(deps.db, integration, handle))) continue;
      const toolName = conn.prefix + name;
      if (ownerOf(scope, toolName) !== conn) continue;
      if (scope.allowed && !scope.allowed.includes(toolName)) continue;
      tools.push({ name: toolName, providerConfigKey: conn.providerConfigKey, connectionId: conn.connectionId, connectionPk, action: name, handle });
    }
  }
  return tools;
}

/** A tool's MCP description: input JSON Schema from the action's model; an output schema when it is an object and the revision has them. */
export function toolDefinition(tool: ActionTool, protocolVersion: string | undefined): Tool {
  const schemas = tool.handle.schemas();
  const input = withoutMeta(schemas.input);
  const output = withoutMeta(schemas.output);
  const def: Tool = {
    name: tool.name,
    description: tool.handle.description || `${tool.action} (${tool.providerConfigKey})`,
    inputSchema: (input?.type === 'object' ? input : { type: 'object' }) as Tool['inputSchema'],
    ...(tool.handle.title ? { title: tool.handle.title } : {}),
    ...(tool.handle.annotations ? { annotations: tool.handle.annotations } : {}),
  };
  if (output?.type === 'object' && (protocolVersion ?? '') >= OUTPUT_SCHEMA_SINCE) def.outputSchema = output as Tool['outputSchema'];
  return def;
}

function errorResult(error: { code: string; message: string; payload?: unknown; errors?: unknown }): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: error }) }] };
}

/** A run's outcome as a tool result: the output (structured when the tool has an output schema), or its error. */
export function toolResult(outcome: ActionRunOutcome, structured: boolean): CallToolResult {
  if (!outcome.done) {
    return { content: [{ type: 'text', text: JSON.stringify({ id: outcome.id, statusUrl: outcome.statusUrl, status: 'running' }) }] };
  }
  const { run } = outcome;
  // The run's id: its request logs (GET /logs?run_id=) and its result (GET /action/:id).
  const _meta = { [RUN_ID_META]: run.id };
  if (run.status !== 'success') {
    const e = run.error!;
    return { ...errorResult({ code: e.code, message: e.message, ...(e.payload !== undefined ? { payload: e.payload } : {}) }), _meta };
  }
  const text = JSON.stringify(run.output ?? null);
  return {
    _meta,
    content: [{ type: 'text', text }],
    ...(structured && run.output && typeof run.output === 'object' && !Array.isArray(run.output)
      ? { structuredContent: run.output as Record<string, unknown> }
      : {}),
  };
}

/** Runs a tool's action; whatever fails (the input, the run) is an `isError` result. */
export async function callTool(deps: AppDeps, scope: ToolScope, tool: ActionTool, args: unknown, structured: boolean): Promise<CallToolResult> {
  try {
    const outcome = await runAction(deps, {
      env: scope.env,
      integrationKey: tool.providerConfigKey,
      connectionId: tool.connectionId,
      connectionPk: tool.connectionPk,
      actionName: tool.action,
      input: args ?? {},
      isAsync: false,
      ...(scope.agentSessionId ? { agentSessionId: scope.agentSessionId } : {}),
    });
    return toolResult(outcome, structured);
  } catch (err) {
    if (err instanceof ValidationFailed) return errorResult({ code: err.code, message: err.message, errors: err.errors });
    if (err instanceof SwitchyardError)
      return errorResult({ code: err.code, message: err.message, ...(err.payload !== undefined ? { payload: err.payload } : {}) });
    throw err;
  }
}

function mcpServer(deps: AppDeps, scope: ToolScope, protocolVersion: string | undefined): Server {
  const server = new Server({ name: 'switchyard', version: API_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await actionToolsOf(deps, scope)).map((t) => toolDefinition(t, protocolVersion)),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = (await actionToolsOf(deps, scope)).find((t) => t.name === request.params.name);
    if (!tool) return errorResult({ code: 'unknown_tool', message: `No tool '${request.params.name}' is available here` });
    const structured = toolDefinition(tool, protocolVersion).outputSchema !== undefined;
    return callTool(deps, scope, tool, request.params.arguments, structured);
  });
  return server;
}

/** Answers one MCP request (a JSON-RPC message already read and parsed) for a scope. */
export async function handleMcpRequest(deps: AppDeps, scope: ToolScope, request: Request, body: unknown): Promise<Response> {
  await resolveScope(deps, scope); // an unknown connection is an HTTP 400, before any JSON-RPC
  const accept = request.headers.get('accept') ?? '';
  const json = accept.indexOf('application/json');
  const sse = accept.indexOf('text/event-stream');
  // JSON or SSE as the client asks: whichever of the two it lists first.
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json >= 0 && (sse < 0 || json < sse) });
  const server = mcpServer(deps, scope, request.headers.get('mcp-protocol-version') ?? undefined);
  await server.connect(transport);
  const response = await transport.handleRequest(request, { parsedBody: body });
  // A JSON answer is complete here (an SSE stream ends with its last message; nothing is kept).
  if (!response.headers.get('content-type')?.includes('text/event-stream')) await server.close();
  return response.status >= 400 ? asErrorEnvelope(response) : response;
}

const TRANSPORT_ERROR_CODES: Record<number, string> = { 400: 'invalid_mcp_request', 406: 'not_acceptable', 415: 'invalid_content_type' };

/**
 * The transport's HTTP-level refusals (a body that is not JSON-RPC, an unsupported protocol version,
 * an Accept without JSON or SSE) in the API's one error shape; JSON-RPC errors of a valid message
 * stay in the JSON-RPC answer.
 */
async function asErrorEnvelope(response: Response): Promise<Response> {
  const text = await response.text();
  let message = text;
  try {
    message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
  } catch {
    // not JSON: the text is the message
  }
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  const error = { code: TRANSPORT_ERROR_CODES[response.status] ?? 'mcp_error', message };
  return new Response(JSON.stringify({ error }), { status: response.status, headers });
}

export function sessionScope(env: Environment, session: AgentSession): ToolScope {
  return {
    env,
    connections: session.connections.map((c) => ({ ...c, prefix: `${c.providerConfigKey}${TOOL_SEPARATOR}` })),
    allowed: session.tools,
    rowsBound: true,
    agentSessionId: session.id,
  };
}
