/**
 * @module features/environments/scopes — what an API key may do, by Nango's scope names
 * (`environment:connections:read`, `account:environments:create`, …). A granted scope ending in
 * `:*` covers every scope under it. An environment's default secret key holds `environment:*` and
 * `account:*`: a Switchyard deployment is one account, and its secret keys administer it.
 */
import { z } from 'zod';

/** The environment scopes a created key may hold (Nango's list, @nangohq/types API_KEY_SCOPES). */
export const ENVIRONMENT_SCOPES = [
  'environment:integrations:list',
  'environment:integrations:list_credentials',
  'environment:integrations:list_functions',
  'environment:integrations:read',
  'environment:integrations:read_credentials',
  'environment:integrations:create',
  'environment:integrations:update',
  'environment:integrations:delete',
  'environment:connections:list',
  'environment:connections:list_credentials',
  'environment:connections:read',
  'environment:connections:read_credentials',
  'environment:connections:create',
  'environment:connections:update',
  'environment:connections:delete',
  'environment:connect_sessions:write',
  'environment:agent_sessions:write',
  'environment:syncs:read',
  'environment:syncs:execute',
  'environment:syncs:update',
  'environment:syncs:variant:create',
  'environment:syncs:variant:delete',
  'environment:functions:list',
  'environment:functions:read',
  'environment:functions:delete',
  'environment:functions:compile',
  'environment:functions:dryrun',
  'environment:functions:invocations',
  'environment:deploy',
  'environment:records:read',
  'environment:records:write',
  'environment:logs:read',
  'environment:actions:execute',
  'environment:proxy',
  'environment:variables:read',
  'environment:webhook_signing_key:rotate',
  'environment:mcp',
] as const;

export const ACCOUNT_SCOPES = [
  'account:environments:list',
  'account:environments:create',
  'account:environments:delete',
  'account:environments:set_production',
  'account:environments:api_keys:list',
  'account:environments:api_keys:read',
  'account:environments:api_keys:create',
  'account:environments:api_keys:delete',
] as const;

export type EnvironmentScope = (typeof ENVIRONMENT_SCOPES)[number];
export type AccountScope = (typeof ACCOUNT_SCOPES)[number];
export type Scope = EnvironmentScope | AccountScope;

/** Full access: what every route needs that declares no scope of its own. */
export const FULL_ENVIRONMENT_ACCESS = 'environment:*';
export const DEFAULT_KEY_SCOPES: readonly string[] = [FULL_ENVIRONMENT_ACCESS, 'account:*'];

/** The wildcards that cover at least one environment scope (`environment:*`, `environment:connections:*`, …). */
const ENVIRONMENT_WILDCARDS = new Set<string>([
  FULL_ENVIRONMENT_ACCESS,
  ...ENVIRONMENT_SCOPES.flatMap((s) => {
    const parts = s.split(':');
    return parts.slice(2).map((_, i) => `${parts.slice(0, i + 2).join(':')}:*`);
  }),
]);

/** A scope a created key may be given: an environment scope or a wildcard over some. */
export const grantableScope = z.string().refine((s) => (ENVIRONMENT_SCOPES as readonly string[]).includes(s) || ENVIRONMENT_WILDCARDS.has(s), {
  message: `not an environment scope (${FULL_ENVIRONMENT_ACCESS}, environment:connections:read, …)`,
});

/** True when one of `granted` is `required` or a wildcard over it. */
export function grants(granted: readonly string[], required: string): boolean {
  return granted.some((g) => g === required || (g.endsWith(':*') && required.startsWith(g.slice(0, -1))));
}
