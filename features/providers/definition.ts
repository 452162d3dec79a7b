/**
 * @module features/providers/definition — a provider as data: one zod schema for the definitions of
 * the catalogue (features/providers/catalog/*.yaml) and for user-defined providers. The shape is an
 * entry of Nango's `providers.yaml` (so a Nango user can paste theirs), plus `name` and `webhook`.
 * Unknown keys are kept and reported as warnings rather than refused, so newer Nango fields pass.
 */
import { z } from 'zod';
import { jwtAlgorithms } from '../../lib/jwt.js';
import { OAUTH1_SIGNATURE_METHODS } from '../../lib/http/oauth1.js';
import { isNangoOnlyPlaceholder, nangoAuthModes, nangoKeys } from './nango-format.js';

export const providerAuthModes = [
  'OAUTH2',
  'OAUTH2_CC',
  'API_KEY',
  'BASIC',
  'NONE',
  'TWO_STEP',
  'JWT',
  'APP',
  'AWS_SIGV4',
  'MCP_OAUTH2',
  'MCP_OAUTH2_GENERIC',
  'OAUTH1',
  'TBA',
  'SIGNATURE',
  'CUSTOM',
  'BILL',
] as const;
/** The auth modes whose end user authorizes in the provider's pages (the authorization-code flow, api/routes/connect.ts). */
export const authorizationCodeModes: readonly ProviderAuthMode[] = ['OAUTH2', 'MCP_OAUTH2', 'MCP_OAUTH2_GENERIC'];
export type ProviderAuthMode = (typeof providerAuthModes)[number];

/**
 * A URL, header value or query value that may hold `${connectionConfig.x}`, `${apiKey}`, `${username}`,
 * `${password}`, `${accessToken}`, `${clientId}`, `${credentials.x}` and `${base64(...)}` around any of
 * them; alternatives separated by ` || ` (Nango's): the first whose placeholders all have values is used.
 */
const template = z.string().min(1).max(2048);
const templatedUrl = template.refine(
  (t) => t.split(ALTERNATIVES).every((alt) => /^(?:https?:\/\/|\$\{)/.test(alt)),
  'must be an http(s) URL or start with a ${...} placeholder',
);
const stringMap = z.record(z.string().min(1).max(256), z.string().max(2048));
/** A YAML scalar as text (`session: false`, `version: 2` in Nango's entries). */
const scalar = z.union([z.string().max(2048), z.number().transform(String), z.boolean().transform(String)]);
/** OAuth parameters: text, or (Nango's other auth modes) nested objects, kept as they are. */
const params = z.record(z.string().min(1).max(256), z.union([scalar, z.record(z.string(), z.unknown())]));
/** Nango writes some flags as text. */
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
/** One response header, or several tried in order (Nango's). */
const headerNames = z.union([z.string().min(1).max(128), z.array(z.string().min(1).max(128)).min(1).max(8)]);
/** connection_config and credentials keys; Nango's have `-` and `.` (`accounts-server`, `installation.uuid`). */
const fieldKey = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'letters, digits, "_", "-" and ".", starting with a letter');
/** ` || ` between alternatives of a template. */
export const ALTERNATIVES = /\s*\|\|\s*/;
/** A link shown to people (the dashboard, the Connect UI): http(s) only, never `javascript:` or `data:`. */
export const linkUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** Whether a stored value is a link safe to show (definitions stored before `linkUrl` was checked). */
export function isLinkUrl(value: unknown): value is string {
  return typeof value === 'string' && linkUrl.safeParse(value).success;
}

export function isValidRegExp(p: string): boolean {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * A field the end user fills in: connection_config (subdomain, region…) or credentials (apiKey,
 * username…), with Nango's field keys. `enum` and `default_value` make a choice with a default (the
 * Connect UI offers a select; the API applies the default and refuses another value); `order`,
 * `hidden`, `prefix` and `suffix` shape the Connect UI's form; an `automated` field is filled by
 * Switchyard after authorization, never asked.
 */
export const providerFieldSchema = z
  .object({
    type: z.enum(['string', 'number', 'boolean']).default('string'),
    /** Nango leaves it empty on automated fields; the key stands in. */
    title: z.string().max(256).optional(),
    description: z.string().max(1024).optional(),
    example: scalar.optional(),
    /** Checked against values; one that is not a valid regular expression is kept with a warning and not checked. */
    pattern: z.string().max(1024).optional(),
    optional: flag.optional(),
    secret: flag.optional(),
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
    doc_section: z.string().max(256).optional(),
    enum: z.array(scalar).min(1).max(64).optional(),
    default_value: scalar.optional(),
    order: z.number().optional(),
    hidden: flag.optional(),
    automated: flag.optional(),
    prefix: z.string().max(256).optional(),
    suffix: z.string().max(256).optional(),
  })
  .catchall(z.unknown())
  .superRefine((f, ctx) => {
    if (f.enum && f.default_value !== undefined && !f.enum.includes(f.default_value))
      ctx.addIssue({ code: 'custom', path: ['default_value'], message: `must be one of ${f.enum.join(', ')}` });
  });
export type ProviderField = z.infer<typeof providerFieldSchema>;

export const providerPaginationSchema = z
  .object({
    type: z.enum(['cursor', 'link', 'offset']),
    limit_name_in_request: z.string().max(128).optional(),
    limit: z.union([z.number().int().positive(), z.string().regex(/^\d+$/, 'a positive whole number')]).optional(),
    cursor_name_in_request: z.string().max(128).optional(),
    cursor_path_in_response: z.string().max(256).optional(),
    link_rel_in_response_header: z.string().max(64).optional(),
    link_path_in_response_body: z.string().max(256).optional(),
    offset_name_in_request: z.string().max(128).optional(),
    offset_start_value: z.number().int().optional(),
    offset_calculation_method: z.enum(['per-page', 'by-response-size']).optional(),
    response_path: z.string().max(256).optional(),
  })
  .catchall(z.unknown());

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
    /**
     * Where in the JSON body the connection is found, matched against `connection_config.<connection_config_key>`:
     * only a value the provider returned (`token_response_metadata`) or the developer set routes, never one the end user typed.
     */
    routing: z
      .object({ body_path: z.string().min(1).max(256), connection_config_key: z.string().min(1).max(128) })
      .strict()
      .optional(),
    /** A header with the time the provider sent the webhook, in Unix seconds (e.g. `X-Slack-Request-Timestamp`): one more than 5 minutes off is refused as a replay. */
    timestamp_header: z.string().min(1).max(128).optional(),
    /** What the HMAC covers: `${body}` (the default), or a template of `${timestamp}` and `${body}`, e.g. `v0:${timestamp}:${body}` (Slack). */
    signed_payload: z
      .string()
      .min(1)
      .max(256)
      .refine((t) => t.split('${body}').length === 2, 'must hold ${body} once')
      .refine((t) => [...t.matchAll(/\$\{([^}]*)\}/g)].every((m) => m[1] === 'body' || m[1] === 'timestamp'), 'may only use ${timestamp} and ${body}')
      .optional(),
  })
  .strict()
  .superRefine((w, ctx) => {
    const signsTimestamp = w.signed_payload?.includes('${timestamp}') ?? false;
    // A timestamp the signature does not cover proves nothing: anyone could replay the body with a fresh one.
    if (w.timestamp_header && !signsTimestamp)
      ctx.addIssue({
        code: 'custom',
        path: ['signed_payload'],
        message: 'must hold ${timestamp} when timestamp_header is set, so that the signature covers it',
      });
    if (signsTimestamp && !w.timestamp_header)
      ctx.addIssue({ code: 'custom', path: ['timestamp_header'], message: 'is required when signed_payload uses ${timestamp}' });
  });

/**
 * A response path: dot-separated names (`dc`, `0.id`: a number indexes an array), a name may end in
 * `[field=value]` to pick the first array element whose field has that value (`accounts[is_default=true].base_uri`).
 */
const responsePath = z
  .string()
  .min(1)
  .max(256)
  .regex(/^(?:[A-Za-z0-9_$-]*(?:\[[A-Za-z0-9_$-]+=[^\]]*\])?)(?:\.[A-Za-z0-9_$-]*(?:\[[A-Za-z0-9_$-]+=[^\]]*\])?)*$/, 'must be a dot path');

export const postConnectionSchema = z
  .object({
    method: z.enum(['GET', 'POST']).default('GET'),
    /** Joined to `base_url_override` (else the proxy's base URL), like a verification endpoint. */
    endpoint: z.string().min(1).max(1024).startsWith('/'),
    base_url_override: templatedUrl.optional(),
    /** Headers of this call (`${accessToken}` allowed); without an Authorization header the connection's auth is added. */
    headers: stringMap.optional(),
    /** connection_config key → path in the JSON answer. A value the end user gave is kept. */
    set: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), responsePath).refine((m) => Object.keys(m).length > 0, 'must name at least one key'),
  })
  .strict();

/**
 * A GET whose query (`${accessToken}`, `${clientId}`, `${clientSecret}` filled) is answered with a
 * new token as an OAuth token response: `access_token`, `expires_in`. Our own keys: Nango does
 * Instagram's in code.
 */
export const accessTokenRequestSchema = z.object({ method: z.literal('GET').default('GET'), url: templatedUrl, params: stringMap }).strict();

/**
 * TWO_STEP (Nango's keys): where the token is in the token request's response, and its expiry, a
 * number of seconds (`expireIn`) or a date or epoch time (`expireAt`, the default).
 */
export const providerTokenResponseSchema = z
  .object({
    /** Empty: the whole answer is the token. */
    token: z.string().max(256),
    token_expiration: z.string().min(1).max(256).optional(),
    token_expiration_strategy: z.enum(['expireIn', 'expireAt']).optional(),
    refresh_token: z.string().min(1).max(256).optional(),
  })
  .catchall(z.unknown());

export type ProviderWebhookSettings = z.output<typeof providerWebhookSchema>;

/**
 * Nango's `signature`: for JWT how the token is signed (HMAC with the secret hex or `utf8`, RSA or EC;
 * checked with the auth mode), for SIGNATURE `WSSE`; other modes' values are kept.
 */
export const jwtSignatureSchema = z
  .object({ protocol: z.string().min(1).max(32), hmac_secret_encoding: z.enum(['hex', 'utf8']).optional() })
  .catchall(z.unknown());
export const JWT_SIGNATURE_PROTOCOLS = ['HMAC', 'RSA', 'EC'] as const;

/** JWT: the token Switchyard signs (Nango's `token`): its key, lifetime, header and claims, templates of `${credentials.x}` and `${connectionConfig.x}`. */
export const jwtTokenSchema = z
  .object({
    signing_key: template,
    expires_in_ms: z
      .number()
      .int()
      .positive()
      .max(366 * 24 * 3600 * 1000),
    header: z.object({ alg: z.enum(jwtAlgorithms), typ: z.string().max(64).optional(), kid: template.optional() }).catchall(scalar),
    payload: z.record(z.string().min(1).max(128), z.union([scalar, z.array(z.string().max(2048)).max(32)])).default({}),
  })
  .catchall(z.unknown());

/**
 * TWO_STEP (Nango's `assertion`): a signed assertion Switchyard makes before the token request, there
 * as `${credentials.assertion}`. `saml`: a SAML 2.0 bearer Assertion (RFC 7522) signed with `key`
 * (lib/saml-assertion.ts); its Recipient is `recipient`, else the token URL requested. Templates of
 * `${credentials.x}` and `${connectionConfig.x}`.
 */
export const assertionSchema = z
  .object({
    type: z.literal('saml'),
    key: template,
    issuer: template,
    nameIdentifier: template,
    recipient: templatedUrl.optional(),
    audiences: z.union([template, z.array(template).min(1).max(8)]),
    // Nango's SuccessFactors entry asks ten years.
    lifetimeInSeconds: z.coerce
      .number()
      .int()
      .positive()
      .max(20 * 366 * 24 * 3600)
      .default(600),
    sessionIndex: template.optional(),
    attributes: z.record(z.string().min(1).max(128), scalar).default({}),
  })
  .catchall(z.unknown());

export const providerDefinitionSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" and "-", starting with a letter or digit'),
    /** The name stands in when there is none. */
    display_name: z.string().min(1).max(128).optional(),
    categories: z.array(z.string().min(1).max(64)).max(16).default([]),
    auth_mode: z.enum(providerAuthModes, {
      error: (iss) =>
        typeof iss.input === 'string' && (nangoAuthModes as readonly string[]).includes(iss.input)
          ? `${iss.input} is not supported yet (supported: ${providerAuthModes.join(', ')})`
          : `must be one of ${providerAuthModes.join(', ')}`,
    }),
    /** Another provider this one is a name for (Nango's): resolved before parsing (alias.ts); kept to say so. */
    alias: z.string().min(1).max(64).optional(),
    authorization_url: templatedUrl.optional(),
    /** One URL, or one per auth mode (Nango's: `OAUTH2`, `OAUTH2CC`, `APP`, …). */
    token_url: z.union([templatedUrl, z.record(z.string().min(1).max(32), templatedUrl)]).optional(),
    refresh_url: templatedUrl.optional(),
    authorization_params: params.optional(),
    /** Parameter names of the authorization URL replaced (TikTok's `client_id: client_key`; empty: left out); the client id's also in token requests. */
    authorization_url_replacements: z.record(z.string().min(1).max(64), z.string().max(64)).optional(),
    token_params: params.optional(),
    refresh_params: params.optional(),
    /**
     * OAUTH2: names of the token and refresh requests' parameters replaced, OAuth's (`client_id`,
     * `client_secret`, `code`, `redirect_uri`, …) by the provider's (TikTok's Business API: `app_id`,
     * `secret`, `auth_code`); empty: left out. Its `client_id` wins over `authorization_url_replacements`'.
     * Our own key: Nango does TikTok's token requests in code.
     */
    token_request_replacements: z.record(z.string().min(1).max(64), z.string().max(64)).optional(),
    /** OAUTH2: where the token endpoint's JSON answer has its fields (TikTok's Business API: `data`); our own key. */
    token_response_root: responsePath.optional(),
    scope_separator: z.string().min(1).max(8).optional(),
    default_scopes: z.array(z.string().min(1).max(512)).max(64).optional(),
    disable_pkce: flag.optional(),
    /**
     * `basic`: client id and secret go in an Authorization: Basic header of the token request; `body`
     * (default): in the body. Nango's `custom` and `private_key_jwt` are kept with a warning.
     */
    token_request_auth_method: z.enum(['basic', 'body', 'custom', 'private_key_jwt']).optional(),
    /** OAUTH2_CC over mutual TLS (ADP): the connection's `client_certificate` and `client_private_key` are presented to the token endpoint and the API. */
    require_client_certificate: flag.optional(),
    /** Nango's other name for the same choice: `header` is `basic`. */
    authorization_method: z.enum(['body', 'header']).optional(),
    /** Encoding of the token request body; Nango's `query` and `xml` are kept with a warning. */
    body_format: z.enum(['form', 'json', 'query', 'xml']).optional(),
    /** Token-response fields kept in the connection's config (dot paths, e.g. `team.id`). */
    token_response_metadata: z.array(z.string().min(1).max(256)).max(32).optional(),
    /** Query parameters of the OAuth redirect kept in the connection's config (QuickBooks' `realmId`). */
    redirect_uri_metadata: z.array(z.string().min(1).max(128)).max(16).optional(),
    /** A call made with the new token before the connection is saved, whose answer fills connection_config. */
    post_connection: postConnectionSchema.optional(),
    /**
     * BASIC whose username and password are an AWS access key id and secret (Nango's `aws-iam`): every
     * request signed with Signature Version 4 for this service, in connection_config `region`.
     */
    aws_sigv4: z
      .object({ service: z.string().regex(/^[a-z0-9-]{1,64}$/) })
      .strict()
      .optional(),
    /** OAUTH2: the code exchange's token traded at once for the answer of this request (Instagram's long-lived token). */
    access_token_exchange: accessTokenRequestSchema.optional(),
    /** OAUTH2: the access token renewed by this request before it expires, without a refresh token (Instagram's `ig_refresh_token`). */
    access_token_refresh: accessTokenRequestSchema.optional(),
    /** TWO_STEP: headers of the token request (templates, e.g. `Basic ${base64(${credentials.id}:${credentials.key})}`). */
    token_headers: stringMap.optional(),
    /** TWO_STEP: where the token and its expiry are in the token request's response. */
    token_response: providerTokenResponseSchema.optional(),
    /** TWO_STEP: the token's lifetime when the response does not give one (0: none). */
    token_expires_in_ms: z.number().int().nonnegative().optional(),
    /** TWO_STEP: the token request's method (default POST); GET and PUT send the parameters in the query (Tripletex's PUT /token/session/:create). */
    token_request_method: z.enum(['GET', 'POST', 'PUT']).optional(),
    /** How a signed value is made: SIGNATURE's `WSSE` (an X-WSSE UsernameToken); Nango's JWT modes name their key type here. */
    signature: jwtSignatureSchema.optional(),
    /** OAUTH1: the temporary-credentials (request token) URL (Nango's name). */
    request_url: templatedUrl.optional(),
    /** OAUTH1: parameters of the request-token request, signed with it. */
    request_params: params.optional(),
    /** OAUTH1: how requests are signed (RFC 5849 3.4). */
    signature_method: z.enum(OAUTH1_SIGNATURE_METHODS).optional(),
    /** OAUTH1: the methods of the request-token and access-token requests (default POST). */
    request_http_method: z.enum(['GET', 'POST']).optional(),
    token_http_method: z.enum(['GET', 'POST']).optional(),
    proxy: z
      .object({
        base_url: templatedUrl,
        headers: stringMap.optional(),
        query: stringMap.optional(),
        /** Fields merged into every JSON request body (Mandrill's `key`), templates like `headers`; nested objects are kept, not sent. */
        body: z.record(z.string().min(1).max(256), z.union([z.string().max(2048), z.record(z.string(), z.unknown())])).optional(),
        retry: z
          .object({
            /** Headers holding the time (epoch seconds or HTTP date) at which to retry. */
            at: headerNames.optional(),
            /** Headers holding how many seconds to wait. */
            after: headerNames.optional(),
          })
          .catchall(z.unknown())
          .optional(),
        verification: z
          .object({
            method: z.enum(['GET', 'POST', 'HEAD', 'PUT', 'PATCH', 'DELETE']).default('GET'),
            /** Relative to the base URL; Nango's without a leading `/` get one. */
            endpoints: z
              .array(
                z
                  .string()
                  .min(1)
                  .max(1024)
                  .transform((e) => (e.startsWith('/') ? e : `/${e}`)),
              )
              .min(1)
              .max(4),
            base_url_override: templatedUrl.optional(),
            headers: stringMap.optional(),
          })
          .catchall(z.unknown())
          .optional(),
        paginate: providerPaginationSchema.optional(),
        /** Origins besides the base URL's that may receive the credentials (a script's baseUrlOverride, an absolute pagination link). */
        credential_origins: z.array(templatedUrl).max(16).optional(),
      })
      .catchall(z.unknown())
      .optional(),
    /**
     * MCP_OAUTH2: how the OAuth client comes to be (Nango's, after the MCP specification): `dynamic`,
     * registered at `registration_url` (RFC 7591) once per integration; `static`, the developer's own
     * client id and secret; `cimd` (client id metadata documents) is kept with a warning.
     */
    client_registration: z.enum(['dynamic', 'static', 'cimd']).optional(),
    /** MCP_OAUTH2: the dynamic client registration endpoint (RFC 7591). */
    registration_url: templatedUrl.optional(),
    /** MCP_OAUTH2: fields of the registration request (Nango sends `response_types` and `grant_types`). */
    registration_params: z.record(z.string().min(1).max(64), z.union([z.string().max(256), z.array(z.string().max(256)).max(16)])).optional(),
    /** JWT: the token signed from the entered fields, renewed before it expires. */
    token: jwtTokenSchema.optional(),
    assertion: assertionSchema.optional(),
    connection_config: z.record(fieldKey, providerFieldSchema).optional(),
    credentials: z.record(fieldKey, providerFieldSchema).optional(),
    /** The provider's own documentation page for these facts (every catalogue entry has one; catalog.test.ts). */
    docs: linkUrl.optional(),
    /** A page for the end user on how to find what the Connect UI asks (Nango's Connect UI links it). */
    docs_connect: linkUrl.optional(),
    webhook: providerWebhookSchema.optional(),
  })
  .catchall(z.unknown())
  .superRefine((d, ctx) => {
    const oauth = d.auth_mode === 'OAUTH2' || d.auth_mode === 'OAUTH2_CC';
    const twoStep = d.auth_mode === 'TWO_STEP';
    const oauth1 = d.auth_mode === 'OAUTH1';
    if ((d.auth_mode === 'OAUTH2' || oauth1) && !d.authorization_url)
      ctx.addIssue({ code: 'custom', path: ['authorization_url'], message: `is required when auth_mode is ${d.auth_mode}` });
    if (d.auth_mode === 'JWT' && d.signature && !(JWT_SIGNATURE_PROTOCOLS as readonly string[]).includes(d.signature.protocol))
      ctx.addIssue({ code: 'custom', path: ['signature', 'protocol'], message: `must be one of ${JWT_SIGNATURE_PROTOCOLS.join(', ')} when auth_mode is JWT` });
    if (d.auth_mode === 'SIGNATURE' && d.signature && d.signature.protocol !== 'WSSE')
      ctx.addIssue({ code: 'custom', path: ['signature', 'protocol'], message: 'must be WSSE when auth_mode is SIGNATURE' });
    if (oauth1 && !d.request_url) ctx.addIssue({ code: 'custom', path: ['request_url'], message: 'is required when auth_mode is OAUTH1' });
    if ((oauth || twoStep || oauth1) && !tokenUrlOf(d))
      ctx.addIssue({ code: 'custom', path: ['token_url'], message: `is required when auth_mode is ${d.auth_mode}` });
    if (twoStep && !d.token_response) ctx.addIssue({ code: 'custom', path: ['token_response'], message: 'is required when auth_mode is TWO_STEP' });
    if ((d.auth_mode === 'APP' || d.auth_mode === 'CUSTOM') && !d.authorization_url)
      ctx.addIssue({ code: 'custom', path: ['authorization_url'], message: `is required when auth_mode is ${d.auth_mode} (the installation page)` });
    if (d.auth_mode === 'CUSTOM')
      for (const mode of ['OAUTH2', 'APP'] as const)
        if (typeof d.token_url !== 'object' || !d.token_url[mode])
          ctx.addIssue({
            code: 'custom',
            path: ['token_url', mode],
            message: `is required when auth_mode is CUSTOM (${mode === 'OAUTH2' ? "the user's code exchange" : 'the installation token'})`,
          });
    if (d.auth_mode === 'BILL' && !tokenUrlOf(d))
      ctx.addIssue({ code: 'custom', path: ['token_url'], message: 'is required when auth_mode is BILL (the login)' });
    if (d.auth_mode === 'MCP_OAUTH2') {
      for (const key of ['authorization_url', 'client_registration'] as const)
        if (!d[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'is required when auth_mode is MCP_OAUTH2' });
      if (!tokenUrlOf(d)) ctx.addIssue({ code: 'custom', path: ['token_url'], message: 'is required when auth_mode is MCP_OAUTH2' });
      if (d.client_registration === 'dynamic' && !d.registration_url)
        ctx.addIssue({ code: 'custom', path: ['registration_url'], message: 'is required when client_registration is dynamic' });
    }
    if (d.auth_mode === 'MCP_OAUTH2_GENERIC' && !d.connection_config?.mcp_server_url)
      ctx.addIssue({
        code: 'custom',
        path: ['connection_config', 'mcp_server_url'],
        message: 'is required when auth_mode is MCP_OAUTH2_GENERIC (the server to discover)',
      });
    if (d.auth_mode === 'JWT')
      for (const key of ['signature', 'token'] as const)
        if (!d[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'is required when auth_mode is JWT' });
    // The signed token's templates name entered fields and connection config the definition declares.
    for (const m of JSON.stringify(d.token ?? {}).matchAll(/\$\{(credentials|connectionConfig)\.([A-Za-z][\w-]*)/g)) {
      const part = m[1] === 'credentials' ? 'credentials' : 'connection_config';
      if (!d[part]?.[m[2]!]) ctx.addIssue({ code: 'custom', path: ['token'], message: `uses \${${m[1]}.${m[2]}} but ${part} has no "${m[2]}" field` });
    }
    const filledLater = new Set([...(d.token_response_metadata ?? []), ...metadataKeys(d)]);
    const declared = (key: string) => filledLater.has(key) || Object.keys(d.connection_config ?? {}).some((k) => k === key || key.startsWith(`${k}.`));
    for (const [where, ref] of placeholders(d)) {
      const configKey = /^connectionConfig\.([A-Za-z][A-Za-z0-9_.-]*)$/.exec(ref)?.[1];
      if (configKey !== undefined) {
        if (!declared(configKey)) ctx.addIssue({ code: 'custom', path: where, message: `uses \${${ref}} but connection_config has no "${configKey}" field` });
      } else if (!PLACEHOLDERS.has(ref) && !isNangoOnlyPlaceholder(ref) && !/^credentials\.[\w.-]+$/.test(ref)) {
        ctx.addIssue({ code: 'custom', path: where, message: `unknown placeholder \${${ref}}` });
      }
    }
  });

export type ProviderDefinition = z.output<typeof providerDefinitionSchema>;
export type ProviderDefinitionInput = z.input<typeof providerDefinitionSchema>;

/** Keys an alias of an OAuth provider may inherit when its own auth mode is another (Nango's `aircall-basic`). */
const OAUTH_ONLY = ['authorization_url', 'token_url', 'refresh_url', 'default_scopes'] as const;

/** Placeholders filled from the connection's credentials or the integration (besides `connectionConfig.x`). */
const PLACEHOLDERS = new Set([
  'apiKey',
  'username',
  'password',
  'accessToken',
  'clientId',
  'credentials.apiKey',
  'credentials.username',
  'credentials.password',
]);

/**
 * The token URL of the definition's own auth mode (Nango's per-mode keys drop the `_`: `OAUTH2CC`).
 * CUSTOM (a GitHub App with user authorization) has two: the user's code is exchanged at `OAUTH2`'s.
 */
export function tokenUrlOf(d: Pick<ProviderDefinition, 'auth_mode' | 'token_url'>): string | undefined {
  if (typeof d.token_url !== 'object') return d.token_url;
  if (d.auth_mode === 'CUSTOM') return d.token_url.OAUTH2;
  return d.token_url[d.auth_mode] ?? d.token_url[d.auth_mode.replace('_', '')];
}

/** A GitHub App's installation-token URL: APP's token URL, or CUSTOM's `token_url.APP`. */
export function installationTokenUrlOf(d: Pick<ProviderDefinition, 'auth_mode' | 'token_url'>): string | undefined {
  if (d.auth_mode === 'APP') return tokenUrlOf(d);
  return d.auth_mode === 'CUSTOM' && typeof d.token_url === 'object' ? d.token_url.APP : undefined;
}

/** Connection-config keys Nango fills from the redirect or a webhook, declared as such. */
function metadataKeys(d: ProviderDefinition): string[] {
  const raw = d as Record<string, unknown>;
  return ['redirect_uri_metadata', 'webhook_response_metadata', 'refresh_token_response_metadata'].flatMap((k) =>
    Array.isArray(raw[k]) ? (raw[k] as unknown[]).filter((v): v is string => typeof v === 'string') : [],
  );
}

function* templateSites(d: ProviderDefinition): Generator<[(string | number)[], string]> {
  if (d.authorization_url) yield [['authorization_url'], d.authorization_url];
  if (typeof d.token_url === 'string') yield [['token_url'], d.token_url];
  else for (const [mode, url] of Object.entries(d.token_url ?? {})) yield [['token_url', mode], url];
  if (d.refresh_url) yield [['refresh_url'], d.refresh_url];
  if (d.registration_url) yield [['registration_url'], d.registration_url];
  if (d.request_url) yield [['request_url'], d.request_url];
  for (const key of ['authorization_params', 'token_params', 'refresh_params', 'request_params'] as const)
    for (const [k, v] of Object.entries(d[key] ?? {})) if (typeof v === 'string') yield [[key, k], v];
  if (d.post_connection?.base_url_override) yield [['post_connection', 'base_url_override'], d.post_connection.base_url_override];
  for (const [k, v] of Object.entries(d.post_connection?.headers ?? {})) yield [['post_connection', 'headers', k], v];
  for (const [k, v] of Object.entries(d.token_headers ?? {})) yield [['token_headers', k], v];
  if (!d.proxy) return;
  yield [['proxy', 'base_url'], d.proxy.base_url];
  for (const part of ['headers', 'query'] as const) for (const [k, v] of Object.entries(d.proxy[part] ?? {})) yield [['proxy', part, k], v];
  if (d.proxy.verification?.base_url_override) yield [['proxy', 'verification', 'base_url_override'], d.proxy.verification.base_url_override];
  for (const [i, origin] of (d.proxy.credential_origins ?? []).entries()) yield [['proxy', 'credential_origins', i], origin];
}

/**
 * `${now}`, `${now+7:days}`, `${now-1:hours:YYYY-MM-DD}` (Nango's): the time the template is filled,
 * moved by whole minutes, hours or days, as ISO 8601 (UTC) or as a UTC date. Filled in text only
 * (parameters, headers), never in a URL.
 */
export const NOW = /\$\{now(?:([+-])(\d{1,4}):(minutes|hours|days))?(?::(YYYY-MM-DD))?\}/g;

/** `${base64(...)}` (filled, templates.ts): its content is a template like any other, read without the wrapper. */
export const BASE64 = /\$\{base64\(([^()]*)\)\}/g;

/**
 * Every `${...}` in the definition's templates, where it stands, but `${now...}` in a text (not a URL),
 * which is filled there. Another nested one (`${sha256Hex(${x})}`) is read from its start.
 */
function* placeholders(d: ProviderDefinition): Generator<[(string | number)[], string]> {
  for (const [where, value] of templateSites(d)) {
    const text = where.some((part) => typeof part === 'string' && (part.endsWith('_params') || part.endsWith('headers') || part === 'query'));
    for (const m of value
      .replace(BASE64, '$1')
      .replace(text ? NOW : /$^/, '')
      .matchAll(/\$\{([^}]*)\}/g))
      yield [where, m[1]!];
  }
}

/**
 * `${credentials.x}` is filled with an entered field in TWO_STEP's templates (`assertion`: the signed
 * assertion the definition declares), and with the secret of API_KEY and BASIC.
 */
function fillsCredential(d: ProviderDefinition, ref: string): boolean {
  const key = /^credentials\.(.+)$/.exec(ref)?.[1];
  if (key === undefined) return true;
  const twoStep = d.auth_mode === 'TWO_STEP' && (Object.hasOwn(d.credentials ?? {}, key) || (key === 'assertion' && d.assertion !== undefined));
  return PLACEHOLDERS.has(ref) || twoStep || (d.auth_mode === 'BILL' && BILL_FIELDS.has(key));
}

/** What a BILL connection's `${credentials.x}` may name (features/connections/bill.ts). */
const BILL_FIELDS = new Set(['username', 'password', 'organization_id', 'dev_key', 'session_id', 'user_id']);

/**
 * What a definition keeps without acting on: keys of Nango's format Switchyard does not use, unknown
 * keys, and values it cannot act on (a pattern that is not a regular expression, a token request it
 * cannot make, placeholders it does not fill). A catalogue entry has none (catalog.ts).
 */
export function definitionWarnings(d: ProviderDefinition): string[] {
  const out: string[] = [];
  const extra = (obj: object | undefined, shape: Record<string, unknown>, nango: readonly string[], path: string) => {
    for (const k of Object.keys(obj ?? {}))
      if (!Object.hasOwn(shape, k)) out.push(`${nango.includes(k) ? "Nango's key" : 'unknown key'} "${path}${k}" kept but not used`);
  };
  const proxyShape = providerDefinitionSchema.shape.proxy.unwrap().shape;
  extra(d, providerDefinitionSchema.shape, nangoKeys[''], '');
  extra(d.proxy, proxyShape, nangoKeys.proxy, 'proxy.');
  extra(d.proxy?.retry, proxyShape.retry.unwrap().shape, nangoKeys['proxy.retry'], 'proxy.retry.');
  extra(d.proxy?.verification, proxyShape.verification.unwrap().shape, nangoKeys['proxy.verification'], 'proxy.verification.');
  extra(d.proxy?.paginate, providerPaginationSchema.shape, nangoKeys['proxy.paginate'], 'proxy.paginate.');
  for (const part of ['connection_config', 'credentials'] as const) {
    for (const [key, field] of Object.entries(d[part] ?? {})) {
      extra(field, providerFieldSchema.shape, nangoKeys.field, `${part}.${key}.`);
      if (field.pattern !== undefined && !isValidRegExp(field.pattern))
        out.push(`${part}.${key}.pattern: not a valid regular expression here, so values are not checked against it`);
    }
  }
  // A value filled after authorization is kept in connection_config all the same; declared, it has a title and is left out of forms.
  const filled: [string, string][] = [
    ...(d.redirect_uri_metadata ?? []).map((k, i): [string, string] => [`redirect_uri_metadata.${i}`, k]),
    ...Object.keys(d.post_connection?.set ?? {}).map((k): [string, string] => [`post_connection.set.${k}`, k]),
  ];
  for (const [where, key] of filled) if (!d.connection_config?.[key]) out.push(`${where}: fills "${key}", which connection_config does not declare`);
  const usedBy: Partial<Record<ProviderAuthMode, readonly string[]>> = {
    TWO_STEP: ['token_url'],
    OAUTH1: ['authorization_url', 'token_url', 'default_scopes'],
    APP: ['authorization_url', 'token_url'],
    CUSTOM: ['authorization_url', 'token_url'],
    BILL: ['token_url'],
  };
  if (d.auth_mode !== 'OAUTH2' && d.auth_mode !== 'OAUTH2_CC' && d.auth_mode !== 'MCP_OAUTH2')
    for (const key of OAUTH_ONLY)
      if (d[key] !== undefined && !usedBy[d.auth_mode]?.includes(key)) out.push(`${key}: kept but not used: it applies when auth_mode is OAUTH2 or OAUTH2_CC`);
  if (d.auth_mode === 'MCP_OAUTH2' && d.client_registration === 'cimd')
    out.push('client_registration: cimd (client id metadata documents) is not supported; register the client yourself and use static');
  if (d.token_request_auth_method === 'custom' || d.token_request_auth_method === 'private_key_jwt')
    out.push(`token_request_auth_method: ${d.token_request_auth_method} is not supported; the client id and secret go in the body`);
  if (d.body_format === 'query' || d.body_format === 'xml') out.push(`body_format: ${d.body_format} is not supported; token requests are form-encoded`);
  for (const [where, ref] of placeholders(d)) {
    if (isNangoOnlyPlaceholder(ref) || !fillsCredential(d, ref))
      out.push(`${where.join('.')}: Switchyard does not fill \${${ref}}; the value is sent as written`);
  }
  return out;
}
