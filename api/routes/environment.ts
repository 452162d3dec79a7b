/**
 * @module api/routes/environment — the environment's webhook, alert and OTLP settings and its
 * webhook signing key.
 */
import { z } from 'zod';
import type { Environment } from '../../features/environments/store.js';
import { ValidationFailed } from '../../lib/errors.js';
import { assertUrlAllowed } from '../../lib/http/index.js';
import { getSettings, rotateSigningKey, signingKeys, updateSettings, type EnvironmentSettings } from '../../features/webhooks/settings.js';
import type { AppDeps } from '../context.js';
import { defineRoute } from '../route.js';

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);
const clearableUrl = z.union([httpUrl, z.literal(''), z.null()]);

const patchBody = z
  .object({
    webhook_url: clearableUrl.optional(),
    secondary_webhook_url: clearableUrl.optional(),
    webhook_events: z
      .object({
        auth: z.boolean().optional(),
        sync: z.boolean().optional(),
        async_action: z.boolean().optional(),
        on_sync_completion_always: z.boolean().optional(),
      })
      .strict()
      .optional(),
    alert_webhook_url: clearableUrl.optional(),
    webhook_max_per_second: z.number().positive().max(10_000).nullable().optional(),
    otlp_endpoint: clearableUrl.optional(),
    otlp_headers: z
      .array(
        z
          .object({
            name: z
              .string()
              .min(1)
              .max(256)
              .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not a valid header name'),
            value: z.string().max(8192),
          })
          .strict(),
      )
      .max(32)
      .nullable()
      .optional(),
  })
  .strict();

const settingsResponse = z.object({
  data: z.object({
    name: z.string(),
    webhook_url: z.string().nullable(),
    secondary_webhook_url: z.string().nullable(),
    webhook_events: z.object({ auth: z.boolean(), sync: z.boolean(), async_action: z.boolean(), forward: z.boolean(), on_sync_completion_always: z.boolean() }),
    alert_webhook_url: z.string().nullable(),
    webhook_max_per_second: z.number().nullable(),
    otlp_endpoint: z.string().nullable(),
    otlp_headers: z.array(z.object({ name: z.string() })),
    webhook_signing_key: z.string(),
    previous_webhook_signing_key_expires_at: z.string().nullable(),
  }),
});
const rotateResponse = z.object({ data: z.object({ webhook_signing_key: z.string() }) });

type UrlField = 'webhook_url' | 'secondary_webhook_url' | 'alert_webhook_url' | 'otlp_endpoint';
const URL_FIELDS: UrlField[] = ['webhook_url', 'secondary_webhook_url', 'alert_webhook_url', 'otlp_endpoint'];

/** 400 naming every field of `input` whose URL points where the platform may not send (private hosts). */
export async function assertUrlsAllowed<F extends string>(deps: AppDeps, input: Partial<Record<F, string | null>>, fields: readonly F[]): Promise<void> {
  const problems: ValidationFailed['errors'] = [];
  for (const field of fields) {
    const url = input[field];
    if (!url) continue;
    try {
      await assertUrlAllowed(url, deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS);
    } catch (err) {
      problems.push({ code: 'url_not_allowed', message: (err as Error).message, path: [field] });
    }
  }
  if (problems.length) throw new ValidationFailed('invalid_body', problems);
}

async function view(deps: AppDeps, env: Environment, settings: EnvironmentSettings): Promise<z.infer<typeof settingsResponse>> {
  const keys = await signingKeys(deps.db, deps.box, env.id);
  return {
    data: {
      name: env.name,
      webhook_url: settings.webhookUrl,
      secondary_webhook_url: settings.secondaryWebhookUrl,
      // `forward` webhooks are always sent when a URL exists (as in Nango); shown for completeness.
      webhook_events: { ...settings.events, forward: true },
      alert_webhook_url: settings.alertWebhookUrl,
      webhook_max_per_second: settings.webhookMaxPerSecond,
      otlp_endpoint: settings.otlpEndpoint,
      otlp_headers: settings.otlpHeaders.map((h) => ({ name: h.name })),
      webhook_signing_key: keys.current,
      previous_webhook_signing_key_expires_at: keys.previousExpiresAt?.toISOString() ?? null,
    },
  };
}

export const getEnvironment = defineRoute({
  method: 'get',
  path: '/environment',
  operationId: 'getEnvironment',
  summary: 'The environment: webhook URLs, event kinds, alert webhook, OTLP export, webhook signing key',
  tag: 'environment',
  auth: 'secret_key',
  responses: { 200: settingsResponse },
  errors: [],
}).handle(async ({ deps }, c) => {
  const env = c.get('environment');
  return view(deps, env, await getSettings(deps.db, deps.box, env.id));
});

export const updateEnvironment = defineRoute({
  method: 'patch',
  path: '/environment',
  operationId: 'updateEnvironment',
  summary: 'Change webhook URLs, event kinds, per-endpoint webhook rate, alert webhook, OTLP export (null or "" clears a URL)',
  tag: 'environment',
  auth: 'secret_key',
  request: { body: patchBody },
  responses: { 200: settingsResponse },
  errors: [],
}).handle(async ({ deps, body: input }, c) => {
  const env = c.get('environment');
  await assertUrlsAllowed(deps, input, URL_FIELDS);
  const clear = (v: string | null | undefined) => (v === undefined ? undefined : v || null);
  const settings = await updateSettings(deps.db, deps.box, env.id, {
    webhookUrl: clear(input.webhook_url),
    secondaryWebhookUrl: clear(input.secondary_webhook_url),
    alertWebhookUrl: clear(input.alert_webhook_url),
    otlpEndpoint: clear(input.otlp_endpoint),
    otlpHeaders: input.otlp_headers,
    webhookMaxPerSecond: input.webhook_max_per_second,
    events: input.webhook_events,
  });
  return view(deps, env, settings);
});

export const rotateWebhookSigningKey = defineRoute({
  method: 'post',
  path: '/environment/webhook-signing-key/rotate',
  operationId: 'rotateWebhookSigningKey',
  summary: 'New webhook signing key; the previous one also signs (X-Switchyard-Signature-V2) for 24 h',
  tag: 'environment',
  auth: 'secret_key',
  scope: 'environment:webhook_signing_key:rotate',
  responses: { 200: rotateResponse },
  errors: [],
}).handle(async ({ deps }, c) => {
  const env = c.get('environment');
  const key = await rotateSigningKey(deps.db, deps.box, env.id);
  return { data: { webhook_signing_key: key } };
});
