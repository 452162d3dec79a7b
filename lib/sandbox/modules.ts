/**
 * @module sandbox/modules — the modules besides the SDK and zod that Nango's CLI lets a function
 * import, and what `switchyard compile` bundles for each: a few lines over the sandbox's own
 * implementation (lib/sandbox/isolate/node-modules.ts, global `__sy_modules`), so what a bundle gets
 * is decided by the platform that runs it. `nango/experimental`'s createFunction is refused when the
 * bundle loads (at compile time), naming it.
 */

/** The named exports a bundle may import from each module (a name missing here fails the bundle, naming it). */
const EXPORTS = {
  url: ['URL', 'URLSearchParams'],
  crypto: ['createHash', 'createHmac', 'randomUUID', 'randomBytes', 'getRandomValues', 'timingSafeEqual'],
  soap: [
    'createClient',
    'createClientAsync',
    'Client',
    'HttpClient',
    'security',
    'WSSecurity',
    'WSSecurityCert',
    'BasicAuthSecurity',
    'BearerSecurity',
    'ClientSSLSecurity',
    'NTLMSecurity',
  ],
  unzipper: ['Open', 'Parse', 'ParseOne', 'Extract'],
  botbuilder: ['CloudAdapter', 'ConfigurationBotFrameworkAuthentication', 'TurnContext', 'MessageFactory', 'CardFactory', 'ActivityTypes', 'TeamsInfo'],
} as const;

type Module = keyof typeof EXPORTS | 'nango/experimental';

/** The module an import path names (`node:crypto` is `crypto`), or null for any other path. */
export function sandboxModuleOf(importPath: string): Module | null {
  const bare = importPath.replace(/^node:/, '');
  if (bare === 'nango/experimental') return bare;
  if (Object.hasOwn(EXPORTS, bare) && (bare === importPath || bare === 'url' || bare === 'crypto')) return bare as keyof typeof EXPORTS;
  return null;
}

/** The import paths of those modules, for esbuild's onResolve. */
export const SANDBOX_MODULE_FILTER = /^(?:(?:node:)?(?:url|crypto)|soap|unzipper|botbuilder|nango\/experimental)$/;

/** The JavaScript a bundle gets for the module. */
export function sandboxModuleSource(module: Module): string {
  if (module === 'nango/experimental') {
    return [
      'function createFunction() {',
      `  throw new Error("createFunction (from 'nango/experimental') is not supported by Switchyard: write the function with createSync, createAction or createOnEvent from 'nango'");`,
      '}',
      'export { createFunction, createFunction as deriveFunctionCapabilities };',
    ].join('\n');
  }
  const m = module === 'url' || module === 'crypto' ? `globalThis.__sy_modules.${module}` : `globalThis.__sy_modules.unavailable(${JSON.stringify(module)})`;
  return [`const m = ${m};`, 'export default m;', ...EXPORTS[module].map((name) => `export const ${name} = m.${name};`)].join('\n');
}
