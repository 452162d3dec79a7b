/**
 * @module api/agent-session-toolset — Nango's agent session request (`POST /sessions`, @nangohq/types
 * PostAgentSessionsBody) mapped onto ours (features/agent-sessions/store.ts): its tenant selectors
 * resolve to one connection per integration, and its toolset compiles, when the session is created,
 * to our list of allowed tool names (`<integration>__<action>`), or to null when every integration
 * allows every tool. Refusals carry Nango's codes and payloads.
 *
 * What has no counterpart here: our MCP server lists every tool of a session in tools/list, so there
 * are no searchable tools and no meta tools (nango_tool_search, nango_execute, nango_proxy); asking
 * for a meta tool is refused, and pinned_tools only has to name tools of the toolset.
 */
import { listConnections, type Connection } from '../features/connections/store.js';
import type { Environment } from '../features/environments/store.js';
import { scriptsOf } from '../features/scripts/catalog.js';
import { BadRequest } from '../lib/errors.js';
import type { AppDeps } from './context.js';
import { TOOL_SEPARATOR } from './mcp.js';

export const META_TOOLS = ['nango_tool_search', 'nango_execute', 'nango_proxy'] as const;

export type IntegrationPolicy = '*' | { allow?: '*' | { tools: string[] } | undefined; deny?: { tools: string[] } | undefined };

export interface NangoSessionInput {
  tenant: { connections: { any?: { tags: Record<string, string> }[] | undefined; pinned?: { integration_id: string; connection_id: string }[] | undefined } };
  toolset?: '*' | Record<string, IntegrationPolicy> | undefined;
  pinned_tools?: Record<string, string[]> | undefined;
}

export interface ResolvedSessionConnection {
  providerConfigKey: string;
  connectionId: string;
}

/** How many connections one tag selector may match before the answer stops listing them. */
const CANDIDATES_LISTED = 50;

async function byTags(deps: AppDeps, env: Environment, tags: Record<string, string>): Promise<Connection[]> {
  return listConnections(deps.db, deps.box, env.id, { tags, limit: CANDIDATES_LISTED + 1, page: 0 });
}

/**
 * One connection per integration: the pinned ones (which must exist), then those the tag selectors
 * match on the other integrations (more than one match on an integration is ambiguous).
 */
export async function resolveTenant(deps: AppDeps, env: Environment, input: NangoSessionInput): Promise<ResolvedSessionConnection[]> {
  const { pinned = [], any = [] } = input.tenant.connections;
  const unknown: { integration_id: string; connection_id: string }[] = [];
  const chosen = new Map<string, string>();
  for (const p of pinned) {
    if (await deps.lookups.connection(env.id, p.integration_id, p.connection_id)) chosen.set(p.integration_id, p.connection_id);
    else unknown.push(p);
  }
  if (unknown.length) throw new BadRequest('unknown_pinned_connection', 'Some pinned connections do not exist', { pinned: unknown });
  const matches = new Map<string, Set<string>>();
  for (const selector of any) {
    for (const c of await byTags(deps, env, selector.tags)) {
      if (chosen.has(c.integrationKey)) continue;
      matches.set(c.integrationKey, (matches.get(c.integrationKey) ?? new Set()).add(c.connectionId));
    }
  }
  const ambiguous = [...matches].filter(([, ids]) => ids.size > 1);
  if (ambiguous.length) {
    const integrations = Object.fromEntries(
      ambiguous.map(([key, ids]) => [
        key,
        { match_count: ids.size, candidates: [...ids].slice(0, CANDIDATES_LISTED).map((connection_id) => ({ connection_id })) },
      ]),
    );
    throw new BadRequest('ambiguous_connections', 'The selectors match more than one connection of some integrations: pin one', { integrations });
  }
  for (const [key, ids] of matches) chosen.set(key, [...ids][0]!);
  return [...chosen].map(([providerConfigKey, connectionId]) => ({ providerConfigKey, connectionId }));
}

/** The action names of each integration of the session (syncs and on-event scripts are not tools). */
async function actionsByIntegration(deps: AppDeps, env: Environment, keys: string[]) {
  const out = new Map<string, { actions: string[]; others: Map<string, string> }>();
  for (const key of keys) {
    const integration = await deps.lookups.integration(env.id, key);
    const actions: string[] = [];
    const others = new Map<string, string>();
    for (const [name, handle] of integration ? await scriptsOf(deps, integration) : []) {
      if (handle.type === 'action') actions.push(name);
      else others.set(name, handle.type);
    }
    out.set(key, { actions, others });
  }
  return out;
}

function allowedBy(policy: IntegrationPolicy, actions: string[]): string[] {
  if (policy === '*') return actions;
  const allow = policy.allow === undefined || policy.allow === '*' ? actions : policy.allow.tools;
  const deny = new Set(policy.deny?.tools ?? []);
  return allow.filter((a) => !deny.has(a));
}

/**
 * The session's allowed tool names; null when every integration of the session allows every tool
 * (then tools deployed later are the session's too, as with our own sessions without `tools`).
 */
export async function compileToolset(
  deps: AppDeps,
  env: Environment,
  connections: ResolvedSessionConnection[],
  input: NangoSessionInput,
): Promise<string[] | null> {
  const keys = connections.map((c) => c.providerConfigKey);
  const toolset = input.toolset ?? '*';
  const policies: Record<string, IntegrationPolicy> = toolset === '*' ? Object.fromEntries(keys.map((k) => [k, '*' as const])) : toolset;
  const strays = Object.keys(policies).filter((k) => !keys.includes(k));
  const pinnedStrays = Object.keys(input.pinned_tools ?? {}).filter((k) => !keys.includes(k));
  if (strays.length || pinnedStrays.length) {
    throw new BadRequest('unknown_integration', 'The toolset names integrations the session has no connection of', {
      integrations: [...strays, ...pinnedStrays],
    });
  }
  const scripts = await actionsByIntegration(deps, env, keys);
  const unknownTools: { integration_id: string; tool: string }[] = [];
  const unsupported: { integration_id: string; tool: string; type: string }[] = [];
  for (const [key, policy] of Object.entries(policies)) {
    if (policy === '*') continue;
    const { actions, others } = scripts.get(key)!;
    for (const tool of [...(policy.allow && policy.allow !== '*' ? policy.allow.tools : []), ...(policy.deny?.tools ?? [])]) {
      // An action is a tool even when a sync shares its name (Nango allows both).
      if (actions.includes(tool)) continue;
      const type = others.get(tool);
      if (type) unsupported.push({ integration_id: key, tool, type });
      else unknownTools.push({ integration_id: key, tool });
    }
  }
  if (unknownTools.length) throw new BadRequest('unknown_tool', 'The toolset names tools the integrations do not have', { tools: unknownTools });
  if (unsupported.length) throw new BadRequest('unsupported_function_type', 'Only actions are tools', { tools: unsupported });
  const allowed = new Map(keys.map((k) => [k, policies[k] ? allowedBy(policies[k], scripts.get(k)!.actions) : []]));
  const notInToolset = Object.entries(input.pinned_tools ?? {}).flatMap(([key, tools]) =>
    tools.filter((tool) => !allowed.get(key)!.includes(tool)).map((tool) => ({ integration_id: key, tool })),
  );
  if (notInToolset.length) throw new BadRequest('tool_not_in_toolset', 'Pinned tools must be in the toolset', { pinned: notInToolset });
  if (keys.every((k) => policies[k] === '*')) return null;
  return keys.flatMap((k) => allowed.get(k)!.map((action) => `${k}${TOOL_SEPARATOR}${action}`));
}
