/**
 * @module cli/deploy — `switchyard compile` and `switchyard deploy <env>`: type-check, bundle,
 * then show what the deploy adds, changes and removes, ask before removing (unless --yes), and
 * upload everything in one request (the platform applies it in one transaction). Provider
 * definitions kept in the project (cli/providers.ts) are created or replaced first.
 */
import { Api } from './api.js';
import { buildScript, typecheck, writeBuild, type BuiltScript } from './build.js';
import { deployProviders, projectProviders } from './providers.js';
import { checkZod, CLI_VERSION, refuseYaml, relative, requireScripts } from './project.js';
import { bold, CliError, confirm, dim, green, info, red, step, yellow } from './ui.js';

export async function compile(dir: string, opts: { integration?: string } = {}): Promise<BuiltScript[]> {
  refuseYaml(dir);
  const zodDir = await checkZod(dir);
  let scripts = await requireScripts(dir);
  if (opts.integration) {
    scripts = scripts.filter((s) => s.integration === opts.integration);
    if (!scripts.length) throw new CliError(`No scripts of the integration ${opts.integration}`, 'check the folder name (it is the integration key)');
  }
  await step(`Type-checking ${scripts.length} script(s)`, () =>
    typecheck(
      dir,
      scripts.map((s) => s.file),
      zodDir,
    ),
  );
  const built: BuiltScript[] = [];
  for (const s of scripts) built.push(await step(`Bundling ${s.integration}/${s.name}`, () => buildScript(dir, s)));
  const manifest = await writeBuild(dir, built);
  info(`${green('✓')} Compiled ${built.length} script(s); manifest at ${relative(dir, manifest)}`);
  return built;
}

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

const label = (i: PlanItem) => `${i.integration}/${i.name} ${dim(`(${i.type})`)}`;

export async function deploy(dir: string, opts: { env: string; yes: boolean; activate: boolean; integration?: string }): Promise<number> {
  const api = new Api(opts.env);
  const providers = await projectProviders(dir, opts.integration ? [opts.integration] : undefined);
  const built = await compile(dir, { integration: opts.integration });
  if (providers.length) {
    info(`Providers of the project (${providers.length}) on ${opts.env}:`);
    await deployProviders(api, providers);
  }
  const body = {
    scripts: built.map((b) => ({ integration: b.integration, name: b.name, bundle: b.bundle, source: b.source, manifest: b.manifest })),
    activate: opts.activate,
    ...(opts.integration ? { integrations: [opts.integration] } : {}),
    cli_version: CLI_VERSION,
  };
  const plan = await step(`Comparing with ${opts.env} at ${api.host}`, () => api.json<Plan>('POST', '/scripts/deploy/preview', body));
  for (const i of plan.new) info(`  ${green('+')} ${label(i)} new`);
  for (const i of plan.changed) info(`  ${yellow('~')} ${label(i)} changed`);
  for (const i of plan.removed) info(`  ${red('-')} ${label(i)} removed`);
  if (plan.unchanged.length) info(`  ${dim(`= ${plan.unchanged.length} unchanged`)}`);
  if (!plan.new.length && !plan.changed.length && !plan.removed.length) {
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
  const result = await step(`Deploying to ${opts.env}`, () =>
    api.json<{ deployment: { version: number }; new: PlanItem[]; changed: PlanItem[]; removed: PlanItem[] }>('POST', '/scripts/deploy', body),
  );
  info(
    `${green('✓')} ${bold(`Deployed version ${result.deployment.version} to ${opts.env}`)}: ${result.new.length} new, ${result.changed.length} changed, ${result.removed.length} removed`,
  );
  if (result.new.length && !opts.activate) {
    info(
      `  New endpoints start deactivated: activate them in each integration's Endpoints tab (PATCH /integrations/<key>/endpoints), or deploy with --activate`,
    );
  }
  return 0;
}
