/**
 * @module features/connections/service — what api and worker both need to act on connections: their
 * dependencies (`ConnectionDeps`), the listener told of token refreshes, and the verification of
 * credentials against the provider. Where a connection's requests go, and with which credentials, is
 * the resolver's (target.ts); refreshing tokens is refresh.ts's.
 */
import type { Client } from '@temporalio/client';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Connection } from './store.js';
import type { Db } from '../../lib/db/pool.js';
import { BadRequest, ValidationFailed } from '../../lib/errors.js';
import type { ProviderHttpClient, RequestContext } from '../../lib/http/index.js';
import type { StoredCredentials } from './credentials.js';
import type { ProviderHooksLookup } from '../providers/providers.js';
import type { Endpoints } from './target.js';
import type { Lookups } from './lookups.js';

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
  /** The API's cached provider and integration lookups (features/connections/lookups.ts); without them, the database is read. */
  lookups?: Pick<Lookups, 'provider' | 'integration'>;
}

export interface VerificationResult {
  ok: boolean;
  status: number | null;
  reason?: string;
}

/** Calls the provider's verification request with these credentials, at the resolver's verification URL. */
export async function verifyCredentials(
  deps: Pick<ConnectionDeps, 'http' | 'providerHooks'>,
  endpoints: Endpoints,
  credentials: StoredCredentials,
  context: RequestContext,
): Promise<VerificationResult> {
  const { provider } = endpoints;
  const check = provider.verification;
  if (!check) return { ok: true, status: null };
  try {
    const baseUrl = endpoints.verificationUrl();
    let last: VerificationResult = { ok: false, status: null };
    for (const path of check.paths) {
      const res = await deps.http.request({
        method: check.method,
        baseUrl,
        path,
        headers: { accept: 'application/json', ...check.headers },
        auth: endpoints.auth(credentials, deps.providerHooks(provider.name)),
        context,
        timeoutMs: 15_000,
        ...(provider.retry && { rateLimitHeaders: provider.retry }),
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
    if (err instanceof BadRequest || err instanceof ValidationFailed) throw err;
    return { ok: false, status: null, reason: (err as Error).message };
  }
}
