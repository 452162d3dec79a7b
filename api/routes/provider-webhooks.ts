/**
 * @module api/routes/provider-webhooks — `POST /webhook/:environmentUuid/:providerConfigKey`:
 * real-time webhooks from third parties (no API key). Checkr: the `X-Checkr-Signature` (hex
 * HMAC-SHA256 of the raw body with the integration's client secret) is checked in constant time and
 * a bad or missing one is refused with 401 (Nango only logs it); the event is routed by `account_id`
 * to the connection whose `connection_config.checkr_account_id` matches (`token.deauthorized` by
 * its access code); the check's `BackgroundCheck` record is updated, a signed `forward` webhook is
 * recorded for the developer (delivered durably by webhookDeliveryWorkflow), and the check's
 * backgroundCheckWorkflow is signalled. Checkr gets 200 `{"status":"success"}` once that is written.
 *
 * Syncs whose `webhookSubscriptions` hold the event's `type` (or `*`) get their `onWebhook` run for
 * each routed connection, durably (syncWebhookWorkflow). Providers without routing of their own
 * are received only when one of their syncs subscribes, only when proven by the integration's
 * secret (webhooks/incoming: a signature header or the URL's token; else 401 and nothing runs),
 * and are routed by a `connectionId` at the body's root (no connection: nothing runs).
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Context } from 'hono';
import { z } from 'zod';
import { applyCheckrObject } from '../../integrations/checkr-partner/plugin/background-checks.js';
import { constantTimeEqual, hmacSha256Hex } from '../../lib/crypto.js';
import { connectionPksOfIntegration, getConnection, getConnectionByPk, type Connection } from '../../features/connections/store.js';
import { findEnvironmentByUuid, type Environment } from '../../features/environments/store.js';
import { getIntegration, type Integration } from '../../features/integrations/store.js';
import { BadRequest, NotFound, PayloadTooLarge, Unauthorized } from '../../lib/errors.js';
import { isScriptEnabled, webhookSyncsOf } from '../../features/scripts/catalog.js';
import { taskQueueFor } from '../../lib/temporal/client.js';
import { searchAttributesFor } from '../../lib/temporal/search-attributes.js';
import { emitEvent } from '../../features/webhooks/emit.js';
import { SIGNATURE_HEADER, verifyIncomingWebhook } from '../../features/webhooks/incoming.js';
import { getProvider } from '../../features/providers/providers.js';
import { backgroundCheckWorkflowId, checkrEventSignal } from '../../workflows/background-check-signals.js';
import type { AppDeps, AppEnv } from '../context.js';
import { defineRoute } from '../route.js';
import { params } from '../validate.js';

export const WEBHOOK_BODY_LIMIT_BYTES = 5 * 1024 * 1024;
/** Larger bodies are not handed to onWebhook (they travel in the workflow's input, which Temporal caps at 2 MB). */
export const SYNC_WEBHOOK_PAYLOAD_LIMIT_BYTES = 1024 * 1024;

const pathParams = z.object({ environmentUuid: z.uuid(), providerConfigKey: z.string().min(1).max(255), token: z.string().max(255).optional() });

interface CheckrEvent {
  id?: unknown;
  type?: unknown;
  account_id?: unknown;
  data?: { object?: unknown };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The secrets a Checkr webhook may be signed with: the partner app's client secret (and a webhook secret, if set). */
function checkrSecrets(integration: Integration): string[] {
  return [integration.credentials?.client_secret, integration.credentials?.webhook_secret].filter((s): s is string => Boolean(s));
}

function verifyCheckrSignature(raw: Buffer, header: string | undefined, secrets: string[]): void {
  if (!header) throw new Unauthorized('webhook_missing_signature', 'The X-Checkr-Signature header is missing');
  if (secrets.length === 0) throw new Unauthorized('webhook_invalid_signature', 'The integration has no client secret to verify Checkr webhooks with');
  const given = header.trim().toLowerCase();
  let ok = false;
  for (const secret of secrets) if (constantTimeEqual(hmacSha256Hex(secret, raw), given)) ok = true;
  if (!ok) throw new Unauthorized('webhook_invalid_signature', 'The X-Checkr-Signature does not match the body');
}

async function connectionsOf(deps: AppDeps, integration: Integration, event: CheckrEvent): Promise<Connection[]> {
  const object = isRecord(event.data?.object) ? event.data.object : {};
  if (event.type === 'token.deauthorized' && typeof object.access_code === 'string') {
    // account_id is the partner's own account here; the token names the connection.
    const out: Connection[] = [];
    for (const id of await connectionPksOfIntegration(deps.db, integration.id)) {
      const c = await getConnectionByPk(deps.db, deps.box, id);
      if (c?.credentials.type === 'OAUTH2' && constantTimeEqual(c.credentials.access_token, object.access_code)) out.push(c);
    }
    return out;
  }
  if (typeof event.account_id !== 'string' || event.account_id === '') return [];
  const out: Connection[] = [];
  for (const id of await connectionPksOfIntegration(deps.db, integration.id, { key: 'checkr_account_id', value: event.account_id })) {
    const c = await getConnectionByPk(deps.db, deps.box, id);
    if (c) out.push(c);
  }
  return out;
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
        await deps.temporal.workflow.start('syncWebhookWorkflow', {
          workflowId: `sync-webhook:${env.name}:${integration.uniqueKey}:${connection.connectionId}:${syncName}:${eventKey}`,
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

const webhookSpec = {
  method: 'post',
  summary:
    "A third party's real-time webhook (Checkr: verified by its signature, routed to its connection, forwarded to your backend; any other provider: proven by X-Switchyard-Signature or the URL's token, then the onWebhook of syncs subscribed to its type)",
  tag: 'webhooks',
  auth: 'webhook_secret',
  responses: { 200: z.object({ status: z.literal('success') }) },
  errors: [404, 413],
} as const;

export const receiveProviderWebhook = defineRoute({
  ...webhookSpec,
  path: '/webhook/:environmentUuid/:providerConfigKey',
  operationId: 'receiveProviderWebhook',
  handlerParses: { params: pathParams.omit({ token: true }), body: z.unknown() },
}).handle(async ({ deps }, c) => webhookReceiver(deps)(c));

export const receiveProviderWebhookWithToken = defineRoute({
  ...webhookSpec,
  path: '/webhook/:environmentUuid/:providerConfigKey/:token',
  operationId: 'receiveProviderWebhookWithToken',
  handlerParses: { params: pathParams.required({ token: true }), body: z.unknown() },
}).handle(async ({ deps }, c) => webhookReceiver(deps)(c));

function webhookReceiver(deps: AppDeps) {
  const receive = async (c: Context<AppEnv>) => {
    const { environmentUuid, providerConfigKey, token } = params(c, pathParams);
    const env = await findEnvironmentByUuid(deps.db, environmentUuid);
    if (!env) throw new NotFound('unknown_environment', 'No environment has this id');
    const integration = await getIntegration(deps.db, deps.box, env.id, providerConfigKey);
    if (!integration) throw new NotFound('unknown_provider_config', `Integration ${providerConfigKey} does not exist`);
    const provider = getProvider(integration.provider);
    const checkr = provider?.webhookRouting === 'checkr';
    if (!checkr && (await webhookSyncsOf(deps, integration)).length === 0) {
      throw new NotFound(
        'webhooks_not_supported',
        `${provider?.displayName ?? integration.provider} does not send real-time webhooks; nothing is received here`,
      );
    }

    if (Number(c.req.header('content-length') ?? 0) > WEBHOOK_BODY_LIMIT_BYTES) {
      throw new PayloadTooLarge('payload_too_large', `Webhook bodies are limited to ${WEBHOOK_BODY_LIMIT_BYTES} bytes`);
    }
    const raw = Buffer.from(await c.req.arrayBuffer());
    if (raw.length > WEBHOOK_BODY_LIMIT_BYTES)
      throw new PayloadTooLarge('payload_too_large', `Webhook bodies are limited to ${WEBHOOK_BODY_LIMIT_BYTES} bytes`);
    if (checkr) verifyCheckrSignature(raw, c.req.header('x-checkr-signature'), checkrSecrets(integration));
    else if (!(await verifyIncomingWebhook(deps.db, deps.box, integration.id, raw, { signature: c.req.header(SIGNATURE_HEADER), urlToken: token }))) {
      throw new Unauthorized(
        'webhook_invalid_signature',
        `The webhook is not proven by the integration's secret: sign the raw body (${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256>) or post to the webhook URL that ends with the secret`,
      );
    }

    let event: CheckrEvent;
    try {
      const parsed: unknown = JSON.parse(raw.toString('utf8'));
      if (!isRecord(parsed)) throw new Error('not an object');
      event = parsed;
    } catch {
      throw new BadRequest('invalid_json', 'The webhook body is not a JSON object');
    }

    const eventId = typeof event.id === 'string' ? event.id : null;
    const type = typeof event.type === 'string' ? event.type : 'unknown';
    const syncEvent = { type, id: eventId, payload: event, bytes: raw.length };
    if (!checkr) {
      const connectionId = (event as Record<string, unknown>).connectionId;
      const connection =
        typeof connectionId === 'string' && connectionId !== '' ? await getConnection(deps.db, deps.box, env.id, integration.uniqueKey, connectionId) : null;
      await startSyncWebhooks(deps, env, integration, connection ? [connection] : [], syncEvent);
      return c.json({ status: 'success' }, 200);
    }

    const forwardHeaders = c.req.header();
    const connections = await connectionsOf(deps, integration, event);
    const object = isRecord(event.data?.object) ? event.data.object : null;

    if (connections.length === 0) {
      // Not attributable to a connection: the raw body goes to the developer without the wrapper (as Nango).
      if (integration.forwardWebhooks) {
        await emitEvent(
          deps,
          { environmentId: env.id, type: 'forward', integration: integration.uniqueKey, connectionId: null, payload: event as Record<string, unknown> },
          { forwardHeaders, idempotencyKey: eventId ? `forward:${integration.uniqueKey}::${eventId}` : undefined },
        );
      }
      return c.json({ status: 'success' }, 200);
    }

    for (const connection of connections) {
      const check = object ? await applyCheckrObject(deps.db, connection.id, object) : null;
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
      if (check) {
        // Best effort: a lost signal is made up for by the workflow's polling.
        try {
          await deps.temporal.workflow.getHandle(backgroundCheckWorkflowId(env.name, connection.connectionId, check.invitationId)).signal(checkrEventSignal, {
            eventId,
            type,
            ...(check.invitation ? { invitation: check.invitation } : {}),
            ...(check.report ? { report: check.report } : {}),
          });
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError))
            deps.log.warn({ err, invitationId: check.invitationId }, 'could not signal the background check workflow');
        }
      }
    }
    await startSyncWebhooks(deps, env, integration, connections, syncEvent);
    return c.json({ status: 'success' }, 200);
  };
  return receive;
}
