/**
 * @module api/routes/provider-webhooks — `POST /webhook/:environmentUuid/:providerConfigKey[/:token]`:
 * real-time webhooks from third parties (no API key), received by api/provider-webhooks.ts (the
 * provider's plugin verifies and routes them, else the integration's secret and a `connectionId`).
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppDeps, AppEnv } from '../context.js';
import { describeRoute } from '../openapi.js';
import { params } from '../validate.js';
import { receiveProviderWebhook } from '../provider-webhooks.js';

const pathParams = z.object({ environmentUuid: z.uuid(), providerConfigKey: z.string().min(1).max(255), token: z.string().max(255).optional() });

export function providerWebhookRoutes(deps: AppDeps) {
  for (const path of ['/webhook/:environmentUuid/:providerConfigKey', '/webhook/:environmentUuid/:providerConfigKey/:token']) {
    describeRoute({
      method: 'post',
      path,
      summary:
        "A third party's real-time webhook (a provider with a plugin: verified by its own signature, routed to its connections, forwarded to your backend; any other provider: proven by X-Switchyard-Signature or the URL's token, then the onWebhook of syncs subscribed to its type)",
      tag: 'webhooks',
      auth: 'none',
    });
  }
  const receive = async (c: Context<AppEnv>) => {
    const { environmentUuid, providerConfigKey, token } = params(c, pathParams);
    const answer = await receiveProviderWebhook(deps, {
      environmentUuid,
      providerConfigKey,
      token,
      header: (name) => c.req.header(name),
      headers: () => c.req.header(),
      body: () => c.req.arrayBuffer(),
    });
    return c.json(answer, 200);
  };
  return new Hono<AppEnv>().post('/webhook/:environmentUuid/:providerConfigKey', receive).post('/webhook/:environmentUuid/:providerConfigKey/:token', receive);
}
