/**
 * @module http/redact — URLs as they may be written to the request log: credentials in the
 * userinfo and in query parameters with secret-looking names replaced by `[redacted]`.
 */

export const REDACTED = '[redacted]';

const SECRET_WORDS = ['token', 'key', 'secret', 'password', 'signature', 'code', 'auth', 'sig', 'access_token', 'api_key', 'apikey', 'client_secret'];

export function isSecretParamName(name: string): boolean {
  const n = name.toLowerCase();
  return SECRET_WORDS.some((w) => n.includes(w));
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** A request path as it may be logged: the secret that ends a provider webhook URL (webhooks/incoming) is replaced. */
export function redactPath(path: string): string {
  return path.replace(/^(\/webhook\/[^/]+\/[^/]+\/)[^/]+/, `$1${REDACTED}`);
}

/** Redacts a query string (with or without its leading `?`), keeping the other parameters byte for byte. */
export function redactQuery(search: string): string {
  const body = search.startsWith('?') ? search.slice(1) : search;
  if (!body) return '';
  const parts = body.split('&').map((part) => {
    const eq = part.indexOf('=');
    const name = eq === -1 ? part : part.slice(0, eq);
    return isSecretParamName(decodeName(name)) && eq !== -1 ? `${name}=${REDACTED}` : part;
  });
  return `?${parts.join('&')}`;
}

/** The fragment is dropped: it never reaches the server and may carry tokens (implicit OAuth flows). */
export function redactUrl(url: string | URL): string {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return REDACTED;
  }
  const userinfo = u.username || u.password ? `${REDACTED}@` : '';
  return `${u.protocol}//${userinfo}${u.host}${u.pathname}${redactQuery(u.search)}`;
}
