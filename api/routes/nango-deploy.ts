/**
 * @module api/routes/nango-deploy — the routes Nango's own CLI calls for `nango deploy <env>`
 * (0.71: `POST /sync/deploy/confirmation`, then `POST /sync/deploy`), so a team that migrates keeps
 * its Nango project and CLI and points `NANGO_HOSTPORT` at Switchyard. The compiled functions are
 * deployed as Switchyard scripts (features/scripts/nango-deploy.ts); the answers are Nango's shapes.
 */
import { z } from 'zod';
import { connectionCounts } from '../../features/integrations/store.js';
import { deploy, previewDeploy } from '../../features/scripts/deploy.js';
import { nangoDeployRequest, nangoDeployResult, nangoDifferences, type NangoFunctionUpload } from '../../features/scripts/nango-deploy.js';
import type { AppDeps } from '../context.js';
import type { Environment } from '../../features/environments/store.js';
import { defineRoute } from '../route.js';

const key = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-zA-Z0-9~:.@ _-]+$/, 'letters, digits and ~ : . @ _ - only');
const fileBody = z.object({ js: z.string().min(1), ts: z.string().max(2 * 1024 * 1024) }).strict();

// Nango's CLI sends more fields (models, runs, endpoints, models_json_schema, …): they restate
// what the compiled code declares, which is what Switchyard reads, so they are accepted unread.
const flowConfig = z.looseObject({
  type: z.enum(['sync', 'action']),
  syncName: key,
  providerConfigKey: key,
  fileBody,
});
const onEventScripts = z.looseObject({
  providerConfigKey: key,
  scripts: z
    .array(z.looseObject({ name: key, fileBody, event: z.enum(['post-connection-creation', 'pre-connection-deletion', 'validate-connection']) }))
    .max(500),
});

const deployBody = z.looseObject({
  flowConfigs: z.array(flowConfig).max(500),
  onEventScriptsByProvider: z.array(onEventScripts).max(500).optional(),
  reconcile: z.boolean(),
  debug: z.boolean(),
  deployMode: z.enum(['all', 'single', 'integration']).optional(),
  singleDeployMode: z.boolean().optional(),
  sdkVersion: z
    .string()
    .max(64)
    .regex(/^\d+\.\d+\.\d+-(zero|yaml)$/, 'x.y.z-zero or x.y.z-yaml')
    .optional(),
  nangoYamlBody: z.string().optional(),
  source: z.enum(['standalone', 'repo']).optional(),
});
type DeployBody = z.output<typeof deployBody>;

const slimSync = z.object({ name: z.string(), providerConfigKey: z.string(), auto_start: z.boolean(), connections: z.number() });
const slim = z.object({ name: z.string(), providerConfigKey: z.string() });
const differences = z.object({
  newSyncs: z.array(slimSync),
  updatedSyncs: z.array(slimSync),
  deletedSyncs: z.array(slimSync),
  newActions: z.array(slim),
  updatedActions: z.array(slim),
  deletedActions: z.array(slim),
  newOnEventScripts: z.array(slim),
  updatedOnEventScripts: z.array(slim),
  deletedOnEventScripts: z.array(slim),
  deletedModels: z.array(z.string()),
});
const deployed = z.array(
  z.object({
    name: z.string(),
    providerConfigKey: z.string(),
    type: z.enum(['sync', 'action', 'on-event']),
    version: z.string(),
    models: z.array(z.string()),
    runs: z.string().nullable(),
    last_deployed: z.string(),
  }),
);

async function requestOf(body: DeployBody) {
  const functions: NangoFunctionUpload[] = body.flowConfigs.map((f, i) => ({
    integration: f.providerConfigKey,
    name: f.syncName,
    type: f.type,
    js: f.fileBody.js,
    ts: f.fileBody.ts,
    path: ['flowConfigs', i],
  }));
  for (const [i, group] of (body.onEventScriptsByProvider ?? []).entries()) {
    for (const [j, s] of group.scripts.entries()) {
      functions.push({
        integration: group.providerConfigKey,
        name: s.name,
        type: 'on-event',
        js: s.fileBody.js,
        ts: s.fileBody.ts,
        path: ['onEventScriptsByProvider', i, 'scripts', j],
      });
    }
  }
  const deployMode = body.deployMode ?? (body.singleDeployMode ? 'single' : 'all');
  return nangoDeployRequest({ functions, deployMode, sdkVersion: body.sdkVersion });
}

async function differencesOf(deps: AppDeps, env: Environment, body: DeployBody) {
  const req = await requestOf(body);
  const plan = await previewDeploy(deps, env, req);
  const autoStart = (i: { integration: string; name: string; type: string }) =>
    req.scripts.find((s) => s.integration === i.integration && s.name === i.name && s.manifest.type === i.type)?.manifest.autoStart === true;
  return nangoDifferences(plan, autoStart, await connectionCounts(deps.db, env.id));
}

export const nangoDeployConfirmationRoute = defineRoute({
  method: 'post',
  path: '/sync/deploy/confirmation',
  operationId: 'nangoDeployConfirmation',
  summary: "What `nango deploy` would create, update and delete (Nango's CLI; changes nothing)",
  description:
    "Nango's CLI (0.71) calls it before deploying. The compiled functions are bundled for Switchyard's sandbox and checked as a `switchyard deploy` is; deploying one sync or action alone (`--sync`, `--action`) is refused.",
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:deploy',
  request: { body: deployBody },
  responses: { 200: differences },
  errors: [],
}).handle(async ({ deps, body }, c) => differencesOf(deps, c.get('environment'), body));

export const nangoDeployRoute = defineRoute({
  method: 'post',
  path: '/sync/deploy',
  operationId: 'nangoDeploy',
  summary: "Deploy the functions `nango deploy` uploads (Nango's CLI) to the key's environment",
  description:
    "Atomic, as `POST /scripts/deploy`; the deployed endpoints are activated (Nango's functions are live once deployed). With `deployMode: integration` only the integrations uploaded are reconciled, otherwise the whole environment.",
  tag: 'scripts',
  auth: 'secret_key',
  scope: 'environment:deploy',
  request: { body: deployBody },
  responses: { 200: deployed },
  errors: [],
}).handle(async ({ deps, body }, c) => {
  const req = await requestOf(body);
  return nangoDeployResult(await deploy(deps, c.get('environment'), req), req);
});
