/**
 * @module scripts/resolve — finding a script of an integration, and the models its scripts declare.
 */
import type { z } from 'zod';
import { endpointStates, type Integration } from '../db/integrations.js';
import type { Queryable } from '../db/pool.js';
import { endpointKey, prebuiltScript, prebuiltScriptEntries } from '../../integrations/registry.js';
import type { ScriptDefinition } from '../../integrations/sdk/types.js';

export function scriptOf(integration: Pick<Integration, 'provider'>, name: string): ScriptDefinition | undefined {
  return prebuiltScript(integration.provider, name);
}

export function scriptsOf(integration: Pick<Integration, 'provider'>): [string, ScriptDefinition][] {
  return prebuiltScriptEntries(integration.provider);
}

/** All models declared by the integration's syncs, for validating what any of its scripts saves. */
export function modelsOf(integration: Pick<Integration, 'provider'>): Record<string, z.ZodType> {
  const models: Record<string, z.ZodType> = {};
  for (const [, def] of scriptsOf(integration)) if (def.type === 'sync') Object.assign(models, def.models);
  return models;
}

export function endpointsOfScript(def: ScriptDefinition) {
  return def.type === 'action' ? [def.endpoint] : def.endpoints;
}

/** A script may run only when one of its endpoints is activated on the integration. */
export async function isScriptEnabled(db: Queryable, integration: Integration, def: ScriptDefinition): Promise<boolean> {
  const enabled = new Set((await endpointStates(db, integration.id)).filter((s) => s.enabled).map(endpointKey));
  return endpointsOfScript(def).some((e) => enabled.has(endpointKey(e)));
}
