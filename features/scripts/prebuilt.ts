/**
 * @module features/scripts/prebuilt — which pre-built scripts an integration has: those of its
 * provider, present on every integration of that provider without a deploy. The scripts themselves
 * live above, in integrations/<provider>/; start/platform.ts registers them (integrations/prebuilt.ts)
 * so this floor never imports them.
 */
import type { AnyScriptDefinition, Endpoint, ScriptDefinition } from '../../sdk/types.js';

const prebuilt: Record<string, Record<string, AnyScriptDefinition>> = {};

export function registerPrebuiltScripts(provider: string, scripts: Record<string, AnyScriptDefinition>): void {
  prebuilt[provider] = scripts;
}

const isScript = (def: AnyScriptDefinition): def is ScriptDefinition => def.type !== 'on-event';

/** The pre-built syncs and actions of a provider (on-event scripts have no endpoints: prebuiltEntriesOf). */
export function prebuiltScriptEntries(provider: string): [string, ScriptDefinition][] {
  return Object.entries(prebuilt[provider] ?? {}).filter((e): e is [string, ScriptDefinition] => isScript(e[1]));
}

/** Every pre-built script of a provider, on-event scripts included. */
export function prebuiltEntriesOf(provider: string): [string, AnyScriptDefinition][] {
  return Object.entries(prebuilt[provider] ?? {});
}

/** The endpoints a sync or action declares, of the methods served (none: it is called by its name, as Nango 0.71 allows). */
export function declaredEndpoints(def: ScriptDefinition): Endpoint[] {
  const declared = def.type === 'action' ? (def.endpoint ? [def.endpoint] : []) : (def.endpoints ?? []);
  return declared.flatMap((e) =>
    SERVED.has(e.method) ? [{ method: e.method as Endpoint['method'], path: e.path, ...(e.group ? { group: e.group } : {}) }] : [],
  );
}
const SERVED = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] satisfies Endpoint['method'][]);

export function endpointKey(e: { method: string; path: string }): string {
  return `${e.method.toUpperCase()} ${e.path}`;
}
