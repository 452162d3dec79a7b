/**
 * @module integrations/registry — which scripts (and so which endpoints) an integration has:
 * the pre-built scripts of its provider, present on every integration of that provider without a
 * deploy.
 */
export interface EndpointDeclaration {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  group?: string;
}

export interface ScriptDeclaration {
  name: string;
  type: 'sync' | 'action';
  endpoints: EndpointDeclaration[];
}

const declarations = new Map<string, ScriptDeclaration[]>();

/** Called by each provider's script index when it loads. */
export function declarePrebuiltScripts(provider: string, scripts: ScriptDeclaration[]): void {
  declarations.set(provider, scripts);
}

export function prebuiltScriptsFor(provider: string): ScriptDeclaration[] {
  return declarations.get(provider) ?? [];
}

export function endpointKey(e: { method: string; path: string }): string {
  return `${e.method.toUpperCase()} ${e.path}`;
}
