/**
 * @module features/providers/nango-format — what Nango's providers format has that a Switchyard
 * definition keeps without acting on it: the key names at each level, its auth modes, and the
 * placeholders its runtime fills that ours does not. Used to tell, in a definition's warnings,
 * "Nango's key, kept but not used" from an unknown key (a typo), and to say that an auth mode is
 * not supported yet rather than unknown. Names only: no entry of Nango's file is reproduced here.
 */

export const nangoAuthModes = [
  'OAUTH1',
  'OAUTH2',
  'OAUTH2_CC',
  'BASIC',
  'API_KEY',
  'CUSTOM',
  'APP',
  'NONE',
  'TBA',
  'JWT',
  'BILL',
  'TWO_STEP',
  'SIGNATURE',
  'MCP_OAUTH2',
  'MCP_OAUTH2_GENERIC',
  'INSTALL_PLUGIN',
  'AWS_SIGV4',
] as const;

/** Keys of Nango's format, by where they stand (`''`: the entry itself; `field`: a connection_config or credentials field). */
export const nangoKeys: Record<'' | 'proxy' | 'proxy.retry' | 'proxy.verification' | 'proxy.paginate' | 'field', readonly string[]> = {
  '': [
    'access_token_url',
    'additional_steps',
    'alternate_access_token_response_path',
    'assertion',
    'assertion_option',
    'auth_type',
    'authorization_code_param_in_callback',
    'authorization_code_param_in_webhook',
    'authorization_url_fragment',
    'authorization_url_skip_empty',
    'authorization_url_skip_encode',
    'available_scopes',
    'client_registration',
    'connection_configuration',
    'credentials_verification_script',
    'decode_url',
    'expires_in_unit',
    'installation',
    'integration_config',
    'post_connection_script',
    'pre_connection_deletion_script',
    'refresh_token_headers',
    'refresh_token_params',
    'refresh_token_response_metadata',
    'registration_params',
    'registration_url',
    'request_http_method',
    'request_params',
    'request_url',
    'setup_guide_url',
    'signature',
    'signature_method',
    'token',
    'token_expiration_buffer',
    'token_expires_in_ms',
    'token_headers',
    'token_http_method',
    'token_request_method',
    'token_response',
    'token_response_headers',
    'token_url_skip_encode',
    'webhook_allowed_query_params',
    'webhook_response_metadata',
    'webhook_routing_script',
    'webhook_user_defined_secret',
  ],
  proxy: ['connection_config', 'decompress', 'forward_headers_on_redirect'],
  'proxy.retry': ['error_code', 'in_body', 'remaining'],
  'proxy.verification': ['data'],
  'proxy.paginate': ['in_body', 'on_page'],
  field: ['format', 'visible_when', 'warnings'],
};

/**
 * Placeholders Nango's runtime fills and ours does not: values of its other auth modes' steps
 * (`step1.x`, `assertionOption.x`), clocks and nonces (`now`, `random`), the client secret, the
 * pieces of a request it signs, and function calls (`base64(...)`, `sha256Hex(...)`).
 */
export function isNangoOnlyPlaceholder(ref: string): boolean {
  return (
    /^[A-Za-z][\w]*\(/.test(ref) ||
    /^(?:step\d+|assertionOption)\./.test(ref) ||
    /^now(?:[+:].*)?$/.test(ref) ||
    ['random', 'clientSecret', 'refresh_token', 'token', 'endpoint', 'method', 'host', 'path', 'params', 'bodyCanonicalParams'].includes(ref)
  );
}
