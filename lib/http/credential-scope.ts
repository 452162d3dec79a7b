/**
 * @module http/credential-scope — a connection's credentials go only to its provider: the origin of
 * the resolved base URL and the origins the provider's definition lists. A script's
 * `baseUrlOverride` or an absolute pagination link elsewhere (a CDN, a signed download URL, or a
 * hostile `next` link) is requested without them, rather than refused, so such links still work.
 */
import type { AuthInjection } from './provider-client.js';

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

export function credentialsFor(auth: AuthInjection, url: string, trusted: { baseUrl: string; origins?: readonly string[] }): AuthInjection {
  const origin = originOf(url);
  const allowed = [trusted.baseUrl, ...(trusted.origins ?? [])].map(originOf);
  return origin !== null && allowed.includes(origin) ? auth : { type: 'none' };
}
