/**
 * @module features/connections/refresh — OAuth, TWO_STEP, JWT and GitHub App installation tokens (and a CUSTOM app's user token), and Bill
 * sessions, refreshed before they expire (or when forced),
 * under a per-connection lease (no transaction across the provider's answer) so two refreshes never race: whoever waits re-reads the row and
 * finds the fresh token. The token URL and parameters come from the resolver's endpoints
 * (target.ts), checked like every other URL. What a refresh's outcome sets off (alerts, the `auth`
 * webhook) is the `onTokenRefresh` listener's (activities/token-refresh.ts).
 */
import { randomUUID } from 'node:crypto';
import { withTransaction } from '../../lib/db/pool.js';
import { BadRequest, NotFound } from '../../lib/errors.js';
import type { StoredCredentials } from './credentials.js';
import { billLogin } from './bill.js';
import { installationToken } from './github-app.js';
import { jwtToken } from './jwt.js';
import { oauthClientOf } from './mcp-metadata.js';
import { accessTokenRequest, clientCredentialsToken, refreshToken } from './oauth.js';
import { claimRefreshLease, holdsRefreshLease, releaseRefreshLease, waitForRefreshLease } from './refresh-lease.js';
import { twoStepToken } from './two-step.js';
import type { ConnectionDeps } from './service.js';
import { getConnectionByPk, recordCheck, saveCredentials, type Connection } from './store.js';
import type { Endpoints } from './target.js';
import type { RequestContext } from '../../lib/http/index.js';

export const REFRESH_MARGIN_MS = 15 * 60 * 1000;

/** A JWT is signed here, at no cost: it is signed again this close to its expiry (its lifetime may be 5 minutes). */
const JWT_MARGIN_MS = 60 * 1000;

/** `selfRenewing`: the definition renews the access token itself (`access_token_refresh`), no refresh token needed. */
function needsRefresh(c: Connection, now: Date, force: boolean, selfRenewing: boolean): boolean {
  if (c.credentials.type === 'JWT') {
    const expiresAt = c.expiresAt ?? (typeof c.credentials.expires_at === 'string' ? new Date(c.credentials.expires_at) : null);
    return force || !c.credentials.token || Boolean(expiresAt && expiresAt.getTime() - now.getTime() < JWT_MARGIN_MS);
  }
  if (c.credentials.type === 'CUSTOM') return force || customParts(c.credentials, now).length > 0;
  if (c.credentials.type === 'OAUTH2_CC' || c.credentials.type === 'TWO_STEP' || c.credentials.type === 'APP' || c.credentials.type === 'BILL') {
    // A client-credentials, TWO_STEP or installation token, or a Bill session, is fetched again (no refresh token) when it is about to expire.
    const expiresAt = c.expiresAt ?? (c.credentials.expires_at ? new Date(c.credentials.expires_at) : null);
    return force || Boolean(expiresAt && expiresAt.getTime() - now.getTime() < REFRESH_MARGIN_MS);
  }
  if (c.credentials.type !== 'OAUTH2') return false;
  const renewable = Boolean(c.credentials.refresh_token) || selfRenewing;
  if (force) return renewable;
  return Boolean(renewable && c.expiresAt && c.expiresAt.getTime() - now.getTime() < REFRESH_MARGIN_MS);
}

const due = (expiresAt: string | undefined, now: Date) => Boolean(expiresAt && Date.parse(expiresAt) - now.getTime() < REFRESH_MARGIN_MS);

/** CUSTOM: which of its two tokens are due, the user's only when it has a refresh token. */
function customParts(c: Extract<StoredCredentials, { type: 'CUSTOM' }>, now: Date, force = false): ('app' | 'user')[] {
  return [
    ...(force || due(c.app.expires_at, now) ? (['app'] as const) : []),
    ...(c.user?.refresh_token && (force || due(c.user.expires_at, now)) ? (['user'] as const) : []),
  ];
}

/** Credentials that expire and that Switchyard can renew. */
const RENEWABLE = new Set<StoredCredentials['type']>(['OAUTH2', 'OAUTH2_CC', 'TWO_STEP', 'JWT', 'APP', 'CUSTOM', 'BILL']);

/** A lease outlives its refresh's deadline by this much (the statements before and after the request). */
const REFRESH_LEASE_GRACE_MS = 15_000;

/**
 * Returns the connection with credentials valid for at least the refresh margin, refreshing its
 * OAuth token first when needed, at the token URL `endpointsOf` resolves for the current row's config.
 * A lease (refresh-lease.ts) serialises concurrent refreshes of one connection: whoever waits re-reads
 * the row and finds the fresh token. No transaction is open while the provider answers, and its answer
 * has a deadline (SWITCHYARD_TOKEN_REFRESH_DEADLINE_MS) however slowly it trickles in.
 */
export async function withFreshCredentials(
  deps: ConnectionDeps,
  connection: Connection,
  endpointsOf: (connectionConfig: Record<string, unknown>) => Endpoints,
  opts: { force?: boolean } = {},
): Promise<Connection> {
  const selfRenewing = Boolean(endpointsOf(connection.connectionConfig).provider.accessTokenRequests?.refresh);
  if (!needsRefresh(connection, deps.clock.now(), opts.force ?? false, selfRenewing)) return connection;
  const deadlineMs = deps.config.SWITCHYARD_TOKEN_REFRESH_DEADLINE_MS;
  let deadline: AbortSignal | undefined;
  try {
    const { result, refreshed } = await refreshUnderLease(
      deps,
      connection,
      endpointsOf,
      opts.force ?? false,
      () => (deadline = AbortSignal.timeout(deadlineMs)),
    );
    // A successful refresh resolves the connection's auth_refresh_failed alert, if one is open.
    if (refreshed) await deps.onTokenRefresh.refreshed(connection);
    return result;
  } catch (err) {
    // A database outage or a lost lease is not the connection's fault: no auth error, no alert.
    if (!(err instanceof RefreshRefused)) throw err;
    const message = deadline?.aborted ? `the token endpoint did not answer within ${deadlineMs} ms` : (err as Error).message;
    await recordCheck(deps.db, connection.id, false, { type: 'auth', log_id: `refresh-${Date.now()}`, message, at: deps.clock.now().toISOString() });
    // Raises the auth_refresh_failed alert and emits the `auth` webhook (refresh, success: false).
    await deps.onTokenRefresh.refreshFailed(connection, message);
    throw new BadRequest('invalid_credentials', `Refreshing the token failed: ${message}`);
  }
}

/** The provider refused or failed the renewal (its answer, its deadline, a missing client): the credentials' problem, unlike a database error. */
class RefreshRefused extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/** The renewed credentials, from the provider (or signed here for JWT); null when the type renews nothing. */
async function renewedCredentials(
  deps: ConnectionDeps,
  current: Connection,
  endpoints: Endpoints,
  { selfRenewing, force }: { selfRenewing: boolean; force: boolean },
  context: RequestContext,
  startDeadline: () => AbortSignal,
): Promise<StoredCredentials | null> {
  // What every provider request of a renewal takes; the deadline is armed only when one is made.
  const request = () => ({ http: deps.http, endpoints, now: deps.clock.now(), context, signal: startDeadline() });
  if (current.credentials.type === 'JWT') {
    return jwtToken({ endpoints, credentials: current.credentials, now: deps.clock.now() });
  } else if (current.credentials.type === 'APP') {
    return await installationToken({ ...request(), config: current.connectionConfig });
  } else if (current.credentials.type === 'CUSTOM') {
    const parts = customParts(current.credentials, deps.clock.now(), force);
    const { user } = current.credentials;
    const opts = request();
    const app = parts.includes('app') ? await installationToken({ ...opts, config: current.connectionConfig }) : current.credentials.app;
    let renewedUser = user;
    if (user?.refresh_token && parts.includes('user')) {
      const client = endpoints.integration.credentials;
      if (!client) throw new BadRequest('invalid_credentials', "The integration has no OAuth client credentials to refresh the user's token with");
      const refreshed = await refreshToken({ ...opts, client, refreshToken: user.refresh_token });
      if (refreshed.type === 'OAUTH2') renewedUser = refreshed;
    }
    return { type: 'CUSTOM', app: { ...app, access_token: app.access_token! }, user: renewedUser, raw: app.raw ?? {} };
  } else if (current.credentials.type === 'BILL') {
    return await billLogin({ ...request(), credentials: current.credentials });
  } else if (current.credentials.type === 'TWO_STEP') {
    return await twoStepToken({ ...request(), credentials: current.credentials });
  } else if (current.credentials.type === 'OAUTH2_CC') {
    return await clientCredentialsToken({ ...request(), connectionCredentials: current.credentials });
  } else if (current.credentials.type === 'OAUTH2' && !current.credentials.refresh_token && selfRenewing) {
    const renewed = await accessTokenRequest({ ...request(), kind: 'refresh', accessToken: current.credentials.access_token });
    return renewed!;
  } else if (current.credentials.type === 'OAUTH2') {
    const client = oauthClientOf(endpoints.integration, endpoints.provider.authMode, current.connectionConfig, current.credentials.config_override);
    if (!client) throw new BadRequest('invalid_credentials', 'The integration has no OAuth client credentials to refresh with');
    const refreshed = await refreshToken({ ...request(), client, refreshToken: current.credentials.refresh_token! });
    // The connection's own client stays its own for the refreshes after this one.
    const override = current.credentials.config_override;
    return override && refreshed.type === 'OAUTH2' ? { ...refreshed, config_override: override } : refreshed;
  }
  return null;
}

/** The refresh itself, once this process holds the connection's lease; `startDeadline` arms the provider request's deadline. */
async function refreshUnderLease(
  deps: ConnectionDeps,
  connection: Connection,
  endpointsOf: (connectionConfig: Record<string, unknown>) => Endpoints,
  force: boolean,
  startDeadline: () => AbortSignal,
): Promise<{ result: Connection; refreshed: boolean }> {
  const holder = randomUUID();
  const leaseMs = deps.config.SWITCHYARD_TOKEN_REFRESH_DEADLINE_MS + REFRESH_LEASE_GRACE_MS;
  while (!(await claimRefreshLease(deps.db, connection.id, holder, leaseMs))) await waitForRefreshLease(deps.db, connection.id);
  try {
    const current = await getConnectionByPk(deps.db, deps.box, connection.id);
    if (!current) throw new NotFound('not_found', 'Failed to find connection');
    if (!RENEWABLE.has(current.credentials.type)) return { result: current, refreshed: false };
    const endpoints = endpointsOf(current.connectionConfig);
    const selfRenewing = Boolean(endpoints.provider.accessTokenRequests?.refresh);
    const stillNeeded = force ? current.updatedAt.getTime() <= connection.updatedAt.getTime() : needsRefresh(current, deps.clock.now(), false, selfRenewing);
    if (!stillNeeded) return { result: current, refreshed: false };
    const context = {
      environmentId: current.environmentId,
      integration: endpoints.integration.uniqueKey,
      connectionId: current.connectionId,
      kind: 'auth',
    } as const;
    let fresh: StoredCredentials | null;
    try {
      fresh = await renewedCredentials(deps, current, endpoints, { selfRenewing, force }, context, startDeadline);
    } catch (err) {
      throw new RefreshRefused(err);
    }
    if (!fresh) return { result: current, refreshed: false };
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
