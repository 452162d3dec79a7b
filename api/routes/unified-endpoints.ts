/**
 * @module api/routes/unified-endpoints — the endpoints that scripts declare (`POST /users`,
 * `GET /background-checks`, …), at their own path and under `/v1/`. Registered last, so platform
 * routes always win. An action endpoint runs the action with the body (or the query, for GET) as
 * input; a sync's GET serves that sync's records.
 */
import { z } from 'zod';
import { NotFound } from '../../lib/errors.js';
import { endpointsOfScript, isScriptEnabled, scriptsOf } from '../../features/scripts/catalog.js';
import { defineRoute } from '../route.js';
import { assertStorable, headers } from '../validate.js';
import { queryAsInput } from '../query-input.js';
import { ACTION_ERRORS, actionResponses, readActionBody, triggerAction } from './actions.js';
import { serveRecords } from './records.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';
import { assertGranted } from '../middleware/auth.js';

const endpointHeaders = z.object({ 'connection-id': connectionIdSchema, 'provider-config-key': uniqueKeySchema, 'x-async': z.string().optional() });

export const unifiedEndpoint = defineRoute({
  method: 'all',
  path: '/v1/:endpoint',
  serves: ['/*'],
  operationId: 'scriptEndpoint',
  summary: 'An endpoint a script declares (also served without the /v1 prefix)',
  description:
    "An action's endpoint runs the action with the body (the query, for GET) as input; a sync's GET endpoint serves its records. Only endpoints activated on the integration's Endpoints tab answer; anything else is 404.",
  tag: 'endpoints',
  auth: 'secret_key',
  scope: [], // checked in the handler once the endpoint's script is known
  handlerParses: { headers: endpointHeaders },
  responses: { ...actionResponses, 200: { description: "The action's output, or the sync's records", schema: z.unknown() } },
  errors: [404, ...ACTION_ERRORS],
}).handle(async ({ deps }, c) => {
  const method = c.req.method.toUpperCase();
  const path = c.req.path.replace(/^\/v1(?=\/)/, '');
  const unknown = () => new NotFound('not_found', `Unknown endpoint '${method} ${path}'`);
  if (!c.req.header('connection-id') && !c.req.header('provider-config-key')) throw unknown();
  const h = headers(c, endpointHeaders);
  const env = c.get('environment');
  const integration = await deps.lookups.integration(env.id, h['provider-config-key']);
  if (!integration) throw unknown();
  const match = (await scriptsOf(deps, integration)).find(([, def]) => endpointsOfScript(def).some((e) => e.method === method && e.path === path));
  if (!match) throw unknown();
  const [name, def] = match;
  if (!(await isScriptEnabled(deps.db, integration, def))) {
    throw new NotFound(
      'endpoint_not_enabled',
      `${method} ${path} is not activated on ${integration.uniqueKey}; activate it in the integration's Endpoints tab`,
    );
  }
  // As Nango's /v1 passthrough: the scope depends on what the endpoint runs.
  assertGranted(c.get('grantedScopes'), [def.type === 'sync' ? 'environment:records:read' : 'environment:actions:execute']);
  if (def.type === 'sync') {
    return serveRecords(deps)(c, { integrationKey: integration.uniqueKey, connectionId: h['connection-id'], models: def.modelNames });
  }
  const input = method === 'GET' ? assertStorable(queryAsInput(c.req.url, def.schemas().input), 'invalid_query_params') : await readActionBody(deps, c);
  return triggerAction(deps, c, {
    env,
    integrationKey: integration.uniqueKey,
    connectionId: h['connection-id'],
    actionName: name,
    input,
    isAsync: h['x-async'] === 'true',
  });
});
