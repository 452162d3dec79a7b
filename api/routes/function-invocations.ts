/**
 * @module api/routes/function-invocations — Nango's `POST /functions/invocations` and `GET
 * /functions/invocations/:id` (@nangohq/types PostFunctionInvocation, GetFunctionInvocation): an
 * action run by its integration, connection and name in the body rather than in headers. An
 * invocation is an action run (api/action-run.ts), so its id is the run's id and `GET /action/:id`
 * reads it too. Syncs are not invoked here: POST /sync/trigger runs them.
 */
import { z } from 'zod';
import { getActionRun } from '../../features/actions/runs.js';
import { scriptIn, scriptsOf } from '../../features/scripts/catalog.js';
import { BadRequest, NotFound } from '../../lib/errors.js';
import { runAction } from '../action-run.js';
import { defineRoute } from '../route.js';
import { ACTION_ERRORS, actionResponses, readActionBody, resultResponse } from './actions.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';

const invocationBody = z
  .object({
    connection_id: connectionIdSchema,
    integration_id: uniqueKeySchema,
    name: z.string().regex(/^[a-zA-Z0-9_-]+$/),
    input: z.unknown().optional(),
    invocation_type: z.enum(['wait', 'no_wait']).describe('wait: answer with the output (202 after two minutes); no_wait: answer 202 at once'),
    options: z.record(z.string(), z.unknown()).optional().describe('Accepted and not used, as Nango does'),
  })
  .strict();

const invocationAccepted = z.object({ id: z.string(), statusUrl: z.string() });
const running = (id: string) => ({ id, statusUrl: `/functions/invocations/${id}` });

const acceptedResponse = {
  description: 'Running: poll the Location',
  schema: invocationAccepted,
  headers: { Location: { description: 'The invocation’s URL (/functions/invocations/{id})', required: true, schema: { type: 'string' } } },
};

export const createFunctionInvocation = defineRoute({
  method: 'post',
  path: '/functions/invocations',
  operationId: 'createFunctionInvocation',
  summary: 'Invoke an action (its output, or 202 and poll)',
  description:
    'The action runs as with POST /action/trigger. An unknown connection or function answers 404 (connection_not_found, unknown_function), a sync 400 invalid_invocation (POST /sync/trigger runs syncs).',
  tag: 'actions',
  auth: 'secret_key',
  request: { body: invocationBody },
  readBody: (c, deps) => readActionBody(deps, c),
  responses: { 200: actionResponses[200], 202: acceptedResponse },
  errors: [...ACTION_ERRORS],
}).handle(async ({ deps, body }, c) => {
  const env = c.get('environment');
  const integration = await deps.lookups.integration(env.id, body.integration_id);
  const connection = integration && (await deps.lookups.connection(env.id, body.integration_id, body.connection_id));
  if (!connection) {
    throw new NotFound('connection_not_found', `Connection '${body.connection_id}' was not found for integration '${body.integration_id}'`);
  }
  // Only an action is invoked; a sync of the same name (Nango allows both) does not stand in for it.
  const scripts = await scriptsOf(deps, integration);
  if (!scriptIn(scripts, 'action', body.name)) {
    const other = scripts.find(([n]) => n === body.name)?.[1];
    if (!other) throw new NotFound('unknown_function', `Function '${body.name}' was not found`);
    throw new BadRequest('invalid_invocation', `Function '${body.name}' is a ${other.type}: POST /sync/trigger runs it`);
  }
  const outcome = await runAction(deps, {
    env,
    integrationKey: body.integration_id,
    connectionId: body.connection_id,
    actionName: body.name,
    input: body.input,
    isAsync: body.invocation_type === 'no_wait',
  });
  if (outcome.done) return resultResponse(c, outcome.run);
  const accepted = running(outcome.id);
  return c.json(accepted, 202, { Location: accepted.statusUrl });
});

export const getFunctionInvocation = defineRoute({
  method: 'get',
  path: '/functions/invocations/:id',
  operationId: 'getFunctionInvocation',
  summary: 'The result of an invocation',
  description: 'Its output when done; 202 while it runs; a failed run answers with its error (400, 404, 424 or 500, as the invocation would have).',
  tag: 'actions',
  auth: 'secret_key',
  request: { params: z.object({ id: z.uuid() }) },
  responses: { 200: actionResponses[200], 202: acceptedResponse },
  errors: [404, 424, 500],
}).handle(async ({ deps, params }, c) => {
  const run = await getActionRun(deps.db, params.id);
  if (!run || run.environmentId !== c.get('environment').id) throw new NotFound('not_found', `No invocation '${params.id}' found`);
  if (run.status === 'running') {
    const accepted = running(run.id);
    return c.json(accepted, 202, { Location: accepted.statusUrl });
  }
  return resultResponse(c, run);
});
