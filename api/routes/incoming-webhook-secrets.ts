/**
 * @module api/routes/incoming-webhook-secrets — the secret that authenticates a third party's
 * webhooks to an integration (webhooks/incoming): `GET /integrations/:uniqueKey/webhook-secret`
 * and `POST /integrations/:uniqueKey/webhook-secret/rotate`. Both answer the secret and the
 * webhook URL that carries it; with `?connection_id=`, also that connection's own URL, the one to hand
 * to a third party that can only be given a URL (the integration-wide one routes to no connection).
 */
import { z } from 'zod';
import type { Environment } from '../../features/environments/store.js';
import type { Integration } from '../../features/integrations/store.js';
import { findConnectionPkOfIntegration } from '../../features/connections/store.js';
import { connectionWebhookToken, incomingWebhookSecret, rotateIncomingWebhookSecret, SIGNATURE_HEADER } from '../../features/webhooks/incoming.js';
import { NotFound } from '../../lib/errors.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';
import { connectionIdSchema } from './connections.js';
import { integrationOr404, keyParam } from './integrations.js';

const secretResponse = z.object({
  data: z.object({
    webhook_secret: z.string(),
    signature_header: z.string(),
    webhook_url: z.string(),
    webhook_url_with_token: z.string(),
    /** With `?connection_id=`: the URL that routes to that connection only. */
    connection_webhook_url: z.string().optional(),
  }),
});

const connectionQuery = z.object({ connection_id: connectionIdSchema.optional() }).strict();

export function providerWebhookUrl(publicUrl: string, env: Environment, i: Integration): string {
  return `${publicUrl}/webhook/${env.uuid}/${encodeURIComponent(i.uniqueKey)}`;
}

async function view(deps: AppDeps, env: Environment, i: Integration, secret: string, connectionId?: string): Promise<z.output<typeof secretResponse>> {
  const url = providerWebhookUrl(deps.config.publicUrl, env, i);
  let connectionUrl: string | undefined;
  if (connectionId !== undefined) {
    const pk = await findConnectionPkOfIntegration(deps.db, i.id, connectionId);
    if (pk === null) throw new NotFound('unknown_connection', `Connection ${connectionId} of integration ${i.uniqueKey} does not exist`);
    connectionUrl = `${url}/${connectionWebhookToken(secret, pk)}`;
  }
  return {
    data: {
      webhook_secret: secret,
      signature_header: SIGNATURE_HEADER,
      webhook_url: url,
      webhook_url_with_token: `${url}/${secret}`,
      ...(connectionUrl ? { connection_webhook_url: connectionUrl } : {}),
    },
  };
}

export const getIncomingWebhookSecret = defineRoute({
  method: 'get',
  path: '/integrations/:uniqueKey/webhook-secret',
  operationId: 'getIncomingWebhookSecret',
  summary: "The secret a third party's webhooks to this integration must carry (HMAC header or the URL's token)",
  tag: 'integrations',
  auth: 'secret_key',
  request: { params: keyParam, query: connectionQuery },
  responses: { 200: secretResponse },
  errors: [404],
}).handle(async ({ deps, params, query }, c) => {
  const env = c.get('environment');
  const integration = await integrationOr404(deps, env, params.uniqueKey);
  return view(deps, env, integration, await incomingWebhookSecret(deps.db, deps.box, integration.id), query.connection_id);
});

export const rotateIncomingWebhookSecretRoute = defineRoute({
  method: 'post',
  path: '/integrations/:uniqueKey/webhook-secret/rotate',
  operationId: 'rotateIncomingWebhookSecret',
  summary: 'A new secret for incoming webhooks; the old one is refused at once',
  tag: 'integrations',
  auth: 'secret_key',
  request: { params: keyParam, query: connectionQuery },
  responses: { 200: secretResponse },
  errors: [404],
}).handle(async ({ deps, params, query }, c) => {
  const env = c.get('environment');
  const integration = await integrationOr404(deps, env, params.uniqueKey);
  return view(deps, env, integration, await rotateIncomingWebhookSecret(deps.db, deps.box, integration.id), query.connection_id);
});
