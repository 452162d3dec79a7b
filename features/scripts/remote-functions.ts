/**
 * @module features/scripts/remote-functions — Nango's remote function API: one function's
 * TypeScript source compiled on the server (the bundle `nango deploy` uploads would have become),
 * dry run once against a connection, or deployed alone to an integration.
 *
 * Dry runs and deployments are jobs kept in this process's memory (the last JOB_LIMIT of each):
 * another API process, or this one after a restart, does not know them. A deployment itself is
 * durable (a deploy as any other); only its job record is not.
 */
import { randomUUID } from 'node:crypto';
import { Conflict, ValidationFailed } from '../../lib/errors.js';
import { describeBundle, runSandboxed, SandboxError, SandboxUnavailableError, ScriptError } from '../../lib/sandbox/index.js';
import type { Environment } from '../environments/store.js';
import type { Connection } from '../connections/store.js';
import { sandboxLimits, zodFromJsonSchema, type CatalogDeps } from './catalog.js';
import { createScriptContext } from './context.js';
import { deploy, type DeployDeps } from './deploy.js';
import { bundleNangoFunction, NangoBundleError } from './nango-bundle.js';
import { activeScriptsOf, scriptKey } from './store.js';
import type { ConnectionDeps } from '../connections/service.js';

export type RunnableType = 'action' | 'sync';
export type JobStatus = 'waiting' | 'running' | 'success' | 'failed';

export interface Compiled {
  bundle: string;
  manifest: Record<string, unknown>;
  compiledAt: Date;
}

/** Bundles the source for the sandbox and reads its definition; a source that cannot be is the request's fault (400 on `code`). */
export async function compileFunction(code: string, label = 'function'): Promise<Compiled> {
  const invalid = (message: string) => new ValidationFailed('invalid_body', [{ code: 'compilation_error', message, path: ['code'] }]);
  let bundle: string;
  try {
    bundle = await bundleNangoFunction(label, code, 'ts');
  } catch (err) {
    if (err instanceof NangoBundleError) throw invalid(`the code does not compile: ${err.message}`);
    throw err;
  }
  let manifest: unknown;
  try {
    manifest = await describeBundle(bundle);
  } catch (err) {
    if (err instanceof SandboxUnavailableError) throw err;
    throw invalid(`the compiled code does not load: ${(err as Error).message}`);
  }
  if (!manifest || typeof manifest !== 'object') throw invalid('the code exports no function definition (export default createAction(…) or createSync(…))');
  return { bundle, manifest: manifest as Record<string, unknown>, compiledAt: new Date() };
}

/** The function's declared type must be the one the request names. */
export function assertType(compiled: Compiled, type: RunnableType): void {
  if (compiled.manifest.type !== type) {
    throw new ValidationFailed('invalid_body', [
      { code: 'type_mismatch', message: `function_type is ${type}, but the code exports a ${String(compiled.manifest.type)}`, path: ['function_type'] },
    ]);
  }
}

export interface JobError {
  code: string;
  message: string;
  payload?: unknown;
}

interface Job {
  id: string;
  environmentId: number;
  status: JobStatus;
  createdAt: Date;
  updatedAt: Date;
  startedAt?: Date;
  completedAt?: Date;
  output: string[];
  error?: JobError;
}

export interface DryrunJob extends Job {
  integrationId: string;
  functionType: RunnableType;
  result?: unknown;
}

export interface DeploymentJob extends Job {
  integrationId: string;
  functionName: string;
  functionType: RunnableType;
  deployed?: boolean;
  deployedFunctions?: { name: string; version: string }[];
}

const JOB_LIMIT = 500;

class Jobs<T extends Job> {
  private readonly jobs = new Map<string, T>();
  add(job: T): T {
    if (this.jobs.size >= JOB_LIMIT) this.jobs.delete(this.jobs.keys().next().value!);
    this.jobs.set(job.id, job);
    return job;
  }
  /** A job of another environment is not found. */
  get(environmentId: number, id: string): T | null {
    const job = this.jobs.get(id);
    return job && job.environmentId === environmentId ? job : null;
  }
}

const dryruns = new Jobs<DryrunJob>();
const deployments = new Jobs<DeploymentJob>();
export const dryrunOf = (env: Environment, id: string) => dryruns.get(env.id, id);
export const deploymentOf = (env: Environment, id: string) => deployments.get(env.id, id);

function newJob(env: Environment): Job {
  const now = new Date();
  return { id: randomUUID(), environmentId: env.id, status: 'waiting', createdAt: now, updatedAt: now, output: [] };
}

/** Runs `work` in the background, recording its start, end and failure on the job. */
function track<T extends Job>(job: T, work: () => Promise<void>): void {
  job.status = 'running';
  job.startedAt = job.updatedAt = new Date();
  void work()
    .then(
      () => void (job.status = 'success'),
      (err: unknown) => {
        job.status = 'failed';
        job.error = errorOf(err);
      },
    )
    .finally(() => (job.completedAt = job.updatedAt = new Date()));
}

function errorOf(err: unknown): JobError {
  if (err instanceof SandboxError) return { code: err.code, message: err.message };
  if (err instanceof ScriptError) return { code: 'script_error', message: `${err.name}: ${err.message}`, ...(err.issues ? { payload: err.issues } : {}) };
  if (err instanceof ValidationFailed) return { code: err.code, message: err.message, payload: err.errors };
  const e = err as { code?: unknown; message?: unknown };
  return { code: typeof e.code === 'string' ? e.code : 'dryrun_failed', message: typeof e.message === 'string' ? e.message : String(err) };
}

export interface DryrunRequest {
  integrationId: string;
  connection: Connection;
  compiled: Compiled;
  input: unknown;
}

/**
 * Runs an action once in the sandbox, as the worker runs one, against the connection: its provider
 * calls are real, and nothing of the run is recorded. Its input is checked against its schema first.
 */
export function startDryrun(deps: ConnectionDeps & Pick<CatalogDeps, 'config'>, env: Environment, req: DryrunRequest): DryrunJob {
  const job = dryruns.add({ ...newJob(env), integrationId: req.integrationId, functionType: 'action' });
  const runId = `dryrun:${job.id}`;
  track(job, async () => {
    const input = zodFromJsonSchema(req.compiled.manifest.input).safeParse(req.input ?? {});
    if (!input.success) {
      const issues = input.error.issues.map((i) => ({ path: i.path, message: i.message }));
      throw Object.assign(new Error('The input does not match the action input schema'), { code: 'invalid_action_input', payload: issues });
    }
    const log = (entry: { level: string; message: string }) => void job.output.push(`[${entry.level}] ${entry.message}`);
    const ctx = createScriptContext(deps, req.connection, { kind: 'action', runId, models: {}, log });
    job.result = await runSandboxed(req.compiled.bundle, { kind: 'action', ctx, input: input.data }, sandboxLimits(deps.config, 'action'));
  });
  return job;
}

export interface DeploymentRequest {
  integrationId: string;
  integrationPk: number;
  name: string;
  type: RunnableType;
  code: string;
  compiled: Compiled;
  allowDestructive: boolean;
  /** The version the caller tags the deployment with (reported back; the code's own otherwise). */
  version?: string | undefined;
}

/**
 * Deploys one function to an integration as a deploy of that integration that keeps its other
 * functions (features/scripts/deploy.ts), its endpoints activated as Nango's are. Replacing a
 * function already deployed under the name takes `allow_destructive`.
 */
export async function startDeployment(deps: DeployDeps, env: Environment, req: DeploymentRequest): Promise<DeploymentJob> {
  if (!req.allowDestructive && (await activeScriptsOf(deps.db, req.integrationPk)).some((r) => r.name === req.name && r.type === req.type)) {
    throw new Conflict(
      'function_already_deployed',
      `${req.integrationId} already has a ${req.type} named ${req.name}: pass allow_destructive: true to replace it`,
    );
  }
  const job = deployments.add({ ...newJob(env), integrationId: req.integrationId, functionName: req.name, functionType: req.type });
  track(job, async () => {
    const result = await deploy(deps, env, {
      scripts: [{ integration: req.integrationId, name: req.name, bundle: req.compiled.bundle, source: req.code, manifest: req.compiled.manifest }],
      activate: true,
      integrations: [req.integrationId],
      keepOthers: true,
      cliVersion: 'nango functions api',
    });
    const changed = [...result.new, ...result.changed];
    job.deployed = changed.length > 0;
    job.deployedFunctions = result.scripts
      .filter((s) => changed.some((c) => scriptKey(c) === scriptKey(s)))
      .map((s) => ({
        name: s.name,
        version: req.version ?? (typeof req.compiled.manifest.version === 'string' ? req.compiled.manifest.version : String(s.version)),
      }));
    job.output.push(`${job.deployed ? 'Deployed' : 'Unchanged'} ${req.type} ${req.integrationId}/${req.name} (deployment ${result.deployment.version})`);
  });
  return job;
}
