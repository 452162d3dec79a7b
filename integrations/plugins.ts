/**
 * @module integrations/plugins — the registry of provider plugins (integrations/plugin.ts): the one
 * list of providers with platform-side code of their own. Generic code asks `pluginFor(provider)`.
 */
import type { PluginDeps, ProviderPlugin } from './plugin.js';
import { checkrPlugin } from './checkr-partner/plugin/index.js';

const plugins: readonly ProviderPlugin[] = [checkrPlugin];

const byProvider = new Map<string, ProviderPlugin>(plugins.flatMap((p) => p.providers.map((name) => [name, p] as const)));

/** The plugin of a provider (catalogue name), if it has one. */
export function pluginFor(provider: string): ProviderPlugin | undefined {
  return byProvider.get(provider);
}

/** Whether a provider signs and routes its webhooks itself (else the integration's secret proves them). */
export function hasOwnWebhooks(provider: string): boolean {
  return Boolean(pluginFor(provider)?.webhooks);
}

/** The activities of every plugin's workflows (their names are unique across plugins and the platform). */
export function pluginActivities(deps: PluginDeps): Record<string, (...args: never[]) => Promise<unknown>> {
  return Object.assign({}, ...plugins.map((p) => p.activities?.(deps) ?? {}));
}
