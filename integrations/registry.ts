/**
 * @module integrations/registry — which scripts an integration has: the pre-built scripts of its
 * provider (present on every integration of that provider without a deploy).
 */
import type { AnyScriptDefinition, Endpoint, ScriptDefinition } from './sdk/types.js';
import { metabaseScripts } from './metabase/index.js';
import { checkrScripts } from './checkr-partner/index.js';
import { slackScripts } from './slack/index.js';
import { googleDriveScripts } from './google-drive/index.js';

export type EndpointDeclaration = Endpoint;

export interface ScriptDeclaration {
  name: string;
  type: 'sync' | 'action';
  endpoints: EndpointDeclaration[];
}

const prebuilt: Record<string, Record<string, AnyScriptDefinition>> = {
  metabase: metabaseScripts,
  'checkr-partner': checkrScripts,
  'checkr-partner-staging': checkrScripts,
  slack: slackScripts,
  'google-drive': googleDriveScripts,
};

export function registerPrebuiltScripts(provider: string, scripts: Record<string, AnyScriptDefinition>): void {
  prebuilt[provider] = scripts;
}

const isScript = (def: AnyScriptDefinition): def is ScriptDefinition => def.type !== 'on-event';

export function prebuiltScript(provider: string, name: string): ScriptDefinition | undefined {
  const scripts = prebuilt[provider];
  const def = scripts && Object.hasOwn(scripts, name) ? scripts[name] : undefined;
  return def && isScript(def) ? def : undefined;
}

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

export function declarationOf(name: string, def: ScriptDefinition): ScriptDeclaration {
  return { name, type: def.type, endpoints: declaredEndpoints(def) };
}

export function prebuiltScriptsFor(provider: string): ScriptDeclaration[] {
  return prebuiltScriptEntries(provider).map(([name, def]) => declarationOf(name, def));
}

export function endpointKey(e: { method: string; path: string }): string {
  return `${e.method.toUpperCase()} ${e.path}`;
}
