/**
 * @module api/routes/functions — Nango's functions API for the scripts deployed to an integration
 * (`GET /integrations/:uniqueKey/functions[/:name[/code]]`, `DELETE …/functions/:name`), what
 * @nangohq/node's listFunctions, getFunction, getFunctionCode and deleteFunction and `nango pull`
 * call. Pre-built scripts are not deployed functions: GET /scripts/config lists them.
 */
import { z } from 'zod';
import { BadRequest, Conflict, NotFound } from '../../lib/errors.js';
import { activeScriptsOf, sourceOf, type DeployedScriptRow } from '../../features/scripts/store.js';
import type { AppDeps } from '../context.js';
import type { Environment } from '../../features/environments/store.js';
import { defineRoute } from '../route.js';
import { integrationOr404, keyParam } from './integrations.js';
import { integrationScripts, nangoShape, type ConfiguredScript } from './scripts.js';

const functionType = z.enum(['sync', 'action', 'on-event']);
const nameParam = keyParam.extend({ name: z.string().min(1).max(255) });
const typeQuery = z.object({ type: functionType.optional() }).strict();
const listQuery = z
  .object({
    type: functionType.optional(),
    search: z.string().min(1).max(255).optional(),
    page: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();

const deployedFunction = z
  .object({
    id: z.number(),
    name: z.string(),
    type: functionType,
    enabled: z.boolean(),
    last_deployed: z.string(),
    source: z.enum(['catalog', 'standalone', 'repo']),
  })
  .catchall(z.unknown())
  .describe("Nango's DeployedNangoFunction: the function (its sync, action or on-event fields) and its deployment");

interface Deployed {
  script: ConfiguredScript;
  row: DeployedScriptRow;
}

async function deployedFunctions(deps: AppDeps, env: Environment, uniqueKey: string): Promise<Deployed[]> {
  const integration = await integrationOr404(deps, env, uniqueKey);
  const rows = await activeScriptsOf(deps.db, integration.id);
  const out: Deployed[] = [];
  for (const script of await integrationScripts(deps, integration)) {
    const row = rows.find((r) => r.name === script.name && r.type === script.handle.type && script.handle.source === 'deployed');
    if (row) out.push({ script, row });
  }
  return out;
}

function shape({ script, row }: Deployed) {
  const h = script.handle;
  return {
    ...nangoShape(script),
    ...(h.type === 'on-event' ? { event: h.event } : {}),
    type: h.type,
    id: row.id,
    enabled: script.enabled,
    last_deployed: row.createdAt.toISOString(),
    // Every deployed script came from a project through a CLI: Nango's `nango deploy` (repo).
    source: 'repo' as const,
  };
}

async function oneFunction(deps: AppDeps, env: Environment, params: z.infer<typeof nameParam>, type: string | undefined): Promise<Deployed> {
  const matches = (await deployedFunctions(deps, env, params.uniqueKey)).filter((f) => f.script.name === params.name && (!type || f.row.type === type));
  if (matches.length === 0)
    throw new NotFound('not_found', `No function named ${params.name}${type ? ` of type ${type}` : ''} is deployed to ${params.uniqueKey}`);
  if (matches.length > 1) {
    throw new Conflict('ambiguous_function', `Several functions are named ${params.name}: pass type`, {
      matches: matches.map((m) => ({ type: m.row.type, name: m.row.name })),
    });
  }
  return matches[0]!;
}

export const listFunctionsRoute = defineRoute({
  method: 'get',
  path: '/integrations/:uniqueKey/functions',
  operationId: 'listFunctions',
  summary: 'The functions deployed to an integration (Nango shape)',
  tag: 'integrations',
  auth: 'secret_key',
  scope: 'environment:functions:list',
  request: { params: keyParam, query: listQuery },
  responses: { 200: z.object({ data: z.array(deployedFunction), pagination: z.object({ total: z.number(), page: z.number(), limit: z.number() }) }) },
  errors: [404],
}).handle(async ({ deps, params, query }, c) => {
  const search = query.search?.toLowerCase();
  const all = (await deployedFunctions(deps, c.get('environment'), params.uniqueKey)).filter(
    (f) => (!query.type || f.row.type === query.type) && (!search || f.script.name.toLowerCase().includes(search)),
  );
  return {
    data: all.slice(query.page * query.limit, (query.page + 1) * query.limit).map(shape),
    pagination: { total: all.length, page: query.page, limit: query.limit },
  };
});

export const getFunctionRoute = defineRoute({
  method: 'get',
  path: '/integrations/:uniqueKey/functions/:name',
  operationId: 'getFunction',
  summary: 'One function deployed to an integration (Nango shape)',
  tag: 'integrations',
  auth: 'secret_key',
  scope: 'environment:functions:read',
  request: { params: nameParam, query: typeQuery },
  responses: { 200: z.object({ data: deployedFunction }) },
  errors: [404, 409],
}).handle(async ({ deps, params, query }, c) => ({ data: shape(await oneFunction(deps, c.get('environment'), params, query.type)) }));

export const getFunctionCodeRoute = defineRoute({
  method: 'get',
  path: '/integrations/:uniqueKey/functions/:name/code',
  operationId: 'getFunctionCode',
  summary: 'The TypeScript a deployed function was compiled from, as its CLI uploaded it',
  description: "The entry file only, as the CLI sent it (Nango's CLI sends no other file); 404 `no_source` when the deploy carried none.",
  tag: 'integrations',
  auth: 'secret_key',
  scope: 'environment:functions:read',
  request: { params: nameParam, query: typeQuery },
  responses: { 200: z.object({ type: functionType, code: z.string() }) },
  errors: [404, 409],
}).handle(async ({ deps, params, query }, c) => {
  const { row } = await oneFunction(deps, c.get('environment'), params, query.type);
  const code = await sourceOf(deps.db, row.id);
  if (code === null) throw new NotFound('no_source', `The deploy of ${params.name} carried no source code`);
  return { type: row.type, code };
});

export const deleteFunctionRoute = defineRoute({
  method: 'delete',
  path: '/integrations/:uniqueKey/functions/:name',
  operationId: 'deleteFunction',
  summary: 'Refused for deployed functions: a deploy owns them',
  description:
    "As Nango refuses it for functions managed by `nango deploy` (400 `function_managed_by_deploy`): every function deployed to Switchyard came from a project's deploy. Remove it from the project and deploy again.",
  tag: 'integrations',
  auth: 'secret_key',
  scope: 'environment:functions:delete',
  request: { params: nameParam, query: z.object({ type: z.enum(['sync', 'action']) }).strict() },
  responses: { 200: z.object({ data: z.object({ success: z.boolean() }) }) },
  errors: [400, 404, 409],
}).handle(async ({ deps, params, query }, c) => {
  await oneFunction(deps, c.get('environment'), params, query.type);
  throw new BadRequest(
    'function_managed_by_deploy',
    `${params.uniqueKey}/${params.name} was deployed from a project: remove it from the project (index.ts) and deploy again to delete it`,
  );
});
