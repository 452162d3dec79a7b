/**
 * @module api/routes/environments — environments made and deleted at run time, at Nango's paths
 * and shapes (`GET`/`POST /environments`, `DELETE /environments/{environmentId}`, where the id is
 * the numeric id or the uuid). Nango asks an account key for these; here an environment's default
 * secret key is one (features/environments/scopes.ts). dev and prod are the defaults and stay.
 */
import { z } from 'zod';
import { provisionEnvironment } from '../../features/environments/provision.js';
import {
  DEFAULT_ENVIRONMENTS,
  deleteEnvironmentRow,
  findEnvironmentById,
  findEnvironmentByUuid,
  listEnvironmentsWithFlags,
  PROD_ENVIRONMENT,
  type Environment,
} from '../../features/environments/store.js';
import { updateSettings } from '../../features/webhooks/settings.js';
import { BadRequest, Conflict, NotFound, ValidationFailed } from '../../lib/errors.js';
import type { Queryable } from '../../lib/db/pool.js';
import { assertGranted } from '../middleware/auth.js';
import { defineRoute } from '../route.js';
import { assertUrlsAllowed } from './environment.js';

const MAX_INT4 = 2_147_483_647;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An environment named by its numeric id (Nango's published document) or its uuid (@nangohq/types 0.71.10). */
export const environmentRef = z
  .string()
  .refine((s) => UUID.test(s) || (/^[1-9]\d{0,9}$/.test(s) && Number(s) <= MAX_INT4), 'a numeric environment id or an environment uuid');

/** A uuid path parameter (an environment's, an API key's). */
export const environmentUuid = z.string().regex(UUID, 'must be a uuid');

export async function findEnvironmentByRef(db: Queryable, ref: string | number): Promise<Environment> {
  const env = typeof ref === 'number' || !UUID.test(ref) ? await findEnvironmentById(db, Number(ref)) : await findEnvironmentByUuid(db, ref);
  if (!env) throw new NotFound('not_found', 'Environment not found');
  return env;
}

const environmentName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9_-]+$/, 'lowercase letters, digits, hyphens and underscores only');

const otlpHeader = z.object({ name: z.string().min(1).max(256), value: z.string().min(1).max(4000) }).strict();

const createBody = z
  .object({
    name: environmentName,
    is_production: z.boolean().optional(),
    otlp_endpoint: z.union([z.url({ protocol: /^https?$/ }).max(2048), z.literal('')]).optional(),
    otlp_headers: z.array(otlpHeader).max(100).optional(),
    // Nango's settings that have no meaning here: accepted only when they ask for nothing.
    callback_url: z.url().optional(),
    hmac_key: z.string().max(1000).optional(),
    hmac_enabled: z.boolean().optional(),
    slack_notifications: z.boolean().optional(),
  })
  .strict();

/** Switchyard has one OAuth callback URL per deployment, no public-key HMAC flow and no Slack notifications. */
function refuseUnsupported(body: z.output<typeof createBody>): void {
  const problems: ValidationFailed['errors'] = [];
  const refuse = (field: string, message: string) => problems.push({ code: 'unsupported', message, path: [field] });
  if (body.callback_url !== undefined) refuse('callback_url', 'the OAuth callback URL is set per deployment (SWITCHYARD_PUBLIC_URL), not per environment');
  if (body.hmac_key !== undefined) refuse('hmac_key', 'there is no public-key HMAC flow: connect sessions authorize connections');
  if (body.hmac_enabled === true) refuse('hmac_enabled', 'there is no public-key HMAC flow: connect sessions authorize connections');
  if (body.slack_notifications === true)
    refuse('slack_notifications', 'Slack notifications do not exist here: use the alert webhook (PATCH /environment alert_webhook_url)');
  if (problems.length) throw new ValidationFailed('invalid_body', problems);
}

const listed = z.object({ id: z.number().int(), uuid: z.string(), name: z.string(), is_production: z.boolean() });

export const listEnvironmentsRoute = defineRoute({
  method: 'get',
  path: '/environments',
  operationId: 'listEnvironments',
  summary: 'The environments of this deployment (dev, prod and those created), optionally the one of a name',
  tag: 'environments',
  auth: 'secret_key',
  scope: 'account:environments:list',
  request: { query: z.object({ name: environmentName.optional() }).strict() },
  responses: { 200: z.object({ data: z.array(listed) }) },
  errors: [403],
}).handle(async ({ deps, query }) => {
  const envs = await listEnvironmentsWithFlags(deps.db, query.name);
  return { data: envs.map((e) => ({ id: e.id, uuid: e.uuid, name: e.name, is_production: e.isProduction })) };
});

export const createEnvironmentRoute = defineRoute({
  method: 'post',
  path: '/environments',
  operationId: 'createEnvironment',
  summary: 'Create an environment, with its own task queue and a full-access API key "Default - Full access"',
  description:
    'Its secret is read with GET /environments/{environmentUuid}/api-keys/{keyUuid} (the key is listed by GET /environments/{environmentUuid}/api-keys). `is_production: true` needs the scope account:environments:set_production.',
  tag: 'environments',
  auth: 'secret_key',
  scope: 'account:environments:create',
  request: { body: createBody },
  responses: { 200: z.object({ data: z.object({ id: z.number().int(), uuid: z.string(), name: z.string() }) }) },
  errors: [403, 409],
}).handle(async ({ deps, body }, c) => {
  refuseUnsupported(body);
  await assertUrlsAllowed(deps, body, ['otlp_endpoint']);
  const isProduction = body.is_production ?? body.name === PROD_ENVIRONMENT;
  if (body.name === PROD_ENVIRONMENT && !isProduction) {
    throw new BadRequest('invalid_is_prod_flag', `The "${PROD_ENVIRONMENT}" environment must be marked as production.`);
  }
  if (isProduction) assertGranted(c.get('grantedScopes'), ['account:environments:set_production']);
  const env = await provisionEnvironment(deps.db, deps.box, { name: body.name, isProduction });
  if (!env) throw new Conflict('conflict', 'Environment already exists');
  if (body.otlp_endpoint !== undefined || body.otlp_headers !== undefined) {
    await updateSettings(deps.db, deps.box, env.id, { otlpEndpoint: body.otlp_endpoint || null, otlpHeaders: body.otlp_headers ?? null });
  }
  return { data: { id: env.id, uuid: env.uuid, name: env.name } };
});

export const deleteEnvironmentRoute = defineRoute({
  method: 'delete',
  path: '/environments/:environmentId',
  operationId: 'deleteEnvironment',
  summary: 'Delete an environment with everything in it: its schedules and running workflows stop, its rows and API keys go',
  description: 'dev and prod, the defaults, cannot be deleted (400 cannot_delete_prod_environment / cannot_delete_default_environment).',
  tag: 'environments',
  auth: 'secret_key',
  scope: 'account:environments:delete',
  request: { params: z.object({ environmentId: environmentRef }) },
  responses: { 204: { description: 'Deleted' } },
  errors: [403, 404],
}).handle(async ({ deps, params }, c) => {
  const env = await findEnvironmentByRef(deps.db, params.environmentId);
  if (env.name === PROD_ENVIRONMENT) throw new BadRequest('cannot_delete_prod_environment', 'Cannot delete prod environment');
  if ((DEFAULT_ENVIRONMENTS as readonly string[]).includes(env.name)) {
    throw new BadRequest('cannot_delete_default_environment', `Cannot delete the default environment ${env.name}`);
  }
  // Schedules first: if Temporal cannot be reached the environment stays, and the request can be repeated.
  await deps.lifecycle.environmentDeleting(env);
  await deleteEnvironmentRow(deps.db, env.id);
  // What was scheduled or started between the first pass and the delete.
  await deps.lifecycle
    .environmentDeleting(env)
    .catch((err: unknown) => deps.log.warn({ err, environment: env.name }, 'second pass of an environment deletion failed'));
  await deps.lookups.settled();
  return c.body(null, 204);
});
