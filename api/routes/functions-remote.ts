/**
 * @module api/routes/functions-remote — Nango's remote function API: `POST /functions/compile`,
 * `POST|GET /functions/dryruns[/:id]` and `POST|GET /functions/deployments[/:id]` (Nango's
 * FunctionCompile*, FunctionDryrun*, FunctionDeployment* schemas). Dry runs and deployments are
 * jobs kept in the API process's memory (features/scripts/remote-functions.ts): poll the process
 * that answered the POST.
 */
import { z } from 'zod';
import { getConnectionByPk } from '../../features/connections/store.js';
import { prebuiltScriptEntries } from '../../features/scripts/prebuilt.js';
import {
  assertType,
  compileFunction,
  deploymentOf,
  dryrunOf,
  startDeployment,
  startDryrun,
  type DeploymentJob,
  type DryrunJob,
} from '../../features/scripts/remote-functions.js';
import { BadRequest, Conflict, NotFound } from '../../lib/errors.js';
import { defineRoute } from '../route.js';
import { connectionIdSchema } from './connections.js';
import { integrationOr404, uniqueKeySchema } from './integrations.js';

const code = z
  .string()
  .min(1)
  .max(2 * 1024 * 1024);
const runnableType = z.enum(['action', 'sync']);
const status = z.enum(['waiting', 'running', 'success', 'failed']);
const idParam = z.object({ id: z.uuid() });
const jobError = z.object({ code: z.string(), message: z.string(), payload: z.unknown().optional() });
const accepted = z.object({ id: z.string(), status, created_at: z.string() });

const jobTimes = (job: DryrunJob | DeploymentJob) => ({
  id: job.id,
  status: job.status,
  integration_id: job.integrationId,
  function_type: job.functionType,
  created_at: job.createdAt.toISOString(),
  updated_at: job.updatedAt.toISOString(),
  ...(job.startedAt ? { started_at: job.startedAt.toISOString() } : {}),
  ...(job.completedAt
    ? { completed_at: job.completedAt.toISOString(), duration_ms: job.completedAt.getTime() - (job.startedAt ?? job.createdAt).getTime() }
    : {}),
  output: job.output.join('\n'),
  ...(job.error ? { error: job.error } : {}),
});
const jobShape = {
  id: z.string(),
  status,
  integration_id: z.string(),
  function_type: runnableType,
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().optional(),
  completed_at: z.string().optional(),
  duration_ms: z.number().int().min(0).optional(),
  output: z.string().optional(),
  error: jobError.optional(),
};
const acceptedOf = (job: DryrunJob | DeploymentJob) => ({ id: job.id, status: job.status, created_at: job.createdAt.toISOString() });

export const compileFunctionRoute = defineRoute({
  method: 'post',
  path: '/functions/compile',
  operationId: 'compileFunction',
  summary: "Compile one function's TypeScript into the bundle Switchyard's sandbox runs",
  description: 'A source that does not compile, or exports no createAction/createSync definition, answers 400 naming `code`.',
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:functions:compile',
  request: { body: z.object({ code }).strict() },
  responses: { 200: z.object({ bundle_size_bytes: z.number().int().min(0), bundled_js: z.string(), compiled_at: z.string() }) },
  errors: [400],
}).handle(async ({ body }) => {
  const compiled = await compileFunction(body.code);
  return { bundle_size_bytes: Buffer.byteLength(compiled.bundle), bundled_js: compiled.bundle, compiled_at: compiled.compiledAt.toISOString() };
});

export const createFunctionDryrunRoute = defineRoute({
  method: 'post',
  path: '/functions/dryruns',
  operationId: 'createFunctionDryrun',
  summary: 'Run an action once from its source against a connection, without deploying it',
  description:
    "Actions only: the action runs once in the sandbox with the connection's credentials; nothing of the run is recorded. Syncs answer 400 `unsupported_function_type` (`switchyard dryrun` runs a sync from a project). `metadata`, `checkpoint` and `last_sync_date` are accepted for Nango's clients and not used by actions. Poll GET /functions/dryruns/{id} on the same API process.",
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:functions:dryrun',
  request: {
    body: z
      .object({
        integration_id: uniqueKeySchema,
        function_type: runnableType,
        code,
        connection_id: connectionIdSchema,
        input: z.unknown().optional(),
        metadata: z.record(z.string(), z.unknown()).optional(),
        checkpoint: z.record(z.string(), z.unknown()).optional(),
        last_sync_date: z.iso.datetime({ offset: true }).optional(),
      })
      .strict(),
  },
  responses: { 202: accepted },
  errors: [400, 404],
}).handle(async ({ deps, body }, c) => {
  if (body.function_type === 'sync') {
    throw new BadRequest(
      'unsupported_function_type',
      'function_type: dry runs of syncs are not offered by this API (only actions); run `switchyard dryrun <sync> <connection-id>` from the project',
    );
  }
  const env = c.get('environment');
  await integrationOr404(deps, env, body.integration_id);
  const found = await deps.lookups.connection(env.id, body.integration_id, body.connection_id);
  const connection = found && (await getConnectionByPk(deps.db, deps.box, found.id));
  if (!connection) throw new NotFound('connection_not_found', `Connection '${body.connection_id}' was not found for integration '${body.integration_id}'`);
  const compiled = await compileFunction(body.code, `${body.integration_id}/dryrun`);
  assertType(compiled, body.function_type);
  const job = startDryrun(deps, env, { integrationId: body.integration_id, connection, compiled, input: body.input });
  return c.json(acceptedOf(job), 202);
});

export const getFunctionDryrunRoute = defineRoute({
  method: 'get',
  path: '/functions/dryruns/:id',
  operationId: 'getFunctionDryrun',
  summary: "A dry run's status, its result or error, its log and timings",
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:functions:dryrun',
  request: { params: idParam },
  responses: { 200: z.object({ ...jobShape, result: z.unknown().optional() }) },
  errors: [404],
}).handle(async ({ params }, c) => {
  const job = dryrunOf(c.get('environment'), params.id);
  if (!job) throw new NotFound('not_found', `No dry run ${params.id} is known to this API process`);
  return { ...jobTimes(job), ...(job.status === 'success' ? { result: job.result } : {}) };
});

const deploymentBody = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('function'),
      integration_id: uniqueKeySchema,
      function_name: z
        .string()
        .regex(/^[a-zA-Z0-9_-]+$/, 'letters, digits, _ and - only')
        .max(255),
      function_type: runnableType,
      code,
      version: z.string().max(64).optional(),
      allow_destructive: z.boolean().optional(),
    })
    .strict(),
  z
    .object({ type: z.literal('template'), integration_id: uniqueKeySchema, template: z.string().min(1).max(255), function_type: runnableType.optional() })
    .strict(),
]);

export const createFunctionDeploymentRoute = defineRoute({
  method: 'post',
  path: '/functions/deployments',
  operationId: 'createFunctionDeployment',
  summary: 'Deploy one function from its source to an integration, keeping its other functions',
  description:
    "`type: function`: the source is compiled and deployed as a deploy of that integration that keeps its other functions; its endpoints are activated. Replacing a deployed function of the same name takes `allow_destructive: true` (else 409 `function_already_deployed`). `type: template`: Switchyard's templates are its pre-built scripts, which every integration of their provider already has: 409 `template_already_deployed`, or 404 `unknown_template`. Poll GET /functions/deployments/{id} on the same API process.",
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:deploy',
  request: { body: deploymentBody },
  responses: { 202: accepted },
  errors: [400, 404, 409],
}).handle(async ({ deps, body }, c) => {
  const env = c.get('environment');
  const integration = await integrationOr404(deps, env, body.integration_id);
  if (body.type === 'template') {
    const template = prebuiltScriptEntries(integration.provider).find(
      ([name, def]) => name === body.template && (!body.function_type || def.type === body.function_type),
    );
    if (!template) throw new NotFound('unknown_template', `The provider ${integration.provider} has no template named ${body.template}`);
    throw new Conflict('template_already_deployed', `${body.template} is a pre-built script of ${integration.provider}: ${body.integration_id} already has it`);
  }
  const compiled = await compileFunction(body.code, `${body.integration_id}/${body.function_name}`);
  assertType(compiled, body.function_type);
  const job = await startDeployment(deps, env, {
    integrationId: body.integration_id,
    integrationPk: integration.id,
    name: body.function_name,
    type: body.function_type,
    code: body.code,
    compiled,
    allowDestructive: body.allow_destructive === true,
    version: body.version,
  });
  return c.json(acceptedOf(job), 202);
});

export const getFunctionDeploymentRoute = defineRoute({
  method: 'get',
  path: '/functions/deployments/:id',
  operationId: 'getFunctionDeployment',
  summary: "A function deployment's status, what it deployed, its log and timings",
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:deploy',
  request: { params: idParam },
  responses: {
    200: z.object({
      ...jobShape,
      function_name: z.string(),
      deployed: z.boolean().optional(),
      deployed_functions: z.array(z.object({ name: z.string(), version: z.string() })).optional(),
    }),
  },
  errors: [404],
}).handle(async ({ params }, c) => {
  const job = deploymentOf(c.get('environment'), params.id);
  if (!job) throw new NotFound('not_found', `No function deployment ${params.id} is known to this API process`);
  return {
    ...jobTimes(job),
    function_name: job.functionName,
    ...(job.deployed !== undefined ? { deployed: job.deployed, deployed_functions: job.deployedFunctions ?? [] } : {}),
  };
});
