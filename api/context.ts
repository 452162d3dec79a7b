/**
 * @module api/context — what every route handler can reach: dependencies and per-request variables.
 */
import type { Client } from '@temporalio/client';
import type { Clock } from '../lib/clock.js';
import type { Config } from '../lib/config.js';
import type { SecretBox } from '../lib/crypto.js';
import type { Environment } from '../features/environments/store.js';
import type { Db } from '../lib/db/pool.js';
import type { Logger } from '../lib/log.js';
import type { ProviderHttpClient } from '../lib/http/index.js';
import type { Lifecycle } from '../features/lifecycle/lifecycle.js';
import type { TokenRefreshListener } from '../features/connections/service.js';
import type { ProviderHooksLookup } from '../features/providers/providers.js';
import type { Telemetry } from '../lib/otel/index.js';
import type { Lookups } from '../features/connections/lookups.js';
import type { ActionRunNotices } from '../features/actions/notices.js';
import type { RequestLogWriter } from '../features/logs/writer.js';
import type { SyncCommands } from '../features/syncs/commands.js';
import type { ConnectionCommands } from '../features/connections/commands.js';
import type { AuthSocketHub } from './ws.js';
import type { ConnectSession } from '../features/connections/connect-sessions.js';
import type { AgentSessionLookup } from '../features/agent-sessions/store.js';
import type { VerifiedWebhook } from './provider-webhooks.js';

export interface AppDeps {
  db: Db;
  config: Config;
  clock: Clock;
  box: SecretBox;
  log: Logger;
  temporal: Client;
  http: ProviderHttpClient;
  lifecycle: Lifecycle;
  /** The sync use cases (features/syncs/commands.ts). */
  syncs: SyncCommands;
  /** Connection update and delete (features/connections/commands.ts). */
  connections: ConnectionCommands;
  authSockets: AuthSocketHub;
  /** Alerts and the `auth` webhook of a token refresh's outcome (activities/token-refresh.ts). */
  onTokenRefresh: TokenRefreshListener;
  /** The provider plugins' runtime hooks (integrations/plugins.ts `pluginFor`). */
  providerHooks: ProviderHooksLookup;
  /** Secret key, integration and connection lookups, cached with change notifications (features/connections/lookups.ts). */
  lookups: Lookups;
  /** A synchronous action answers as soon as its result is committed (features/actions/notices.ts); absent without a change feed. */
  actionRunNotices?: ActionRunNotices;
  /** This process's request log writes, batched (features/logs/writer.ts): a reader flushes them first. */
  requestLogs: Pick<RequestLogWriter, 'flush'>;
  /** OpenTelemetry when an OTLP endpoint is configured, else null/absent (lib/otel). */
  telemetry?: Telemetry | null;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    environment: Environment;
    /** Set by the route's auth middleware (api/middleware/authenticate.ts): the end user's connect session, null with a secret key. */
    connectSession: ConnectSession | null;
    /** The agent session of an `/mcp` call, null with a secret key. */
    agentSession: Extract<AgentSessionLookup, { session: unknown }> | null;
    /** A provider webhook whose proof was checked (its environment, integration and raw body). */
    providerWebhook: VerifiedWebhook;
    /** The scopes of which a secret key must hold one for this route (api/route.ts `scope`). */
    requiredScopes: readonly string[];
    /** The scopes of the secret key that authenticated the request (secret_key routes). */
    grantedScopes: readonly string[];
    /** Answers a request with the whole app (the legacy /connection aliases). */
    dispatch: (req: Request) => Response | Promise<Response>;
  };
}
