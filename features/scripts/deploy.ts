/**
 * @module features/scripts/deploy — deploying compiled scripts to an environment: validation (manifests,
 * platform routes, endpoint collisions, each bundle loaded in a sandbox and checked against its
 * manifest), the preview (new / changed / removed), and the deploy itself, in one transaction.
 * Schedules follow after the commit through the lifecycle's reconcile.
 */
import { canonicalJson } from '../../lib/canonical-json.js';
import { createHash } from 'node:crypto';
import type { SecretBox } from '../../lib/crypto.js';
import type { Environment } from '../environments/store.js';
import { endpointStates, getIntegration, listIntegrations, type Integration } from '../integrations/store.js';
import { withTransaction, type Db } from '../../lib/db/pool.js';
import {
  activeScriptsOf,
  deactivateScript,
  insertDeployment,
  insertModules,
  insertScriptVersion,
  moduleCodes,
  nextDeploymentVersion,
  scriptKey,
  type DeployedScriptRow,
} from './store.js';
import { ValidationFailed, type FieldProblem } from '../../lib/errors.js';
import { describeBundle, describeLinked, SandboxError, type Described, type SandboxBundle } from '../../lib/sandbox/index.js';
import { bundleBytes, bundleSha256 } from '../../lib/sandbox/linked.js';
import type { Lifecycle } from '../lifecycle/lifecycle.js';
import { declaredEndpoints, endpointKey, prebuiltScriptEntries } from './prebuilt.js';
import { manifestProblems, type ScriptManifest } from './manifest.js';
import { activationKeys } from './catalog.js';

export interface UploadedScript {
  integration: string;
  name: string;
  /** The IIFE bundle, or with `modules` the entry module of a linked bundle. */
  bundle: string;
  /** A linked bundle's entry path (`<integration>/<type>s/<name>.js`) and its modules: path → sha256. */
  entryPath?: string;
  modules?: Record<string, string>;
  source?: string;
  manifest: Record<string, unknown>;
}

export interface DeployRequest {
  scripts: UploadedScript[];
  /** Code of shared modules the scripts import, by sha256: each once per request, kept once by the platform. */
  modules?: Record<string, string>;
  /** Activate the endpoints this deploy adds (otherwise they wait in the Endpoints tab). */
  activate?: boolean;
  /** Limit the deploy to these integrations: scripts of others are neither added nor removed. */
  integrations?: string[];
  /** Add or replace the scripts sent and keep every other deployed one (a single function's deploy). */
  keepOthers?: boolean;
  cliVersion?: string | null;
}

export interface PlanItem {
  integration: string;
  name: string;
  type: ScriptManifest['type'];
}

/**
 * A script as a preview may name it: by its bundle's sha256 (lib/sandbox/linked.ts bundleSha256)
 * instead of the bundle, enough to compare it with what is deployed; `switchyard deploy` previews
 * so and sends each bundle once, with the deploy that loads it.
 */
export type PreviewScript =
  (UploadedScript & { sha256?: undefined }) | (Omit<UploadedScript, 'bundle' | 'modules'> & { bundle?: undefined; modules?: undefined; sha256: string });

export interface PreviewRequest extends Omit<DeployRequest, 'scripts'> {
  scripts: PreviewScript[];
}

export interface DeployPlan {
  new: PlanItem[];
  changed: PlanItem[];
  removed: PlanItem[];
  unchanged: PlanItem[];
}

interface Prepared<B = SandboxBundle> {
  upload: B extends null ? PreviewScript : UploadedScript;
  manifest: ScriptManifest;
  sha256: string;
  integration: Integration;
  /** Null for a script a preview names by its sha256. */
  bundle: B;
}

interface Preparation<B> {
  prepared: Prepared<B>[];
  scope: Integration[];
}

/** Scripts of one request described in one sandbox (their shared modules loaded once). */
const DESCRIBE_BATCH = 100;

export interface DeployDeps {
  db: Db;
  box: SecretBox;
  lifecycle: Pick<Lifecycle, 'endpointsChanged'>;
}

const BUNDLE_LIMIT_BYTES = 10 * 1024 * 1024;

const canonical = canonicalJson;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** describe() of every bundle: linked ones many to a sandbox, IIFE ones one each. */
async function describeAll(bundles: SandboxBundle[]): Promise<Described[]> {
  const out: Described[] = new Array<Described>(bundles.length);
  const linked = bundles.flatMap((b, i) => (typeof b === 'string' ? [] : [{ b, i }]));
  for (let at = 0; at < linked.length; at += DESCRIBE_BATCH) {
    const group = linked.slice(at, at + DESCRIBE_BATCH);
    for (const [n, d] of (await describeLinked(group.map((g) => g.b))).entries()) out[group[n]!.i] = d;
  }
  for (const [i, b] of bundles.entries()) {
    if (typeof b !== 'string') continue;
    out[i] = await describeBundle(b).then(
      (value): Described => ({ ok: true, value }),
      (error: Error): Described => ({ ok: false, error }),
    );
  }
  return out;
}

/**
 * Validates everything a deploy needs (of a script named by its sha256, all but its bundle);
 * throws ValidationFailed listing every problem.
 */
async function prepare(deps: DeployDeps, env: Environment, req: DeployRequest): Promise<Preparation<SandboxBundle>>;
async function prepare(deps: DeployDeps, env: Environment, req: PreviewRequest): Promise<Preparation<SandboxBundle | null>>;
async function prepare(deps: DeployDeps, env: Environment, req: PreviewRequest): Promise<Preparation<SandboxBundle | null>> {
  const problems: FieldProblem[] = [];
  const problem = (i: number | null, message: string, code = 'invalid_script') =>
    problems.push({ code, message, path: i === null ? ['scripts'] : ['scripts', i] });

  const integrations = new Map<string, Integration | null>();
  const integrationOf = async (key: string) => {
    if (!integrations.has(key)) integrations.set(key, await getIntegration(deps.db, deps.box, env.id, key));
    return integrations.get(key)!;
  };

  // A linked bundle's modules: from this request (checked against their hash) or stored by an earlier deploy.
  const sent = new Map<string, string>();
  for (const [sha, code] of Object.entries(req.modules ?? {})) {
    if (sha256(code) === sha) sent.set(sha, code);
    else problems.push({ code: 'invalid_module', message: `the module ${sha} does not have that sha256`, path: ['modules', sha] });
  }
  const wanted = req.scripts.flatMap((u) => Object.values(u.modules ?? {})).filter((h) => !sent.has(h));
  const stored = await moduleCodes(deps.db, wanted);
  const sandboxBundleOf = (upload: UploadedScript, i: number): SandboxBundle | null => {
    if (!upload.modules) return upload.bundle;
    const modules: Record<string, string> = {};
    for (const [p, sha] of Object.entries(upload.modules)) {
      const code = sent.get(sha) ?? stored.get(sha);
      if (code === undefined) {
        problem(i, `${upload.integration}/${upload.name}: its module ${p} (${sha}) is neither in this request's modules nor stored`, 'missing_module');
        return null;
      }
      modules[p] = code;
    }
    const type = typeof upload.manifest.type === 'string' ? upload.manifest.type : 'script';
    return { entryPath: upload.entryPath ?? `${upload.integration}/${type}s/${upload.name}.js`, entry: upload.bundle, modules };
  };

  const seen = new Set<string>();
  const candidates: Prepared[] = [];
  const prepared: Prepared<SandboxBundle | null>[] = [];
  for (const [i, upload] of req.scripts.entries()) {
    const label = `${upload.integration}/${upload.name}`;
    // A sync and an action may share a name (Nango keys functions by type and name).
    const key = `${upload.integration}/${scriptKey({ type: String(upload.manifest.type), name: upload.name })}`;
    if (seen.has(key)) problem(i, `${label} (${String(upload.manifest.type)}) is in the deploy twice`);
    seen.add(key);
    const { manifest, problems: found } = manifestProblems({ ...upload.manifest, integration: upload.integration, name: upload.name });
    for (const p of found) problem(i, `${label}: ${p}`, /collides with the platform route/.test(p) ? 'reserved_endpoint' : 'invalid_script');
    const integration = await integrationOf(upload.integration);
    if (!integration) {
      problem(
        i,
        `${label}: the integration '${upload.integration}' does not exist in the ${env.name} environment; create it first (POST /integrations) or name the project folder after an existing integration`,
        'unknown_integration',
      );
    }
    if (upload.sha256 !== undefined) {
      if (manifest && integration && !found.length) prepared.push({ upload, manifest, sha256: upload.sha256, integration, bundle: null });
      continue;
    }
    const bundle = sandboxBundleOf(upload, i);
    if (bundle !== null && bundleBytes(bundle) > BUNDLE_LIMIT_BYTES) problem(i, `${label}: the bundle is larger than ${BUNDLE_LIMIT_BYTES} bytes`);
    if (!manifest || !integration || found.length || bundle === null) continue;
    candidates.push({ upload, manifest, sha256: bundleSha256(bundle), integration, bundle });
  }
  // The bundle must load in a sandbox and declare what its manifest says.
  const described = await describeAll(candidates.map((c) => c.bundle));
  for (const [n, c] of candidates.entries()) {
    const i = req.scripts.indexOf(c.upload);
    const label = `${c.upload.integration}/${c.upload.name}`;
    const d = described[n]!;
    if (!d.ok) {
      const err = d.error;
      const message = err instanceof SandboxError ? err.message : `${err.name}: ${err.message}`;
      problem(i, `${label}: the bundle does not load in the sandbox (${message}); run \`switchyard compile\` again`, 'invalid_bundle');
      continue;
    }
    const expected = { ...c.manifest, integration: undefined, name: undefined };
    const actual = manifestProblems({ ...(d.value as Record<string, unknown>), integration: c.upload.integration, name: c.upload.name }).manifest;
    if (!actual || canonical({ ...actual, integration: undefined, name: undefined }) !== canonical(expected)) {
      problem(i, `${label}: the manifest does not match the bundle; run \`switchyard compile\` again, then deploy`, 'manifest_mismatch');
      continue;
    }
    prepared.push(c);
  }

  // The integrations whose deployed scripts this deploy reconciles.
  let scope: Integration[];
  if (req.integrations?.length) {
    scope = [];
    for (const key of req.integrations) {
      const integration = await integrationOf(key);
      if (integration) scope.push(integration);
      else problem(null, `the integration '${key}' does not exist in the ${env.name} environment`, 'unknown_integration');
    }
    for (const [i, p] of prepared.entries()) {
      if (!scope.some((s) => s.id === p.integration.id))
        problem(i, `${p.upload.integration}/${p.upload.name} is outside the integrations this deploy is limited to`);
    }
  } else {
    scope = await listIntegrations(deps.db, deps.box, env.id);
  }

  // Within an integration, one endpoint belongs to one script (pre-built ones included).
  for (const integration of scope) {
    const mine = prepared.filter((p) => p.integration.id === integration.id);
    const keys = new Set(mine.map((p) => scriptKey({ type: p.manifest.type, name: p.upload.name })));
    const owners = new Map<string, string>();
    for (const [name, def] of prebuiltScriptEntries(integration.provider)) {
      if (keys.has(scriptKey({ type: def.type, name }))) continue;
      for (const e of declaredEndpoints(def)) owners.set(endpointKey(e), `the pre-built script ${name}`);
    }
    // The deployed scripts a deploy keeps hold their endpoints too.
    for (const kept of req.keepOthers ? await activeScriptsOf(deps.db, integration.id) : []) {
      if (keys.has(scriptKey(kept))) continue;
      for (const e of kept.manifest.endpoints) owners.set(endpointKey(e), `the deployed script ${kept.name}`);
    }
    for (const p of mine) {
      for (const e of p.manifest.endpoints) {
        const key = endpointKey(e);
        const owner = owners.get(key);
        if (owner)
          problem(req.scripts.indexOf(p.upload), `${p.upload.integration}/${p.upload.name}: ${key} is already declared by ${owner}`, 'endpoint_conflict');
        else owners.set(key, `the script ${p.upload.name}`);
      }
    }
  }

  if (problems.length) throw new ValidationFailed('invalid_deploy', problems);
  return { prepared, scope };
}

function diff(
  prepared: Prepared<SandboxBundle | null>[],
  scope: Integration[],
  active: Map<number, DeployedScriptRow[]>,
  keepOthers = false,
): DeployPlan & { rows: Map<string, DeployedScriptRow> } {
  const plan: DeployPlan = { new: [], changed: [], removed: [], unchanged: [] };
  const rows = new Map<string, DeployedScriptRow>();
  for (const p of prepared) {
    const item = { integration: p.upload.integration, name: p.upload.name, type: p.manifest.type };
    const current = active.get(p.integration.id)?.find((r) => scriptKey(r) === scriptKey(item));
    if (current) rows.set(`${p.integration.id}/${scriptKey(item)}`, current);
    if (!current) plan.new.push(item);
    else if (current.bundleSha256 !== p.sha256 || canonical(current.manifest) !== canonical(p.manifest)) plan.changed.push(item);
    else plan.unchanged.push(item);
  }
  for (const integration of keepOthers ? [] : scope) {
    for (const r of active.get(integration.id) ?? []) {
      if (!prepared.some((p) => p.integration.id === integration.id && p.upload.name === r.name && p.manifest.type === r.type)) {
        plan.removed.push({ integration: integration.uniqueKey, name: r.name, type: r.type });
        rows.set(`${integration.id}/${scriptKey(r)}`, r);
      }
    }
  }
  return { ...plan, rows };
}

async function activeByIntegration(db: Pick<Db, 'query'>, scope: Integration[]): Promise<Map<number, DeployedScriptRow[]>> {
  const out = new Map<number, DeployedScriptRow[]>();
  for (const i of scope) out.set(i.id, await activeScriptsOf(db, i.id));
  return out;
}

export async function previewDeploy(deps: DeployDeps, env: Environment, req: PreviewRequest): Promise<DeployPlan> {
  const { prepared, scope } = await prepare(deps, env, req);
  const { rows: _rows, ...plan } = diff(prepared, scope, await activeByIntegration(deps.db, scope), req.keepOthers);
  return plan;
}

export interface DeployResult extends DeployPlan {
  deployment: { version: number; createdAt: Date };
  scripts: (PlanItem & { version: number })[];
}

export async function deploy(deps: DeployDeps, env: Environment, req: DeployRequest): Promise<DeployResult> {
  const { prepared, scope } = await prepare(deps, env, req);
  const outcome = await withTransaction(deps.db, async (tx) => {
    // One deploy at a time per environment; the plan is made under the lock.
    await tx.query('SELECT pg_advisory_xact_lock(727002, $1)', [env.id]);
    const { rows, ...plan } = diff(prepared, scope, await activeByIntegration(tx, scope), req.keepOthers);
    const version = await nextDeploymentVersion(tx, env.id);
    const modules = new Map<string, string>();
    for (const p of prepared) {
      if (typeof p.bundle === 'string') continue;
      for (const [path, sha] of Object.entries(p.upload.modules ?? {})) modules.set(sha, p.bundle.modules[path]!);
    }
    await insertModules(tx, modules);
    const deployment = await insertDeployment(tx, { environmentId: env.id, version, cliVersion: req.cliVersion ?? null, summary: plan });
    const scripts: (PlanItem & { version: number })[] = [];
    const touched = new Set<number>();
    for (const item of plan.removed) {
      const integration = scope.find((i) => i.uniqueKey === item.integration)!;
      await deactivateScript(tx, rows.get(`${integration.id}/${scriptKey(item)}`)!.id);
      touched.add(integration.id);
    }
    const planKey = (n: PlanItem) => `${n.integration}/${scriptKey(n)}`;
    const added = new Set(plan.new.map(planKey));
    const changed = new Set(plan.changed.map(planKey));
    for (const p of prepared) {
      const item = { integration: p.upload.integration, name: p.upload.name, type: p.manifest.type };
      const key = `${p.integration.id}/${scriptKey(item)}`;
      const isNew = added.has(planKey(item));
      const isChanged = changed.has(planKey(item));
      if (!isNew && !isChanged) {
        scripts.push({ ...item, version: rows.get(key)!.version });
        continue;
      }
      if (isChanged) await deactivateScript(tx, rows.get(key)!.id);
      const v = await insertScriptVersion(tx, {
        deploymentId: deployment.id,
        environmentId: env.id,
        integrationId: p.integration.id,
        name: p.upload.name,
        type: p.manifest.type,
        bundle: p.upload.bundle,
        bundleSha256: p.sha256,
        linked: typeof p.bundle === 'string' ? null : { entryPath: p.bundle.entryPath, modules: p.upload.modules! },
        source: p.upload.source ?? null,
        manifest: p.manifest,
      });
      scripts.push({ ...item, version: v });
      touched.add(p.integration.id);
    }
    // The Endpoints tab: endpoints new to the integration start deactivated unless `activate`;
    // states of endpoints no script declares any more go.
    for (const integration of scope) {
      const declared = new Map<string, { method: string; path: string }>();
      for (const [name, def] of prebuiltScriptEntries(integration.provider)) {
        for (const e of activationKeys({ name, endpoints: declaredEndpoints(def) })) declared.set(endpointKey(e), e);
      }
      for (const r of await activeScriptsOf(tx, integration.id))
        for (const e of activationKeys({ name: r.name, endpoints: r.manifest.endpoints })) declared.set(endpointKey(e), e);
      const states = new Map((await endpointStates(tx, integration.id)).map((s) => [endpointKey(s), s]));
      for (const [key, e] of declared) {
        if (states.has(key)) continue;
        await tx.query('INSERT INTO integration_endpoints (integration_id, method, path, enabled) VALUES ($1, $2, $3, $4)', [
          integration.id,
          e.method,
          e.path,
          req.activate === true,
        ]);
        touched.add(integration.id);
      }
      for (const [key, s] of states) {
        if (declared.has(key)) continue;
        await tx.query('DELETE FROM integration_endpoints WHERE integration_id = $1 AND method = $2 AND path = $3', [integration.id, s.method, s.path]);
      }
    }
    return { plan, deployment: { version, createdAt: deployment.createdAt }, scripts, touched };
  });
  // Schedules: created or updated for the deployed syncs on every connection, removed for syncs
  // that are gone or deactivated.
  for (const integration of scope) if (outcome.touched.has(integration.id)) await deps.lifecycle.endpointsChanged(env, integration);
  return { ...outcome.plan, deployment: outcome.deployment, scripts: outcome.scripts };
}
