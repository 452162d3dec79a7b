/**
 * @module api/routes/provider-webhooks — `POST /webhook/:environmentUuid/:providerConfigKey[/:token]`:
 * real-time webhooks from third parties (no API key), received by api/provider-webhooks.ts (the
 * provider's plugin verifies and routes them, else its definition's `webhook` settings, else the
 * integration's secret and a `connectionId`).
 */
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppDeps, AppEnv } from '../context.js';
import { receiveProviderWebhook } from '../provider-webhooks.js';
import { defineRoute } from '../route.js';

const pathParams = z.object({ environmentUuid: z.uuid(), providerConfigKey: z.string().min(1).max(255), token: z.string().max(255).optional() });

const webhookSpec = {
  method: 'post',
  summary:
    "A third party's real-time webhook (a provider with a plugin, or with `webhook` settings in its definition: verified by its own signature, routed to its connections, forwarded to your backend, then the onWebhook of syncs subscribed to its type; any other provider: proven by X-Switchyard-Signature or the URL's token, then the onWebhook of subscribed syncs)",
  tag: 'webhooks',
  auth: 'webhook_secret',
  responses: { 200: z.object({ status: z.literal('success') }) },
  errors: [404, 413],
} as const;

export const receiveProviderWebhookRoute = defineRoute({
  ...webhookSpec,
  path: '/webhook/:environmentUuid/:providerConfigKey',
  operationId: 'receiveProviderWebhook',
  handlerParses: { params: pathParams.omit({ token: true }), body: z.unknown() },
}).handle(async ({ deps }, c) => receive(deps, c));

export const receiveProviderWebhookWithToken = defineRoute({
  ...webhookSpec,
  path: '/webhook/:environmentUuid/:providerConfigKey/:token',
  operationId: 'receiveProviderWebhookWithToken',
  handlerParses: { params: pathParams.required({ token: true }), body: z.unknown() },
}).handle(async ({ deps }, c) => receive(deps, c));

// The body is read raw (signatures are over its bytes) by the webhook_secret middleware, which parses the path too.
async function receive(deps: AppDeps, c: Context<AppEnv>) {
  return c.json(await receiveProviderWebhook(deps, c.get('providerWebhook'), () => c.req.header()), 200);
}
