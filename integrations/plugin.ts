/**
 * @module integrations/plugin — what a provider may add to the generic platform, behind one
 * interface: its own webhooks (signature check, routing to connections, record updates and
 * workflow signals), a step after a connection is authorized, follow-ups after an action run,
 * and activities for its own workflows. A provider's plugin lives in `integrations/<provider>/plugin/`
 * and is listed in integrations/plugins.ts; generic code asks `pluginFor(provider)` and never names
 * a provider. Its workflows are listed in integrations/workflows.ts (pure code, bundled).
 *
 * A provider without a plugin (or without `webhooks`) gets the generic behaviour: webhooks verified and
 * routed by its definition's `webhook` settings (features/webhooks/provider-defined), or, without them,
 * proven by the integration's secret and routed by a `connectionId` at the body's root
 * (features/webhooks/incoming).
 */
import type { Client } from '@temporalio/client';
import type { ActionRun } from '../features/actions/runs.js';
import type { Connection } from '../features/connections/store.js';
import type { Environment } from '../features/environments/store.js';
import type { Integration } from '../features/integrations/store.js';
import type { Clock } from '../lib/clock.js';
import type { Config } from '../lib/config.js';
import type { SecretBox } from '../lib/crypto.js';
import type { Db } from '../lib/db/pool.js';
import type { ProviderHttpClient } from '../lib/http/index.js';
import type { Logger } from '../lib/log.js';
import type { TokenRefreshListener } from '../features/connections/service.js';
import type { Lookups } from '../features/connections/lookups.js';
import type { ProviderHooksLookup, ProviderRuntimeHooks } from '../features/providers/providers.js';

/** What a plugin's hooks and activities may use; the platform's activities get the same (activities/deps.ts), the API a superset. */
export interface PluginDeps {
  db: Db;
  config: Config;
  clock: Clock;
  box: SecretBox;
  log: Logger;
  http: ProviderHttpClient;
  /** Starts workflows (e.g. webhook deliveries of the events emitted). */
  temporal: Client;
  /** Alerts and the `auth` webhook of a token refresh's outcome (activities/token-refresh.ts). */
  onTokenRefresh: TokenRefreshListener;
  /** The plugins' runtime hooks by provider (plugins.ts `pluginFor`). */
  providerHooks: ProviderHooksLookup;
  /** The provider and integration lookups, cached while the process has a change feed (an API in the same process). */
  lookups?: Pick<Lookups, 'provider' | 'integration'>;
}

/** A third party's webhook as received, before it is trusted. */
export interface IncomingProviderWebhook {
  raw: Buffer;
  /** A request header (lower-case name), if present. */
  header(name: string): string | undefined;
}

/** A parsed webhook body (a JSON object). */
export type ProviderWebhookEvent = Record<string, unknown>;

/** A signal the generic handler sends (best effort: a workflow that is gone is skipped) after the event is forwarded. */
export interface WorkflowSignal {
  workflowId: string;
  /** The signal's name (Temporal signal definitions carry it as `name`). */
  signal: string | { name: string };
  args: unknown[];
}

/** Webhooks the provider signs and routes itself (the generic route `POST /webhook/:env/:key` calls these). */
export interface ProviderWebhooks {
  /** Throws Unauthorized (401) when the webhook is not proven to come from the provider. */
  verify(deps: PluginDeps, req: IncomingProviderWebhook, integration: Integration): void | Promise<void>;
  /** The connections the event is about (none: it is forwarded unwrapped, when forwarding is on). */
  route(deps: PluginDeps, integration: Integration, event: ProviderWebhookEvent): Promise<Connection[]>;
  /**
   * The event's effect on one routed connection (e.g. its records), before it is forwarded to the
   * developer; returns the workflow signals to send once it is forwarded.
   */
  apply?(
    deps: PluginDeps,
    target: { env: Environment; integration: Integration; connection: Connection },
    event: ProviderWebhookEvent,
  ): Promise<WorkflowSignal[]>;
}

/** `authorize` (ProviderRuntimeHooks): places the credentials when the definition's templates cannot. */
export interface ProviderPlugin extends ProviderRuntimeHooks {
  /** The catalogue names (features/providers) this plugin serves. */
  providers: readonly string[];
  webhooks?: ProviderWebhooks;
  /** Runs after a connection is authorized, before the end user is told; must not throw (the connection stands). */
  afterConnect?(deps: PluginDeps, connection: Connection): Promise<void>;
  /**
   * Runs after a successful action run of one of its connections (e.g. starts a workflow). Called
   * again when the action activity is retried: must be idempotent.
   */
  afterAction?(deps: PluginDeps, run: ActionRun, connection: Connection): Promise<void>;
  /** Activities of the plugin's workflows, registered on every worker. */
  activities?(deps: PluginDeps): Record<string, (...args: never[]) => Promise<unknown>>;
}
