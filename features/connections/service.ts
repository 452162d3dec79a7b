/**
 * @module features/connections/service — what api and worker both do with connections: inject their
 * credentials into provider requests, verify them, and refresh OAuth tokens under a per-connection
 * lease so two refreshes never race. What a refresh's outcome sets off (alerts, the `auth` webhook)
 * is not done here but by the `onTokenRefresh` listener the caller's deps carry
 * (activities/token-refresh.ts, wired in start/platform.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config.js';
import type { SecretBox } from '../../lib/crypto.js';
import { getConnectionByPk, recordCheck, saveCredentials, type Connection } from './store.js';
import { getIntegrationById, type Integration } from '../integrations/store.js';
import { withTransaction, type Db, type Queryable } from '../../lib/db/pool.js';
import { BadRequest, NotFound } from '../../lib/errors.js';
import type { AuthInjection, ProviderHttpClient, RequestContext } from '../../lib/http/index.js';
import type { StoredCredentials } from './credentials.js';
import { authInjection, MissingConfigValue, resolveBaseUrl, resolveUrl, type Provider, type ProviderHooksLookup } from '../providers/providers.js';
import { findProvider } from '../providers/store.js';
import { clientCredentialsToken, refreshToken } from './oauth.js';
import { claimRefreshLease, holdsRefreshLease, releaseRefreshLease, waitForRefreshLease } from './refresh-lease.js';

/** Told of every OAuth token refresh's outcome; never throws (failures are its own to log). */
export interface TokenRefreshListener {
  refreshed(connection: Connection): Promise<void>;
  /** After the failure is recorded on the connection (`recordCheck`); the caller then gets invalid_credentials. */
  refreshFailed(connection: Connection, message: string): Promise<void>;
}

export interface ConnectionDeps {
  db: Db;
  box: SecretBox;
  clock: Clock;
  http: ProviderHttpClient;
  config: Config;
  temporal: Client;
  onTokenRefresh: TokenRefreshListener;
  /** The provider plugins' runtime hooks (integrations/plugins.ts `pluginFor`). */
  providerHooks: ProviderHooksLookup;
}

export const REFRESH_MARGIN_MS = 15 * 60 * 1000;

/** How this connection's credentials go on the wire (the definition's templates, else the auth mode's default; a plugin may place them itself). */
export function authFor(
  deps: Pick<ConnectionDeps, 'providerHooks'>,
  provider: Provider,
  credentials: StoredCredentials,
  connectionConfig: Record<string, unknown>,
): AuthInjection {
  return authInjection(provider, credentials, connectionConfig, deps.providerHooks(provider.name));
}

/** The provider of an integration, as its environment sees it (the catalogue, then the environment's own). */
export async function providerOf(db: Queryable, environmentId: number, name: string): Promise<Provider> {
  const provider = await findProvider(db, environmentId, name);
  if (!provider) throw new NotFound('unknown_provider', `Provider ${name} is neither in the catalogue nor defined in this environment`);
  return provider;
}

export function baseUrlFor(provider: Provider, integration: Integration, connectionConfig: Record<string, unknown>): string {
  try {
    return resolveBaseUrl(provider, integration.integrationConfig, connectionConfig);
  } catch (err) {
    if (err instanceof MissingConfigValue)
      throw new BadRequest('missing_connection_config', `connection_config.${err.key.replace(/^connectionConfig\./, '')} is required by ${provider.name}`);
    throw err;
  }
}

export interface VerificationResult {
  ok: boolean;
  status: number | null;
  reason?: string;
}

/** Calls the provider's verification request with these credentials. */
export async function verifyCredentials(
  deps: Pick<ConnectionDeps, 'http' | 'providerHooks'>,
  target: { provider: Provider; integration: Integration; connectionConfig: Record<string, unknown>; credentials: StoredCredentials },
  context: RequestContext,
): Promise<VerificationResult> {
  const check = target.provider.verification;
  if (!check) return { ok: true, status: null };
  try {
    const baseUrl = check.baseUrlOverride
      ? resolveUrl(check.baseUrlOverride, { connectionConfig: target.connectionConfig })
      : baseUrlFor(target.provider, target.integration, target.connectionConfig);
    let last: VerificationResult = { ok: false, status: null };
    for (const path of check.paths) {
      const res = await deps.http.request({
        method: check.method,
        baseUrl,
        path,
        headers: { accept: 'application/json', ...check.headers },
        auth: authFor(deps, target.provider, target.credentials, target.connectionConfig),
        context,
        timeoutMs: 15_000,
        ...(target.provider.retry && { rateLimitHeaders: target.provider.retry }),
      });
      if (res.status >= 200 && res.status < 300) {
        // Slack answers 200 with ok:false for bad tokens.
        const text = res.body?.toString('utf8') ?? '';
        if (text.startsWith('{') && (JSON.parse(text) as { ok?: unknown }).ok === false) return { ok: false, status: res.status, reason: text.slice(0, 200) };
        return { ok: true, status: res.status };
      }
      last = { ok: false, status: res.status, reason: `the provider answered ${res.status} to ${check.method} ${path}` };
    }
    return last;
  } catch (err) {
    if (err instanceof BadRequest) throw err;
    return { ok: false, status: null, reason: (err as Error).message };
  }
}

function needsRefresh(c: Connection, now: Date, force: boolean): boolean {
  if (c.credentials.type === 'OAUTH2_CC') {
    // A client-credentials token is fetched again (no refresh token) when it is about to expire.
    const expiresAt = c.expiresAt ?? (c.credentials.expires_at ? new Date(c.credentials.expires_at) : null);
    return force || Boolean(expiresAt && expiresAt.getTime() - now.getTime() < REFRESH_MARGIN_MS);
  }
  if (c.credentials.type !== 'OAUTH2') return false;
  if (force) return Boolean(c.credentials.refresh_token);
  return Boolean(c.credentials.refresh_token && c.expiresAt && c.expiresAt.getTime() - now.getTime() < REFRESH_MARGIN_MS);
}

/** A lease outlives its refresh's deadline by this much (the statements before and after the request). */
const REFRESH_LEASE_GRACE_MS = 15_000;

/**
 * Returns the connection with credentials valid for at least the refresh margin, refreshing its
 * OAuth token first when needed. A lease (refresh-lease.ts) serialises concurrent refreshes of one
 * connection: whoever waits re-reads the row and finds the fresh token. No transaction is open while
 * the provider answers, and its answer has a deadline (SWITCHYARD_TOKEN_REFRESH_DEADLINE_MS) however
 * slowly it trickles in.
 */
export async function withFreshCredentials(deps: ConnectionDeps, connection: Connection, opts: { force?: boolean } = {}): Promise<Connection> {
  if (!needsRefresh(connection, deps.clock.now(), opts.force ?? false)) return connection;
  const deadlineMs = deps.config.SWITCHYARD_TOKEN_REFRESH_DEADLINE_MS;
  let deadline: AbortSignal | undefined;
  try {
    const { result, refreshed } = await refreshUnderLease(deps, connection, opts.force ?? false, () => (deadline = AbortSignal.timeout(deadlineMs)));
    // A successful refresh resolves the connection's auth_refresh_failed alert, if one is open.
    if (refreshed) await deps.onTokenRefresh.refreshed(connection);
    return result;
  } catch (err) {
    if (err instanceof NotFound) throw err;
    const message = deadline?.aborted ? `the token endpoint did not answer within ${deadlineMs} ms` : (err as Error).message;
    await recordCheck(deps.db, connection.id, false, { type: 'auth', log_id: `refresh-${Date.now()}`, message, at: deps.clock.now().toISOString() });
    // Raises the auth_refresh_failed alert and emits the `auth` webhook (refresh, success: false).
    await deps.onTokenRefresh.refreshFailed(connection, message);
    throw new BadRequest('invalid_credentials', `Refreshing the token failed: ${message}`);
  }
}

/** The refresh itself, once this process holds the connection's lease; `startDeadline` arms the provider request's deadline. */
async function refreshUnderLease(
  deps: ConnectionDeps,
  connection: Connection,
  force: boolean,
  startDeadline: () => AbortSignal,
): Promise<{ result: Connection; refreshed: boolean }> {
  const holder = randomUUID();
  const leaseMs = deps.config.SWITCHYARD_TOKEN_REFRESH_DEADLINE_MS + REFRESH_LEASE_GRACE_MS;
  while (!(await claimRefreshLease(deps.db, connection.id, holder, leaseMs))) await waitForRefreshLease(deps.db, connection.id);
  try {
    const current = await getConnectionByPk(deps.db, deps.box, connection.id);
    if (!current) throw new NotFound('not_found', 'Failed to find connection');
    if (current.credentials.type !== 'OAUTH2' && current.credentials.type !== 'OAUTH2_CC') return { result: current, refreshed: false };
    const stillNeeded = force ? current.updatedAt.getTime() <= connection.updatedAt.getTime() : needsRefresh(current, deps.clock.now(), false);
    if (!stillNeeded) return { result: current, refreshed: false };
    const integration = await getIntegrationById(deps.db, deps.box, current.integrationId);
    if (!integration) throw new NotFound('not_found', 'Failed to find integration');
    const provider = await providerOf(deps.db, current.environmentId, integration.provider);
    const context = { environmentId: current.environmentId, integration: integration.uniqueKey, connectionId: current.connectionId, kind: 'auth' } as const;
    let fresh: StoredCredentials;
    if (current.credentials.type === 'OAUTH2_CC') {
      fresh = await clientCredentialsToken({
        http: deps.http,
        provider,
        integration,
        connectionCredentials: current.credentials,
        connectionConfig: current.connectionConfig,
        now: deps.clock.now(),
        context,
        signal: startDeadline(),
      });
    } else {
      if (!integration.credentials) throw new BadRequest('invalid_credentials', 'The integration has no OAuth client credentials to refresh with');
      fresh = await refreshToken({
        http: deps.http,
        provider,
        integrationConfig: integration.integrationConfig,
        credentials: integration.credentials,
        refreshToken: current.credentials.refresh_token!,
        connectionConfig: current.connectionConfig,
        now: deps.clock.now(),
        context,
        signal: startDeadline(),
      });
    }
    await withTransaction(deps.db, async (tx) => {
      // Taken over after its expiry: the other holder's outcome stands.
      if (!(await holdsRefreshLease(tx, current.id, holder))) throw new Error('the refresh outlived its lease and another process took over');
      await saveCredentials(tx, deps.box, current.id, fresh);
    });
    return { result: (await getConnectionByPk(deps.db, deps.box, current.id))!, refreshed: true };
  } finally {
    await releaseRefreshLease(deps.db, connection.id, holder);
  }
}

export interface ProviderTarget {
  provider: Provider;
  integration: Integration;
  connection: Connection;
  baseUrl: string;
  auth: AuthInjection;
}

/**
 * Everything needed to call the provider on behalf of this connection, credentials fresh. A caller
 * that has just read the connection's integration passes it, saving a query per call.
 */
export async function providerTarget(deps: ConnectionDeps, connection: Connection, loaded?: Integration): Promise<ProviderTarget> {
  const integration = loaded?.id === connection.integrationId ? loaded : await getIntegrationById(deps.db, deps.box, connection.integrationId);
  if (!integration) throw new NotFound('unknown_provider_config', 'Integration does not exist');
  const provider = await providerOf(deps.db, connection.environmentId, integration.provider);
  const fresh = await withFreshCredentials(deps, connection);
  return {
    provider,
    integration,
    connection: fresh,
    baseUrl: baseUrlFor(provider, integration, fresh.connectionConfig),
    auth: authFor(deps, provider, fresh.credentials, fresh.connectionConfig),
  };
}
