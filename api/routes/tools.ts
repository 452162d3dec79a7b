/**
 * @module api/routes/tools — Nango's tools API (0.72): `POST /connections/:connectionId/tools/:name/calls`
 * runs a tool (an action, `createAction` or `createTool`) of the connection synchronously and
 * answers with its output. Beyond Nango: `?async=true` answers 202 with the run's id and sends the
 * `async_action` webhook when it ends. The run takes the path of `POST /action/trigger`.
 */
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { stringBool } from '../validate.js';
import { ACTION_ERRORS, actionResponses, readActionBody, triggerAction } from './actions.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';

const toolParams = z.object({ connectionId: connectionIdSchema, name: z.string().regex(/^[a-zA-Z0-9_-]+$/, 'must be a tool (action) name') });
const toolQuery = z.object({ provider_config_key: uniqueKeySchema, async: stringBool.optional() }).strict();
const toolBody = z.object({ input: z.unknown().optional() }).strict().optional();

export const callToolRoute = defineRoute({
  method: 'post',
  path: '/connections/:connectionId/tools/:name/calls',
  operationId: 'callTool',
  summary: 'Call a tool of a connection (its output; 202 with async=true)',
  description:
    'As Nango: the tool is one of the integration’s actions with an active endpoint; the answer is its output. With async=true: 202 with the run’s id, ' +
    'the `async_action` webhook when it ends, and its result at GET /action/{id}. Failures answer as POST /action/trigger does.',
  tag: 'tools',
  auth: 'secret_key',
  scope: 'environment:actions:execute',
  request: { params: toolParams, query: toolQuery, body: toolBody },
  readBody: (c, deps) => readActionBody(deps, c),
  responses: actionResponses,
  errors: [...ACTION_ERRORS],
}).handle(async ({ deps, params, query, body }, c) =>
  triggerAction(deps, c, {
    env: c.get('environment'),
    integrationKey: query.provider_config_key,
    connectionId: params.connectionId,
    actionName: params.name,
    input: body?.input ?? {},
    isAsync: query.async ?? false,
  }),
);
