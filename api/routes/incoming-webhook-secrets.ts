/**
 * @module api/routes/incoming-webhook-secrets — the secret that authenticates a third party's
 * webhooks to an integration (webhooks/incoming): `GET /integrations/:uniqueKey/webhook-secret`
 * and `POST /integrations/:uniqueKey/webhook-secret/rotate`. Both answer the secret and the
 * webhook URL that carries it.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { Environment } from '../../features/environments/store.js';
import type { Integration } from '../../features/integrations/store.js';
import { incomingWebhookSecret, rotateIncomingWebhookSecret, SIGNATURE_HEADER } from '../../features/webhooks/incoming.js';
import type { AppDeps, AppEnv } from '../context.js';
import { requireSecretKey } from '../middleware/auth.js';
import { describeRoute } from '../openapi.js';
import { params } from '../validate.js';
import { integrationOr404, uniqueKeySchema } from './integrations.js';

const keyParam = z.object({ uniqueKey: uniqueKeySchema });
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

export function incomingWebhookSecretRoutes(deps: AppDeps) {
  const auth = requireSecretKey(deps);
  const view = (env: Environment, i: Integration, secret: string): z.infer<typeof secretResponse> => {
    const url = providerWebhookUrl(deps.config.publicUrl, env, i);
    return { data: { webhook_secret: secret, signature_header: SIGNATURE_HEADER, webhook_url: url, webhook_url_with_token: `${url}/${secret}` } };
  };
  describeRoute({
    method: 'get',
    path: '/integrations/:uniqueKey/webhook-secret',
    summary: "The secret a third party's webhooks to this integration must carry (HMAC header or the URL's token)",
    tag: 'integrations',
    response: secretResponse,
  });
  describeRoute({
    method: 'post',
    path: '/integrations/:uniqueKey/webhook-secret/rotate',
    summary: 'A new secret for incoming webhooks; the old one is refused at once',
    tag: 'integrations',
    response: secretResponse,
  });
  return new Hono<AppEnv>()
    .get('/integrations/:uniqueKey/webhook-secret', auth, async (c) => {
      const env = c.get('environment');
      const integration = await integrationOr404(deps, env, params(c, keyParam).uniqueKey);
      return c.json(view(env, integration, await incomingWebhookSecret(deps.db, deps.box, integration.id)));
    })
    .post('/integrations/:uniqueKey/webhook-secret/rotate', auth, async (c) => {
      const env = c.get('environment');
      const integration = await integrationOr404(deps, env, params(c, keyParam).uniqueKey);
      return c.json(view(env, integration, await rotateIncomingWebhookSecret(deps.db, deps.box, integration.id)));
    });
}
