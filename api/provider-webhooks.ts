/**
 * @module api/provider-webhooks — the generic half of `POST /webhook/:environmentUuid/:providerConfigKey`:
 * real-time webhooks from third parties (no API key).
 *
 * A provider whose plugin has `webhooks` (integrations/plugins.ts) signs and routes them itself: the
 * plugin verifies the webhook (a bad or missing signature is refused with 401) and names the
 * connections it is about; for each, the plugin applies it (e.g. updates records), a signed
 * `forward` webhook is recorded for the developer (delivered durably by webhookDeliveryWorkflow;
 * an event routed nowhere is forwarded unwrapped, as Nango), and the signals the plugin returned are
 * sent (best effort). The provider gets 200 `{"status":"success"}` once that is written.
 *
 * A provider without plugin webhooks whose definition has `webhook` settings (catalogue or
 * user-defined) is handled the same way, from its definition (features/webhooks/provider-defined):
 * the signature header is checked against the HMAC of the raw body with the integration's client
 * secret or webhook secret (missing or bad: 401, nothing runs; with `timestamp_header`, one more than
 * 5 minutes off: 401), and the event goes to the connections whose
 * `connection_config[routing.connection_config_key]` equals the value at `routing.body_path` (no
 * `routing`: a `connectionId` at the body's root); nothing is applied and no workflow is signalled.
 * Routing by a connection_config value (a plugin's or the definition's) only counts values the
 * provider returned or the developer set (features/webhooks/routing).
 *
 * Syncs whose `webhookSubscriptions` hold the event's `type` (or `*`) get their `onWebhook` run for
 * each routed connection, durably (syncWebhookWorkflow). Providers with neither plugin webhooks nor
 * webhook settings are received only when one of their syncs subscribes, only when proven by the
 * integration's secret (webhooks/incoming: a signature header or a URL token; else 401 and nothing
 * runs), and are routed by a `connectionId` at the body's root when signed, to the URL's connection
 * when posted to a connection's URL, and nowhere when posted to the integration-wide URL.
 *
 * An event with an `id` at its root is processed once per integration (webhooks/received-events): a
 * redelivery or replay is answered 200 and nothing runs again.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { getConnectionByPk, type Connection } from '../features/connections/store.js';
import { findEnvironmentByUuid, type Environment } from '../features/environments/store.js';
import type { Integration } from '../features/integrations/store.js';
import { requireIntegration } from '../features/connections/resolve.js';
import { isScriptEnabled, webhookSyncsOf } from '../features/scripts/catalog.js';
import { emitEvent } from '../features/webhooks/emit.js';
import { SIGNATURE_HEADER, storedIncomingWebhookSecret, verifyIncomingWebhook, type IncomingSender } from '../features/webhooks/incoming.js';
import { checkDefinedSignature, definedRoute, definedWebhookSecret, needsGeneratedSecret } from '../features/webhooks/provider-defined.js';
import { claimWebhookEvent, finishWebhookEvent, releaseWebhookEvent } from '../features/webhooks/received-events.js';
import { connectionsRoutedBy } from '../features/webhooks/routing.js';
import type { ProviderWebhookSettings } from '../features/providers/definition.js';
import { findProvider } from '../features/providers/store.js';
import type { ProviderWebhookEvent, ProviderWebhooks } from '../integrations/plugin.js';
import { pluginFor } from '../integrations/plugins.js';
import { BadRequest, NotFound, PayloadTooLarge, Unauthorized } from '../lib/errors.js';
import { searchAttributesFor, startWorkflow, syncWebhookWorkflowId, taskQueueFor } from '../workflows/contracts.js';
import type { AppDeps } from './context.js';

export const WEBHOOK_BODY_LIMIT_BYTES = 5 * 1024 * 1024;
/** Larger bodies are not handed to onWebhook (they travel in the workflow's input, which Temporal caps at 2 MB). */
export const SYNC_WEBHOOK_PAYLOAD_LIMIT_BYTES = 1024 * 1024;

/** A provider's webhook as the route hands it over. */
export interface ProviderWebhookRequest {
  environmentUuid: string;
  providerConfigKey: string;
  /** The URL's last segment (`/webhook/:env/:key/:token`): the integration's secret, for providers given only a URL. */
  token?: string;
  /** A request header (case-insensitive name). */
  header(name: string): string | undefined;
  /** Every request header (forwarded with the `forward` webhook). */
  headers(): Record<string, string>;
  body(): Promise<ArrayBuffer>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A provider webhook whose proof was checked: what receiveProviderWebhook goes on with. */
export interface VerifiedWebhook {
  env: Environment;
  integration: Integration;
  own: ProviderWebhooks | null;
  /** Who proved it when the integration's secret did (no plugin or definition settings). */
  sender: IncomingSender | null;
  raw: Buffer;
}

/**
 * Checks a provider webhook's proof (the `webhook_secret` auth kind, api/middleware/authenticate.ts):
 * the plugin's or definition's signature, else the integration's secret; throws 404, 413 or 401.
 */
export async function verifyProviderWebhook(deps: AppDeps, req: Omit<ProviderWebhookRequest, 'headers'>): Promise<VerifiedWebhook> {
  const env = await findEnvironmentByUuid(deps.db, req.environmentUuid);
  if (!env) throw new NotFound('unknown_environment', 'No environment has this id');
  const integration = await requireIntegration(deps.lookups, env, req.providerConfigKey, 'webhook');
  const own = await webhooksOf(deps, env, integration);
  if (!own && (await webhookSyncsOf(deps, integration)).length === 0) {
    const provider = await findProvider(deps.db, env.id, integration.provider);
    throw new NotFound('webhooks_not_supported', `${provider?.displayName ?? integration.provider} does not send real-time webhooks; nothing is received here`);
  }

  if (Number(req.header('content-length') ?? 0) > WEBHOOK_BODY_LIMIT_BYTES) {
    throw new PayloadTooLarge('payload_too_large', `Webhook bodies are limited to ${WEBHOOK_BODY_LIMIT_BYTES} bytes`);
  }
  const raw = Buffer.from(await req.body());
  if (raw.length > WEBHOOK_BODY_LIMIT_BYTES) throw new PayloadTooLarge('payload_too_large', `Webhook bodies are limited to ${WEBHOOK_BODY_LIMIT_BYTES} bytes`);
  let sender: IncomingSender | null = null;
  if (own) await own.verify(deps, { raw, header: req.header }, integration);
  else if (!(sender = await verifyIncomingWebhook(deps.db, deps.box, integration.id, raw, { signature: req.header(SIGNATURE_HEADER), urlToken: req.token }))) {
    throw new Unauthorized(
      'webhook_invalid_signature',
      `The webhook is not proven by the integration's secret: sign the raw body (${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256>) or post to the connection's webhook URL (GET /integrations/:key/webhook-secret?connection_id=)`,
    );
  }
  return { env, integration, own: own ?? null, sender, raw };
}

/** Receives one verified provider webhook; resolves with the body of the 200 answer, or throws an HTTP error (400). */
export async function receiveProviderWebhook(deps: AppDeps, verified: VerifiedWebhook, headers: () => Record<string, string>): Promise<{ status: 'success' }> {
  const { env, integration, own, sender, raw } = verified;

  let event: ProviderWebhookEvent;
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    if (!isRecord(parsed)) throw new Error('not an object');
    event = parsed;
  } catch {
    throw new BadRequest('invalid_json', 'The webhook body is not a JSON object');
  }

  const eventId = typeof event.id === 'string' && event.id !== '' ? event.id : null;
  const type = typeof event.type === 'string' ? event.type : 'unknown';
  const onceKey = eventId && onceKeyOf(eventId, sender);
  if (onceKey && !(await claimWebhookEvent(deps.db, integration.id, onceKey))) {
    deps.log.info({ integration: integration.uniqueKey, eventId, type }, 'provider webhook event already received: not processed again');
    return { status: 'success' };
  }
  try {
    const connections = own
      ? await receiveOwnWebhook(deps, own, env, integration, event, eventId, headers())
      : await connectionsOfSender(deps, env, integration, event, sender!);
    await startSyncWebhooks(deps, env, integration, connections, { type, id: eventId, payload: event, bytes: raw.length });
  } catch (err) {
    // Not processed: the provider's redelivery must run it.
    if (onceKey) await releaseWebhookEvent(deps.db, integration.id, onceKey);
    throw err;
  }
  if (onceKey) await finishWebhookEvent(deps.db, integration.id, onceKey);
  return { status: 'success' };
}

/**
 * What an event id is remembered by: the id itself when the provider (its signature) or the developer
 * sent it; within the connection for a connection's URL, whose holder must not be able to use up
 * another connection's event ids; nothing for the integration-wide URL (it runs nothing).
 */
function onceKeyOf(eventId: string, sender: IncomingSender | null): string | null {
  if (sender?.by === 'integration_token') return null;
  return sender?.by === 'connection_token' ? `c${sender.connectionPk}:${eventId}` : eventId;
}

/**
 * The generic routing, by how the webhook was proven: a signed body names its connection; a
 * connection's URL routes to that connection only; the integration-wide URL, handed to third parties,
 * to none (else whoever has it could name any connection of the integration).
 */
async function connectionsOfSender(
  deps: AppDeps,
  env: Environment,
  integration: Integration,
  event: ProviderWebhookEvent,
  sender: IncomingSender,
): Promise<Connection[]> {
  if (sender.by === 'signature') return connectionNamedIn(deps, env, integration, event);
  if (sender.by === 'connection_token') {
    const connection = await getConnectionByPk(deps.db, deps.box, sender.connectionPk);
    return connection?.integrationId === integration.id ? [connection] : [];
  }
  if (event.connectionId !== undefined) {
    deps.log.warn(
      { integration: integration.uniqueKey },
      "a webhook to the integration-wide URL names a connection: not routed (post to the connection's own URL, or sign the body)",
    );
  }
  return [];
}

/** A `connectionId` at the body's root. */
async function connectionNamedIn(
  deps: Pick<AppDeps, 'lookups'>,
  env: Environment,
  integration: Integration,
  event: ProviderWebhookEvent,
): Promise<Connection[]> {
  const connectionId = event.connectionId;
  const connection =
    typeof connectionId === 'string' && connectionId !== '' ? await deps.lookups.connection(env.id, integration.uniqueKey, connectionId) : null;
  return connection ? [connection] : [];
}

/** Who verifies and routes the integration's webhooks: its provider's plugin, else its definition's `webhook` settings, else nobody (the generic path). */
async function webhooksOf(deps: AppDeps, env: Environment, integration: Integration): Promise<ProviderWebhooks | undefined> {
  const plugin = pluginFor(integration.provider)?.webhooks;
  if (plugin) return plugin;
  const settings = (await findProvider(deps.db, env.id, integration.provider))?.definition.webhook;
  return settings ? definedWebhooks(env, settings, deps) : undefined;
}

/** A provider's webhooks as its definition describes them (features/webhooks/provider-defined). */
function definedWebhooks(env: Environment, settings: ProviderWebhookSettings, deps: Pick<AppDeps, 'lookups'>): ProviderWebhooks {
  return {
    async verify(verifyDeps, req, integration) {
      const generated = needsGeneratedSecret(settings, integration.credentials)
        ? await storedIncomingWebhookSecret(verifyDeps.db, verifyDeps.box, integration.id)
        : null;
      const secret = definedWebhookSecret(settings, integration.credentials, generated);
      const timestamp = settings.timestamp_header ? req.header(settings.timestamp_header) : undefined;
      const check = checkDefinedSignature(settings, req.raw, req.header(settings.signature_header), secret, { timestamp, now: verifyDeps.clock.now() });
      if (check.ok) return;
      if (check.reason === 'missing_signature') throw new Unauthorized('webhook_missing_signature', `The ${settings.signature_header} header is missing`);
      if (check.reason === 'missing_timestamp')
        throw new Unauthorized('webhook_missing_timestamp', `The ${settings.timestamp_header} header is missing or not a Unix time in seconds`);
      if (check.reason === 'stale_timestamp')
        throw new Unauthorized('webhook_stale_timestamp', `The ${settings.timestamp_header} is more than 5 minutes from now: refused as a replay`);
      if (check.reason === 'no_secret')
        throw new Unauthorized(
          'webhook_invalid_signature',
          settings.secret === 'client_secret'
            ? 'The integration has no client secret to verify webhooks with'
            : 'The integration has no webhook secret to verify webhooks with: set webhook_secret in its credentials, or use the one GET /integrations/:key/webhook-secret generates',
        );
      throw new Unauthorized('webhook_invalid_signature', `The ${settings.signature_header} does not match the body`);
    },
    async route(routeDeps, integration, event) {
      if (!settings.routing) return connectionNamedIn(deps, env, integration, event);
      const where = definedRoute(settings.routing, event);
      return where ? connectionsRoutedBy(routeDeps, integration, where.configKey, where.value) : [];
    },
  };
}

/** A webhook the provider's plugin routes: applied per connection, forwarded to the developer, then the plugin's signals. */
async function receiveOwnWebhook(
  deps: AppDeps,
  plugin: ProviderWebhooks,
  env: Environment,
  integration: Integration,
  event: ProviderWebhookEvent,
  eventId: string | null,
  forwardHeaders: Record<string, string>,
): Promise<Connection[]> {
  const connections = await plugin.route(deps, integration, event);
  if (connections.length === 0) {
    // Not attributable to a connection: the raw body goes to the developer without the wrapper (as Nango).
    if (integration.forwardWebhooks) {
      await emitEvent(
        deps,
        { environmentId: env.id, type: 'forward', integration: integration.uniqueKey, connectionId: null, payload: event },
        { forwardHeaders, idempotencyKey: eventId ? `forward:${integration.uniqueKey}::${eventId}` : undefined },
      );
    }
    return connections;
  }

  for (const connection of connections) {
    const signals = plugin.apply ? await plugin.apply(deps, { env, integration, connection }, event) : [];
    if (integration.forwardWebhooks) {
      await emitEvent(
        deps,
        {
          environmentId: env.id,
          type: 'forward',
          integration: integration.uniqueKey,
          connectionId: connection.connectionId,
          payload: {
            from: integration.provider,
            type: 'forward',
            providerConfigKey: integration.uniqueKey,
            connectionId: connection.connectionId,
            payload: event,
          },
        },
        { forwardHeaders, idempotencyKey: eventId ? `forward:${integration.uniqueKey}:${connection.connectionId}:${eventId}` : undefined },
      );
    }
    for (const s of signals) {
      // Best effort: the plugin's workflow makes up for a lost signal (or is gone).
      try {
        await deps.temporal.workflow.getHandle(s.workflowId).signal(typeof s.signal === 'string' ? s.signal : s.signal.name, ...s.args);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) deps.log.warn({ err, workflowId: s.workflowId }, 'could not signal the workflow of a provider webhook');
      }
    }
  }
  return connections;
}

/** Starts syncWebhookWorkflow for every subscribed, activated sync and every routed connection (once per event id). */
async function startSyncWebhooks(
  deps: AppDeps,
  env: Environment,
  integration: Integration,
  connections: Connection[],
  event: { type: string; id: string | null; payload: unknown; bytes: number },
): Promise<void> {
  if (connections.length === 0) return;
  const syncs = [];
  for (const [name, sync] of await webhookSyncsOf(deps, integration, event.type)) if (await isScriptEnabled(deps.db, integration, sync)) syncs.push(name);
  if (syncs.length === 0) return;
  if (event.bytes > SYNC_WEBHOOK_PAYLOAD_LIMIT_BYTES) {
    deps.log.warn(
      { integration: integration.uniqueKey, type: event.type, bytes: event.bytes },
      'webhook body too large for onWebhook: not processed by the syncs',
    );
    return;
  }
  const eventKey = event.id ?? randomUUID();
  for (const connection of connections) {
    for (const syncName of syncs) {
      try {
        await startWorkflow(deps.temporal, 'syncWebhookWorkflow', {
          workflowId: syncWebhookWorkflowId(env.name, integration.uniqueKey, connection.connectionId, syncName, eventKey),
          taskQueue: taskQueueFor(deps.config.SWITCHYARD_TASK_QUEUE_PREFIX, env.name),
          args: [{ connectionPk: connection.id, syncName, type: event.type, payload: event.payload }],
          typedSearchAttributes: searchAttributesFor({
            environment: env.name,
            integration: integration.uniqueKey,
            connection: connection.connectionId,
            script: syncName,
          }),
          staticSummary: `${syncName} onWebhook (${event.type}) for ${integration.uniqueKey}/${connection.connectionId}`,
        });
      } catch (err) {
        // The same event delivered again: its run exists already.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    }
  }
}
