/**
 * @module cli/deploy — `switchyard deploy <env>`: compile (a deploy needs every function to compile,
 * as Nango's does), then show what the deploy adds, changes and removes (the preview names each
 * bundle by its sha256), ask before removing (unless --yes), and upload each bundle once. The upload is one request per group of whole integrations, each group
 * under a byte budget and the route's 500 scripts. A script is its entry module; the shared modules
 * it imports (zod, the SDK runtime, models) go with the first request that needs them, once, and the
 * platform stores each once by its hash. Each request is one deploy, applied in one transaction, so a deploy is atomic per
 * integration, not across the project. Provider definitions kept in the project (cli/providers.ts)
 * are created or replaced first.
 */
import { readFile, stat } from 'node:fs/promises';
import { moduleHashes } from '../lib/sandbox/linked.js';
import { Api } from './api.js';
import { bundleOf, compileProject, type CompiledScript } from './compile.js';
import { failureReport, summaryLine } from './compile-report.js';
import { deployProviders, projectProviders } from './providers.js';
import { CLI_VERSION } from './project.js';
import { bold, CliError, confirm, dim, green, info, progress, red, yellow } from './ui.js';

interface PlanItem {
  integration: string;
  name: string;
  type: string;
}
interface Plan {
  new: PlanItem[];
  changed: PlanItem[];
  removed: PlanItem[];
  unchanged: PlanItem[];
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const label = (i: PlanItem) => `${i.integration}/${i.name} ${dim(`(${i.type})`)}`;

/** Bytes of one request's scripts (SWITCHYARD_DEPLOY_BATCH_BYTES overrides): under the platform's deploy limit (75 MB by default), with room to spare. */
export const DEPLOY_BATCH_BYTES = 32 * 1024 * 1024;

interface Batch {
  integrations: string[];
  scripts: CompiledScript[];
  bytes: number;
}

/**
 * Whole integrations packed into requests of at most `budget` bytes (an integration larger than
 * that goes alone); `extra` integrations (deployed, no longer in the project) join as scope only,
 * so their scripts are removed.
 */
export function batches(scripts: (CompiledScript & { bytes: number })[], extra: string[], budget: number): Batch[] {
  const byIntegration = new Map<string, (CompiledScript & { bytes: number })[]>();
  for (const s of scripts) byIntegration.set(s.integration, [...(byIntegration.get(s.integration) ?? []), s]);
  const out: Batch[] = [];
  let current: Batch = { integrations: [], scripts: [], bytes: 0 };
  const MAX_SCRIPTS = 500; // the route's limit on one request
  for (const [integration, list] of byIntegration) {
    const bytes = list.reduce((n, s) => n + s.bytes, 0);
    if (current.integrations.length && (current.bytes + bytes > budget || current.scripts.length + list.length > MAX_SCRIPTS)) {
      out.push(current);
      current = { integrations: [], scripts: [], bytes: 0 };
    }
    current.integrations.push(integration);
    current.scripts.push(...list);
    current.bytes += bytes;
  }
  for (const key of extra) {
    if (current.integrations.length >= MAX_SCRIPTS) {
      out.push(current);
      current = { integrations: [], scripts: [], bytes: 0 };
    }
    current.integrations.push(key);
  }
  if (current.integrations.length) out.push(current);
  return out;
}

type DeployResult = Plan & { deployment: { version: number } };

export async function deploy(dir: string, opts: { env: string; yes: boolean; activate: boolean; integration?: string }): Promise<number> {
  const api = new Api(opts.env);
  const providers = await projectProviders(dir, opts.integration ? [opts.integration] : undefined);
  const outcome = await compileProject(dir, { integration: opts.integration });
  const line = summaryLine(outcome.compiled.length, outcome.scripts.length, outcome.failed, outcome.reused);
  if (outcome.failed.length) {
    for (const l of failureReport(outcome.failed, outcome.scripts)) info(l);
    throw new CliError(
      `Not deployed: ${line}`,
      'fix the functions listed above and deploy again (a deploy needs every function to compile, as with Nango), or deploy integrations that compiled whole with --integration <key>',
    );
  }
  info(`${green('✓')} ${line}`);
  if (providers.length) {
    info(`Providers of the project (${providers.length}) on ${opts.env}:`);
    await deployProviders(api, providers);
  }
  const sized = await Promise.all(outcome.compiled.map(async (s) => ({ ...s, bytes: (await stat(s.bundleFile)).size + (await stat(s.file)).size + 4096 })));
  let extra: string[] = [];
  if (!opts.integration) {
    const listed = await api.json<{ data: { unique_key: string }[] }>('GET', '/integrations');
    const mine = new Set(outcome.compiled.map((s) => s.integration));
    extra = listed.data.map((i) => i.unique_key).filter((k) => !mine.has(k));
  }
  const budget = Number(process.env.SWITCHYARD_DEPLOY_BATCH_BYTES) || DEPLOY_BATCH_BYTES;
  const groups = batches(sized, extra, budget);
  // Shared modules a deploy request of this command stored already: later requests leave them out.
  const stored = new Set<string>();
  const header = (b: Batch) => ({ activate: opts.activate, integrations: b.integrations, cli_version: CLI_VERSION });
  // The preview compares by the bundles' hashes: each bundle is uploaded once, by the deploy.
  const previewOfBatch = (b: Batch) => ({
    ...header(b),
    scripts: b.scripts.map((s) => ({ integration: s.integration, name: s.name, sha256: s.sha256, manifest: s.manifest })),
  });
  const bodyOfBatch = async (b: Batch) => {
    const modules: Record<string, string> = {};
    const scripts = await Promise.all(
      b.scripts.map(async (s) => {
        const bundle = await bundleOf(dir, s);
        const hashes = moduleHashes(bundle.modules);
        for (const [p, sha] of Object.entries(hashes)) if (!stored.has(sha)) modules[sha] = bundle.modules[p]!;
        return {
          integration: s.integration,
          name: s.name,
          bundle: bundle.entry,
          entry_path: bundle.entryPath,
          modules: hashes,
          source: await readFile(s.file, 'utf8'),
          manifest: s.manifest,
        };
      }),
    );
    return { ...header(b), scripts, modules };
  };

  const plan: Plan = { new: [], changed: [], removed: [], unchanged: [] };
  const changedGroups: Batch[] = [];
  const sentBeforePreview = api.bytesSent;
  const comparing = progress(`Comparing with ${opts.env} at ${api.host}`, outcome.compiled.length);
  for (const b of groups) {
    const p = await api.json<Plan>('POST', '/scripts/deploy/preview', previewOfBatch(b));
    for (const k of ['new', 'changed', 'removed', 'unchanged'] as const) plan[k].push(...p[k]);
    if (p.new.length || p.changed.length || p.removed.length) changedGroups.push(b);
    comparing.advance(b.scripts.length);
  }
  comparing.done(`${groups.length} request(s), ${megabytes(api.bytesSent - sentBeforePreview)} sent`);
  for (const i of plan.new) info(`  ${green('+')} ${label(i)} new`);
  for (const i of plan.changed) info(`  ${yellow('~')} ${label(i)} changed`);
  for (const i of plan.removed) info(`  ${red('-')} ${label(i)} removed`);
  if (plan.unchanged.length) info(`  ${dim(`= ${plan.unchanged.length} unchanged`)}`);
  if (!changedGroups.length) {
    info(`${green('✓')} Nothing to deploy: ${opts.env} already runs these scripts`);
    return 0;
  }
  if (plan.removed.length && !opts.yes) {
    const ok = await confirm(`Remove ${plan.removed.length} script(s) from ${opts.env}? Their schedules stop and their endpoints leave the Endpoints tab.`);
    if (!ok) {
      throw new CliError(
        `Not deployed: this deploy removes ${plan.removed.map((i) => `${i.integration}/${i.name}`).join(', ')} from ${opts.env}`,
        'run again with --yes to confirm the removal (or restore the script files)',
      );
    }
  }
  const total = changedGroups.reduce((n, b) => n + b.scripts.length, 0);
  const sentBefore = api.bytesSent;
  const deploying = progress(`Deploying to ${opts.env}`, total);
  const results: DeployResult[] = [];
  for (const [n, b] of changedGroups.entries()) {
    try {
      const body = await bodyOfBatch(b);
      results.push(await api.json<DeployResult>('POST', '/scripts/deploy', body));
      for (const sha of Object.keys(body.modules)) stored.add(sha);
    } catch (err) {
      if (!results.length) throw err;
      const done = changedGroups.slice(0, n).flatMap((g) => g.integrations);
      throw new CliError(
        `Deployed ${done.length} integration(s) (${done.join(', ')}), then failed on ${b.integrations.join(', ')}: ${(err as Error).message}`,
        'each request is atomic per integration: fix the cause and deploy again; what was deployed stays, and the next deploy compares against it',
      );
    }
    deploying.advance(b.scripts.length);
  }
  deploying.done(`${changedGroups.length} request(s), ${megabytes(api.bytesSent - sentBefore)} uploaded`);
  const sum = (k: 'new' | 'changed' | 'removed') => results.reduce((n, r) => n + r[k].length, 0);
  const versions = results.map((r) => r.deployment.version);
  const version = versions.length === 1 ? `version ${versions[0]}` : `versions ${versions[0]}–${versions.at(-1)}`;
  info(`${green('✓')} ${bold(`Deployed ${version} to ${opts.env}`)}: ${sum('new')} new, ${sum('changed')} changed, ${sum('removed')} removed`);
  if (sum('new') && !opts.activate) {
    info(
      `  New endpoints start deactivated: activate them in each integration's Endpoints tab (PATCH /integrations/<key>/endpoints), or deploy with --activate`,
    );
  }
  return 0;
}
