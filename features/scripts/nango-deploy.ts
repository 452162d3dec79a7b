/**
 * @module features/scripts/nango-deploy — what `nango deploy` (Nango's CLI) uploads to
 * `/sync/deploy[/confirmation]` turned into a Switchyard deploy: each function's compiled
 * JavaScript bundled for the sandbox (nango-bundle.ts), its manifest read from the bundle itself,
 * the deploy's scope from Nango's `deployMode`. The plan and result go back in Nango's shapes.
 */
import { ValidationFailed, type FieldProblem } from '../../lib/errors.js';
import { describeBundle, SandboxUnavailableError } from '../../lib/sandbox/index.js';
import { bundleNangoFunction, NangoBundleError } from './nango-bundle.js';
import type { DeployPlan, DeployRequest, DeployResult, PlanItem, UploadedScript } from './deploy.js';

export interface NangoFunctionUpload {
  integration: string;
  name: string;
  /** Nango's type: `sync`, `action`, or `on-event` for onEventScriptsByProvider. */
  type: PlanItem['type'];
  js: string;
  ts: string;
  /** Where it sits in the request body, for the problems. */
  path: (string | number)[];
}

export interface NangoDeployInput {
  functions: NangoFunctionUpload[];
  deployMode: 'all' | 'integration' | 'single';
  sdkVersion?: string | undefined;
}

/** Bundles every function and reads its manifest from the bundle; throws ValidationFailed listing every problem. */
export async function nangoDeployRequest(input: NangoDeployInput): Promise<DeployRequest> {
  const problems: FieldProblem[] = [];
  if (input.deployMode === 'single') {
    problems.push({
      code: 'unsupported_deploy_mode',
      message:
        'deploying one sync or action alone (--sync, --action) is not offered: a Switchyard deploy replaces whole integrations; deploy with --integration <key> or the whole project',
      path: ['deployMode'],
    });
    throw new ValidationFailed('invalid_body', problems);
  }
  const scripts: UploadedScript[] = [];
  for (const f of input.functions) {
    const label = `${f.integration}/${f.name}`;
    try {
      const bundle = await bundleNangoFunction(label, f.js);
      const manifest = (await describeBundle(bundle)) as Record<string, unknown> | null | undefined;
      if (!manifest || typeof manifest !== 'object') throw new NangoBundleError('its code exports no function definition');
      if (manifest.type !== f.type) {
        problems.push({ code: 'invalid_script', message: `${label}: uploaded as a ${f.type}, but its code exports a ${String(manifest.type)}`, path: f.path });
        continue;
      }
      scripts.push({ integration: f.integration, name: f.name, bundle, source: f.ts, manifest });
    } catch (err) {
      // A sandbox that cannot start is the platform's fault; anything the uploaded code does is the upload's.
      if (err instanceof SandboxUnavailableError) throw err;
      problems.push({
        code: 'invalid_bundle',
        message: `${label}: the compiled function cannot run in Switchyard's sandbox (${(err as Error).message ?? String(err)})`,
        path: [...f.path, 'fileBody', 'js'],
      });
      // The first function that cannot run answers the request: bundling the rest would only delay the 400.
      break;
    }
  }
  if (problems.length) throw new ValidationFailed('invalid_body', problems);
  const integrations = input.deployMode === 'integration' ? [...new Set(input.functions.map((f) => f.integration))] : undefined;
  // Nango's functions are live once deployed: their endpoints are activated with them.
  return { scripts, activate: true, integrations, cliVersion: input.sdkVersion ? `nango ${input.sdkVersion}` : 'nango' };
}

const slim = (i: PlanItem) => ({ name: i.name, providerConfigKey: i.integration });

/** The plan in the shape of Nango's ScriptDifferences (what `nango deploy` prints before deploying). */
export function nangoDifferences(plan: DeployPlan, autoStart: (item: PlanItem) => boolean, connections: Map<string, number>) {
  const of = (items: PlanItem[], type: PlanItem['type']) => items.filter((i) => i.type === type);
  // The connection count makes the CLI ask before a sync that runs on connections is deleted.
  const sync = (i: PlanItem) => ({ ...slim(i), auto_start: autoStart(i), connections: connections.get(i.integration) ?? 0 });
  return {
    newSyncs: of(plan.new, 'sync').map(sync),
    updatedSyncs: of(plan.changed, 'sync').map(sync),
    deletedSyncs: of(plan.removed, 'sync').map(sync),
    newActions: of(plan.new, 'action').map(slim),
    updatedActions: of(plan.changed, 'action').map(slim),
    deletedActions: of(plan.removed, 'action').map(slim),
    newOnEventScripts: of(plan.new, 'on-event').map(slim),
    updatedOnEventScripts: of(plan.changed, 'on-event').map(slim),
    deletedOnEventScripts: of(plan.removed, 'on-event').map(slim),
    deletedModels: [] as string[],
  };
}

/** The deployed functions in the shape of Nango's SyncDeploymentResult[] (`nango deploy` prints name@vversion). */
export function nangoDeployResult(result: DeployResult, request: DeployRequest) {
  return result.scripts.map((s) => {
    const manifest = request.scripts.find((u) => u.integration === s.integration && u.name === s.name && u.manifest.type === s.type)?.manifest ?? {};
    const models = Object.keys((manifest.models as Record<string, unknown> | undefined) ?? {});
    return {
      name: s.name,
      providerConfigKey: s.integration,
      type: s.type,
      version: typeof manifest.version === 'string' ? manifest.version : String(s.version),
      models,
      runs: typeof manifest.frequency === 'string' ? manifest.frequency : null,
      last_deployed: result.deployment.createdAt.toISOString(),
    };
  });
}
