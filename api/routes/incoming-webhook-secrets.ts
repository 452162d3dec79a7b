/**
 * @module api/routes/incoming-webhook-secrets — the secret that authenticates a third party's
 * webhooks to an integration (webhooks/incoming): `GET /integrations/:uniqueKey/webhook-secret`
 * and `POST /integrations/:uniqueKey/webhook-secret/rotate`. Both answer the secret and the
 * webhook URL that carries it.
 */
import { z } from 'zod';
import type { Environment } from '../../features/environments/store.js';
import type { Integration } from '../../features/integrations/store.js';
import { incomingWebhookSecret, rotateIncomingWebhookSecret, SIGNATURE_HEADER } from '../../features/webhooks/incoming.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';
import { integrationOr404, keyParam } from './integrations.js';

const secretResponse = z.object({
  data: z.object({
    webhook_secret: z.string(),
    signature_header: z.string(),
    webhook_url: z.string(),
    webhook_url_with_token: z.string(),
  }),
});

export function providerWebhookUrl(publicUrl: string, env: Environment, i: Integration): string {
  return `${publicUrl}/webhook/${env.uuid}/${encodeURIComponent(i.uniqueKey)}`;
}

function view(deps: AppDeps, env: Environment, i: Integration, secret: string): z.output<typeof secretResponse> {
  const url = providerWebhookUrl(deps.config.publicUrl, env, i);
  return { data: { webhook_secret: secret, signature_header: SIGNATURE_HEADER, webhook_url: url, webhook_url_with_token: `${url}/${secret}` } };
}

export const getIncomingWebhookSecret = defineRoute({
  method: 'get',
  path: '/integrations/:uniqueKey/webhook-secret',
  operationId: 'getIncomingWebhookSecret',
  summary: "The secret a third party's webhooks to this integration must carry (HMAC header or the URL's token)",
  tag: 'integrations',
  auth: 'secret_key',
  request: { params: keyParam },
  responses: { 200: secretResponse },
  errors: [404],
}).handle(async ({ deps, params }, c) => {
  const env = c.get('environment');
  const integration = await integrationOr404(deps, env, params.uniqueKey);
  return view(deps, env, integration, await incomingWebhookSecret(deps.db, deps.box, integration.id));
});

export const rotateIncomingWebhookSecretRoute = defineRoute({
  method: 'post',
  path: '/integrations/:uniqueKey/webhook-secret/rotate',
  operationId: 'rotateIncomingWebhookSecret',
  summary: 'A new secret for incoming webhooks; the old one is refused at once',
  tag: 'integrations',
  auth: 'secret_key',
  request: { params: keyParam },
  responses: { 200: secretResponse },
  errors: [404],
}).handle(async ({ deps, params }, c) => {
  const env = c.get('environment');
  const integration = await integrationOr404(deps, env, params.uniqueKey);
  return view(deps, env, integration, await rotateIncomingWebhookSecret(deps.db, deps.box, integration.id));
});
