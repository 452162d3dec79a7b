/**
 * @module features/connections/jwt — auth_mode JWT: a token Switchyard signs itself from the fields
 * the end user entered (a key and its ids), as the definition's `signature` and `token` describe
 * (Nango's keys): `token.header` and `token.payload` filled with `${credentials.x}` and
 * `${connectionConfig.x}`, `iat` and `exp` added (`exp` = now + `token.expires_in_ms`), signed with
 * `token.signing_key` by HMAC (`signature.protocol: HMAC`, the secret hex unless
 * `hmac_secret_encoding: utf8`), RSA or EC. `${fingerprint(${credentials.key})}` is the entered
 * private key's public key fingerprint (Snowflake's `iss`). Signed again before it expires (refresh.ts).
 */
import { ValidationFailed } from '../../lib/errors.js';
import { InvalidSigningKey, jwtAlgorithms, publicKeyFingerprint, signJwt, type JwtAlgorithm } from '../../lib/jwt.js';
import type { ProviderDefinition } from '../providers/definition.js';
import { twoStepFields, type StoredJwtCredentials } from './credentials.js';
import { OAuthError } from './oauth.js';
import type { Endpoints } from './target.js';

type TokenSpec = NonNullable<ProviderDefinition['token']>;

/** `${fingerprint(${credentials.key})}` (Nango's): the public key fingerprint of the entered private key, `SHA256:<base64>`. */
const FINGERPRINT = /\$\{fingerprint\(\$\{credentials\.([A-Za-z][\w-]*)\}\)\}/g;

/** The template with each `${fingerprint(...)}` replaced by the fingerprint (text without placeholders), so the key itself is never filled in. */
function withFingerprints(template: string, fields: Record<string, string>): string {
  return template.replace(FINGERPRINT, (_, key: string) => {
    const pem = fields[key];
    if (!pem) throw new OAuthError('invalid_credentials', `${key} is missing`);
    try {
      return publicKeyFingerprint(pem);
    } catch (err) {
      throw new OAuthError('invalid_credentials', `the private key cannot sign: ${(err as Error).message}`);
    }
  });
}

/**
 * The values templates may use: the fields, and for a field used as `${credentials.key.id}` and
 * `${credentials.key.secret}` (Ghost's Admin API key `id:secret`), its two halves.
 */
function templateCredentials(spec: TokenSpec, fields: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields };
  const text = JSON.stringify(spec);
  for (const m of text.matchAll(/\$\{credentials\.([A-Za-z][\w-]*)\.(id|secret)\}/g)) {
    const value = fields[m[1]!];
    const at = value?.indexOf(':') ?? -1;
    if (value !== undefined && at > 0) out[m[1]!] = { id: value.slice(0, at), secret: value.slice(at + 1) };
  }
  return out;
}

/** The lifetime of the definition's tokens. */
export function jwtLifetimeMs(d: ProviderDefinition): number {
  return d.token?.expires_in_ms ?? 0;
}

/** A newly signed token for the entered fields (a new connection's, or a renewal with the stored ones). */
export function jwtToken(opts: { endpoints: Endpoints; credentials: Record<string, unknown>; now: Date }): StoredJwtCredentials {
  const { endpoints } = opts;
  const d = endpoints.provider.definition;
  const spec = d.token;
  if (d.auth_mode !== 'JWT' || !spec?.signing_key || !d.signature) throw new OAuthError('invalid_auth_mode', `${d.name} has no JWT signing settings`);
  const fields = twoStepFields(opts.credentials);
  for (const [key, field] of Object.entries(d.credentials ?? {})) {
    if (!field.optional && !fields[key])
      throw new ValidationFailed(
        'missing_credentials',
        [{ code: 'invalid_value', message: `is required: ${field.title ?? key}`, path: ['credentials', key] }],
        `credentials.${key} is required: ${field.title ?? key}`,
      );
  }
  const vars = templateCredentials(spec, fields);
  const fill = (template: string) => endpoints.fillWithCredentials(withFingerprints(template, fields), vars);
  // A claim whose value this connection lacks (an optional field) is left out, as Nango does.
  const claims = (map: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(map)) {
      if (typeof v === 'string') {
        const filled = fill(v);
        if (filled !== undefined) out[k] = filled;
      } else if (Array.isArray(v)) {
        const items = v
          .flatMap((item) => (typeof item === 'string' ? (fill(item)?.split(',') ?? []) : [item]))
          .map((s) => (typeof s === 'string' ? s.trim() : s));
        const present = items.filter((s) => s !== '');
        if (present.length) out[k] = present;
      } else out[k] = v;
    }
    return out;
  };
  const alg = spec.header.alg as JwtAlgorithm;
  if (!jwtAlgorithms.includes(alg)) throw new OAuthError('invalid_auth_mode', `${d.name}: token.header.alg ${String(alg)} is not supported`);
  const key = fill(spec.signing_key);
  if (key === undefined) throw new OAuthError('invalid_credentials', `${d.name}: the signing key is missing`);
  const iat = Math.floor(opts.now.getTime() / 1000);
  const payload = { ...claims(spec.payload ?? {}), iat, exp: iat + Math.floor(spec.expires_in_ms / 1000) };
  const hmacKey = d.signature.hmac_secret_encoding === 'utf8' ? key : Buffer.from(key, 'hex');
  if (d.signature.protocol === 'HMAC' && d.signature.hmac_secret_encoding !== 'utf8' && !/^(?:[0-9a-fA-F]{2})+$/.test(key))
    throw new OAuthError('invalid_credentials', 'the secret must be hexadecimal');
  let token: string;
  try {
    token = signJwt({ alg, header: claims(spec.header), payload, key: d.signature.protocol === 'HMAC' ? hmacKey : key });
  } catch (err) {
    if (err instanceof InvalidSigningKey) throw new OAuthError('invalid_credentials', `the private key cannot sign: ${err.message}`);
    throw err;
  }
  return { ...fields, type: 'JWT', token, expires_at: new Date(opts.now.getTime() + spec.expires_in_ms).toISOString() };
}
