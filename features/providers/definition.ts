/**
 * @module features/providers/definition — a provider as data: one zod schema for the definitions of
 * the catalogue (features/providers/catalog/*.yaml) and for user-defined providers. The shape is an
 * entry of Nango's `providers.yaml` (so a Nango user can paste theirs), plus `name` and `webhook`.
 * Unknown keys are kept and reported as warnings rather than refused, so newer Nango fields pass.
 */
import { z } from 'zod';

export const providerAuthModes = ['OAUTH2', 'OAUTH2_CC', 'API_KEY', 'BASIC', 'NONE', 'TWO_STEP'] as const;
export type ProviderAuthMode = (typeof providerAuthModes)[number];

/**
 * A URL, header value or query value that may hold `${connectionConfig.x}`, `${apiKey}`, `${username}`, `${password}`, `${accessToken}`,
 * `${credentials.x}` (a declared credentials field) and `${base64(...)}` around any of them.
 */
const template = z.string().min(1).max(2048);
const templatedUrl = template.regex(/^(?:https?:\/\/|\$\{)/, 'must be an http(s) URL or start with a ${...} placeholder');
const stringMap = z.record(z.string().min(1).max(256), z.string().max(2048));
/** A link shown to people (the dashboard, the Connect UI): http(s) only, never `javascript:` or `data:`. */
export const linkUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** Whether a stored value is a link safe to show (definitions stored before `linkUrl` was checked). */
export function isLinkUrl(value: unknown): value is string {
  return typeof value === 'string' && linkUrl.safeParse(value).success;
}

/** A field the end user fills in: connection_config (subdomain, region…) or credentials (apiKey, username…). */
export const providerFieldSchema = z
  .object({
    type: z.enum(['string', 'number', 'boolean']).default('string'),
    title: z.string().min(1).max(256),
    description: z.string().max(1024).optional(),
    example: z.string().max(256).optional(),
    pattern: z
      .string()
      .max(1024)
      .refine((p) => {
        try {
          new RegExp(p);
          return true;
        } catch {
          return false;
        }
      }, 'must be a valid regular expression')
      .optional(),
    optional: z.boolean().optional(),
    /**
     * The hosts a URL may have when this value is (part of) its host, as names or `*.`-patterns
     * (`*.okta.com`): the provider's documented domains. Without it, a value that is the whole host
     * may name any host, and one that is part of it must be a single label.
     */
    domains: z
      .array(
        z
          .string()
          .max(253)
          .regex(/^(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/, 'must be a host name or a *.-pattern (*.example.com)'),
      )
      .min(1)
      .max(32)
      .optional(),
    secret: z.boolean().optional(),
    doc_section: z.string().max(256).optional(),
  })
  .strict();
export type ProviderField = z.infer<typeof providerFieldSchema>;

export const providerPaginationSchema = z
  .object({
    type: z.enum(['cursor', 'link', 'offset']),
    limit_name_in_request: z.string().max(128).optional(),
    limit: z.number().int().positive().optional(),
    cursor_name_in_request: z.string().max(128).optional(),
    cursor_path_in_response: z.string().max(256).optional(),
    link_rel_in_response_header: z.string().max(64).optional(),
    link_path_in_response_body: z.string().max(256).optional(),
    offset_name_in_request: z.string().max(128).optional(),
    offset_start_value: z.number().int().optional(),
    offset_calculation_method: z.enum(['per-page', 'by-response-size']).optional(),
    response_path: z.string().max(256).optional(),
  })
  .strict();

export const providerWebhookSchema = z
  .object({
    /** The request header that carries the signature, e.g. `X-Hub-Signature-256`. */
    signature_header: z.string().min(1).max(128),
    algorithm: z.enum(['hmac-sha256', 'hmac-sha1']),
    encoding: z.enum(['hex', 'base64']).default('hex'),
    /** Text before the digest in the header, e.g. `sha256=`. */
    signature_prefix: z.string().max(32).optional(),
    /** Which secret signs: the integration's OAuth client secret, or a webhook secret set on the integration. */
    secret: z.enum(['client_secret', 'webhook_secret']),
    /** Where in the JSON body the connection is found, matched against `connection_config.<connection_config_key>`. */
    routing: z
      .object({ body_path: z.string().min(1).max(256), connection_config_key: z.string().min(1).max(128) })
      .strict()
      .optional(),
  })
  .strict();

/**
 * TWO_STEP (Nango's keys): where the token is in the token request's response, and its expiry, a
 * number of seconds (`expireIn`) or a date or epoch time (`expireAt`, the default).
 */
export const providerTokenResponseSchema = z
  .object({
    token: z.string().min(1).max(256),
    token_expiration: z.string().min(1).max(256).optional(),
    token_expiration_strategy: z.enum(['expireIn', 'expireAt']).optional(),
    refresh_token: z.string().min(1).max(256).optional(),
  })
  .catchall(z.unknown());

export type ProviderWebhookSettings = z.output<typeof providerWebhookSchema>;

const knownKeys = [
  'name',
  'display_name',
  'categories',
  'auth_mode',
  'authorization_url',
  'token_url',
  'refresh_url',
  'authorization_params',
  'token_params',
  'refresh_params',
  'scope_separator',
  'default_scopes',
  'disable_pkce',
  'token_request_auth_method',
  'body_format',
  'token_response_metadata',
  'token_headers',
  'token_response',
  'token_expires_in_ms',
  'token_request_method',
  'proxy',
  'connection_config',
  'credentials',
  'docs',
  'docs_connect',
  'webhook',
] as const;

export const providerDefinitionSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" and "-", starting with a letter or digit'),
    display_name: z.string().min(1).max(128),
    categories: z.array(z.string().min(1).max(64)).max(16).default([]),
    auth_mode: z.enum(providerAuthModes),
    authorization_url: templatedUrl.optional(),
    token_url: templatedUrl.optional(),
    refresh_url: templatedUrl.optional(),
    authorization_params: stringMap.optional(),
    token_params: stringMap.optional(),
    refresh_params: stringMap.optional(),
    scope_separator: z.string().min(1).max(8).optional(),
    default_scopes: z.array(z.string().min(1).max(512)).max(64).optional(),
    disable_pkce: z.boolean().optional(),
    /** `basic`: client id and secret go in an Authorization: Basic header of the token request; `body` (default): in the body. */
    token_request_auth_method: z.enum(['basic', 'body']).optional(),
    /** Encoding of the token request body. */
    body_format: z.enum(['form', 'json']).optional(),
    /** Token-response fields kept in the connection's config (dot paths, e.g. `team.id`). */
    token_response_metadata: z.array(z.string().min(1).max(256)).max(32).optional(),
    /** TWO_STEP: headers of the token request (templates, e.g. `Basic ${base64(${credentials.id}:${credentials.key})}`). */
    token_headers: stringMap.optional(),
    /** TWO_STEP: where the token and its expiry are in the token request's response. */
    token_response: providerTokenResponseSchema.optional(),
    /** TWO_STEP: the token's lifetime when the response does not give one (0: none). */
    token_expires_in_ms: z.number().int().nonnegative().optional(),
    /** TWO_STEP: the token request's method (default POST). */
    token_request_method: z.enum(['GET', 'POST']).optional(),
    proxy: z
      .object({
        base_url: templatedUrl,
        headers: stringMap.optional(),
        query: stringMap.optional(),
        retry: z
          .object({
            /** A header holding the time (epoch seconds or HTTP date) at which to retry. */
            at: z.string().min(1).max(128).optional(),
            /** A header holding how many seconds to wait. */
            after: z.string().min(1).max(128).optional(),
          })
          .strict()
          .optional(),
        verification: z
          .object({
            method: z.enum(['GET', 'POST', 'HEAD']).default('GET'),
            endpoints: z.array(z.string().min(1).max(1024).startsWith('/')).min(1).max(4),
            base_url_override: templatedUrl.optional(),
            headers: stringMap.optional(),
          })
          .strict()
          .optional(),
        paginate: providerPaginationSchema.optional(),
        /** Origins besides the base URL's that may receive the credentials (a script's baseUrlOverride, an absolute pagination link). */
        credential_origins: z.array(templatedUrl).max(16).optional(),
      })
      .strict()
      .optional(),
    connection_config: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), providerFieldSchema).optional(),
    credentials: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), providerFieldSchema).optional(),
    /** The provider's own documentation page for these facts. */
    docs: linkUrl,
    /** A page for the end user on how to find what the Connect UI asks (Nango's Connect UI links it). */
    docs_connect: linkUrl.optional(),
    webhook: providerWebhookSchema.optional(),
  })
  .catchall(z.unknown())
  .superRefine((d, ctx) => {
    const oauth = d.auth_mode === 'OAUTH2' || d.auth_mode === 'OAUTH2_CC';
    const twoStep = d.auth_mode === 'TWO_STEP';
    if (d.auth_mode === 'OAUTH2' && !d.authorization_url)
      ctx.addIssue({ code: 'custom', path: ['authorization_url'], message: 'is required when auth_mode is OAUTH2' });
    if ((oauth || twoStep) && !d.token_url) ctx.addIssue({ code: 'custom', path: ['token_url'], message: `is required when auth_mode is ${d.auth_mode}` });
    if (twoStep && !d.token_response) ctx.addIssue({ code: 'custom', path: ['token_response'], message: 'is required when auth_mode is TWO_STEP' });
    if (!oauth) {
      for (const key of ['authorization_url', 'token_url', 'refresh_url', 'default_scopes'] as const) {
        if (d[key] !== undefined && !(twoStep && key === 'token_url'))
          ctx.addIssue({ code: 'custom', path: [key], message: `only applies when auth_mode is OAUTH2 or OAUTH2_CC` });
      }
    }
    for (const [where, value] of placeholderSites(d)) {
      for (const m of value.replace(BASE64, '$1').matchAll(/\$\{([^}]*)\}/g)) {
        const ref = m[1]!;
        const configKey = /^connectionConfig\.([A-Za-z][A-Za-z0-9_]*)$/.exec(ref)?.[1];
        const credentialKey = /^credentials\.([A-Za-z][A-Za-z0-9_]*)$/.exec(ref)?.[1];
        if (configKey !== undefined) {
          if (!d.connection_config?.[configKey])
            ctx.addIssue({ code: 'custom', path: where, message: `uses \${${ref}} but connection_config has no "${configKey}" field` });
        } else if (credentialKey !== undefined) {
          if (!d.credentials?.[credentialKey])
            ctx.addIssue({ code: 'custom', path: where, message: `uses \${${ref}} but credentials has no "${credentialKey}" field` });
        } else if (!PLACEHOLDERS.has(ref)) {
          ctx.addIssue({ code: 'custom', path: where, message: `unknown placeholder \${${ref}}` });
        }
      }
    }
  });

export type ProviderDefinition = z.output<typeof providerDefinitionSchema>;
export type ProviderDefinitionInput = z.input<typeof providerDefinitionSchema>;

const PLACEHOLDERS = new Set(['apiKey', 'username', 'password', 'accessToken', 'clientId']);
/** `${base64(...)}`: its content is a template like any other (checked without the wrapper). */
const BASE64 = /\$\{base64\(([^()]*)\)\}/g;

function* placeholderSites(d: z.output<typeof providerDefinitionSchema>): Generator<[(string | number)[], string]> {
  for (const key of ['authorization_url', 'token_url', 'refresh_url'] as const) if (d[key]) yield [[key], d[key]!];
  for (const key of ['authorization_params', 'token_params', 'refresh_params', 'token_headers'] as const)
    for (const [k, v] of Object.entries(d[key] ?? {})) yield [[key, k], v];
  if (!d.proxy) return;
  yield [['proxy', 'base_url'], d.proxy.base_url];
  for (const part of ['headers', 'query'] as const) for (const [k, v] of Object.entries(d.proxy[part] ?? {})) yield [['proxy', part, k], v];
  if (d.proxy.verification?.base_url_override) yield [['proxy', 'verification', 'base_url_override'], d.proxy.verification.base_url_override];
  for (const [i, origin] of (d.proxy.credential_origins ?? []).entries()) yield [['proxy', 'credential_origins', i], origin];
}

/** Keys the schema does not know: kept in the stored definition, reported to the user as warnings. */
export function unknownKeys(input: Record<string, unknown>): string[] {
  return Object.keys(input).filter((k) => !(knownKeys as readonly string[]).includes(k));
}
