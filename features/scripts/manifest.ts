/**
 * @module features/scripts/manifest — what `switchyard compile` writes for each script and what a deploy
 * stores next to the bundle: name, type, endpoints, frequency, models and inputs as JSON Schema.
 * Shared by the CLI and the API, so both refuse the same mistakes with the same words.
 */
import { z } from 'zod';
import { parseFrequency } from '../syncs/frequency.js';

export const SCRIPT_NAME = /^[a-zA-Z0-9_-]+$/;
export const MODEL_NAME = /^[A-Z][a-zA-Z0-9_-]+$/;

const jsonSchema = z.record(z.string(), z.unknown());

export const endpointSchema = z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    path: z
      .string()
      .max(512)
      .regex(/^\/[A-Za-z0-9_\-./~]*$/, 'an endpoint path starts with / and has letters, digits and _-./~ only'),
    group: z.string().max(255).optional(),
  })
  .strict();

export const scriptManifestSchema = z
  .object({
    integration: z
      .string()
      .regex(/^[a-zA-Z0-9~:.@ _-]+$/, 'an integration key has letters, digits and ~:.@ _- only')
      .max(255),
    name: z.string().regex(SCRIPT_NAME, 'a script name has letters, digits, _ and - only').max(255),
    type: z.enum(['sync', 'action', 'on-event']),
    description: z.string().max(5000).default(''),
    version: z.string().max(64).nullable().default(null),
    endpoints: z.array(endpointSchema).max(50).default([]),
    frequency: z.string().nullable().default(null),
    autoStart: z.boolean().default(false),
    syncType: z.enum(['full', 'incremental']).nullable().default(null),
    event: z.enum(['post-connection-creation', 'pre-connection-deletion', 'validate-connection']).nullable().default(null),
    scopes: z.array(z.string().max(512)).max(200).default([]),
    webhookSubscriptions: z.array(z.string().max(512)).max(200).default([]),
    models: z.record(z.string().regex(MODEL_NAME, 'a model name starts with an uppercase letter, then letters, digits, _ or -'), jsonSchema).default({}),
    input: jsonSchema.nullable().default(null),
    output: jsonSchema.nullable().default(null),
    metadata: jsonSchema.nullable().default(null),
    checkpoint: jsonSchema.nullable().default(null),
  })
  .superRefine((m, ctx) => {
    if (m.type === 'sync') {
      if (!m.frequency || parseFrequency(m.frequency) === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['frequency'],
          message: `a sync needs a frequency such as "every hour", "30 minutes" or "1d" (at least 30 seconds); got ${JSON.stringify(m.frequency)}`,
        });
      }
      if (Object.keys(m.models).length === 0) ctx.addIssue({ code: 'custom', path: ['models'], message: 'a sync declares at least one model' });
    }
    // Nango 0.71 makes `endpoint(s)` optional: such a function is called by its name (POST /action/trigger, MCP, tools; records by model).
    if (m.type === 'action' && m.endpoints.length > 1) {
      ctx.addIssue({ code: 'custom', path: ['endpoints'], message: 'an action declares at most one endpoint, e.g. { method: "POST", path: "/items" }' });
    }
    if (m.type === 'on-event' && !m.event) ctx.addIssue({ code: 'custom', path: ['event'], message: 'an on-event script names its event' });
    const seen = new Set<string>();
    m.endpoints.forEach((e, i) => {
      const key = `${e.method} ${e.path}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['endpoints', i], message: `${key} is declared twice` });
      seen.add(key);
    });
  });

export type ScriptManifest = z.output<typeof scriptManifestSchema>;

/**
 * Paths that belong to the platform: a script endpoint there would be shadowed by (or shadow) a
 * platform route. Compared on the first path segment.
 */
export const RESERVED_PREFIXES = [
  '/proxy',
  '/records',
  '/record',
  '/sync',
  '/action',
  '/integrations',
  '/integration',
  '/connect',
  '/connect-ui',
  '/api-auth',
  '/sdk.js',
  '/connections',
  '/connection',
  '/oauth',
  '/webhook',
  '/webhooks',
  '/webhook-deliveries',
  '/environment',
  '/environment-variables',
  '/environments',
  '/logs',
  '/alerts',
  '/health',
  '/openapi.json',
  '/dashboard',
  '/scripts',
  '/providers',
  '/provider',
  '/diagnostics',
  '/config',
  '/images',
  '/v1',
  '/api-keys',
  '/functions',
];

/** The platform route a script endpoint collides with, or null. */
export function reservedCollision(e: { method: string; path: string }): string | null {
  const first = `/${e.path.split('/')[1] ?? ''}`.toLowerCase();
  const hit = RESERVED_PREFIXES.find((p) => first === p || first.startsWith(`${p}.`));
  return hit ?? (e.path === '/' ? '/' : null);
}

/** The problems of one manifest, worded for the person who wrote the script. */
export function manifestProblems(raw: unknown): { manifest: ScriptManifest | null; problems: string[] } {
  const parsed = scriptManifestSchema.safeParse(raw);
  if (!parsed.success) {
    return { manifest: null, problems: parsed.error.issues.map((i) => `${i.path.join('.') || '(manifest)'}: ${i.message}`) };
  }
  const problems: string[] = [];
  for (const e of parsed.data.endpoints) {
    const hit = reservedCollision(e);
    if (hit) problems.push(`endpoint ${e.method} ${e.path} collides with the platform route ${hit === '/' ? '/' : `${hit}…`}; choose another path`);
  }
  return { manifest: parsed.data, problems };
}
