/**
 * @module api/routes/connection-shapes — connection objects as the API returns them.
 */
import { z } from 'zod';
import type { Connection } from '../../features/connections/store.js';
import type { StoredCredentials } from '../../features/connections/credentials.js';

const endUserShape = z
  .object({
    id: z.string(),
    display_name: z.string().nullable(),
    email: z.string().nullable(),
    tags: z.record(z.string(), z.string()).nullable(),
    organization: z.object({ id: z.string(), display_name: z.string().nullable() }).nullable(),
  })
  .nullable();

/** A connection in `GET /connections`. */
export const connectionListItem = z.object({
  id: z.number(),
  connection_id: z.string(),
  provider_config_key: z.string(),
  provider: z.string(),
  errors: z.array(z.object({ type: z.string(), log_id: z.string(), message: z.string().optional() })),
  end_user: endUserShape,
  tags: z.record(z.string(), z.string()),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  status: z.string(),
  last_check_at: z.string().nullable(),
  created: z.string(),
});

/** A connection with its credentials (`GET /connections/:id`, `POST /connections`). */
export const fullConnectionShape = connectionListItem.omit({ created: true }).extend({
  connection_config: z.record(z.string(), z.unknown()),
  webhook_url_override: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  last_fetched_at: z.string().nullable(),
  // Empty for a key without environment:connections:read_credentials, as Nango answers.
  credentials: z.object({ type: z.string().optional() }).catchall(z.unknown()),
});

/** `GET /connections/:id` prints offsets as +00:00; list and create use Z. */
export function plusOffset(d: Date | null): string | null {
  return d ? d.toISOString().replace('Z', '+00:00') : null;
}

function endUserOf(c: Connection) {
  if (!c.endUser) return null;
  return {
    id: c.endUser.id,
    display_name: c.endUser.display_name ?? null,
    email: c.endUser.email ?? null,
    tags: c.endUser.tags ?? null,
    organization: c.endUser.organization ? { id: c.endUser.organization.id, display_name: c.endUser.organization.display_name ?? null } : null,
  };
}

function errorsOf(c: Connection) {
  return c.errors.map((e) => ({ type: e.type === 'check' ? 'auth' : e.type, log_id: e.log_id, ...(e.message ? { message: e.message } : {}) }));
}

export function listItem(c: Connection): z.output<typeof connectionListItem> {
  return {
    id: c.id,
    connection_id: c.connectionId,
    provider_config_key: c.integrationKey,
    provider: c.provider,
    errors: errorsOf(c),
    end_user: endUserOf(c),
    tags: c.tags,
    metadata: c.metadata,
    status: c.status,
    last_check_at: c.lastCheckAt?.toISOString() ?? null,
    created: c.createdAt.toISOString(),
  };
}

export function credentialsOut(creds: StoredCredentials, includeRefreshToken: boolean): Record<string, unknown> {
  // CUSTOM: the user's token as an OAUTH2 one is shown.
  if (creds.type === 'CUSTOM') return { ...creds, raw: creds.raw ?? {}, user: creds.user && credentialsOut(creds.user, includeRefreshToken) };
  if (creds.type !== 'OAUTH2') return { ...creds };
  const { refresh_token, ...rest } = creds;
  return { ...rest, raw: creds.raw ?? {}, ...(includeRefreshToken && refresh_token ? { refresh_token } : {}) };
}

export function fullConnection(c: Connection, opts: { style: 'Z' | '+00:00'; includeRefreshToken: boolean }): z.output<typeof fullConnectionShape> {
  const ts = (d: Date | null) => (opts.style === 'Z' ? (d?.toISOString() ?? null) : plusOffset(d));
  const { created: _created, ...common } = listItem(c);
  return {
    ...common,
    connection_config: c.connectionConfig,
    webhook_url_override: c.webhookUrlOverride,
    last_check_at: ts(c.lastCheckAt),
    created_at: ts(c.createdAt),
    updated_at: ts(c.updatedAt),
    last_fetched_at: ts(c.lastFetchedAt),
    credentials: credentialsOut(c.credentials, opts.includeRefreshToken) as z.output<typeof fullConnectionShape>['credentials'],
  };
}
