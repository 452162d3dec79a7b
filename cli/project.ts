/**
 * @module cli/project — an integrations project on disk: where its scripts are
 * (`<integration>/syncs|actions|on-events/<name>.ts`), the rules it must follow (TypeScript
 * scripts, not a yaml config; zod pinned to 4.0.5), its `.env`, and where the SDK comes from.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clockFrom, dates, systemClock, type Clock } from '../lib/clock.js';
import { CliError, warn } from './ui.js';

/** The root of this package (the Switchyard repository the CLI runs from). */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SDK_INDEX = path.join(PACKAGE_ROOT, 'integrations', 'sdk', 'index.ts');
export const SDK_RUNTIME = path.join(PACKAGE_ROOT, 'integrations', 'sdk', 'runtime.ts');
export const CLI_VERSION: string = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
export const PINNED_ZOD = '4.0.5';
/** How scripts import the SDK. */
export const SDK_IMPORT = 'switchyard/sdk';

export type ScriptKind = 'sync' | 'action' | 'on-event';
const FOLDERS: Record<string, ScriptKind> = { syncs: 'sync', actions: 'action', 'on-events': 'on-event' };

export interface ScriptFile {
  integration: string;
  name: string;
  kind: ScriptKind;
  /** Absolute path. */
  file: string;
}

const YAML_CONFIGS = ['nango.yaml', 'nango.yml', 'switchyard.yaml', 'switchyard.yml', 'integrations.yaml', 'integrations.yml'];

export function yamlConfigOf(dir: string): string | null {
  return YAML_CONFIGS.map((f) => path.join(dir, f)).find((f) => existsSync(f)) ?? null;
}

/** The CLI's clock: `SWITCHYARD_NOW` moves it, as it moves the platform's (start/platform.ts). */
export function cliClock(): Clock {
  const at = process.env.SWITCHYARD_NOW;
  if (!at) return systemClock;
  const start = new Date(at);
  if (Number.isNaN(start.getTime())) throw new CliError(`SWITCHYARD_NOW is not a date: ${at}`, 'set it to an ISO 8601 date-time, or unset it');
  return clockFrom(start);
}

/**
 * compile and deploy refuse a yaml configuration from 2025-12-01, explaining the TypeScript
 * format; before that date it is ignored with a warning.
 */
export function refuseYaml(dir: string, clock: Clock = cliClock()): void {
  const yaml = yamlConfigOf(dir);
  if (!yaml) return;
  if (clock.now() < dates.yamlRefused) {
    warn(
      `${path.basename(yaml)} is ignored: Switchyard reads TypeScript scripts only, and refuses yaml configurations from ${dates.yamlRefused.toISOString().slice(0, 10)}; run \`switchyard migrate\``,
    );
    return;
  }
  throw new CliError(
    `${path.basename(yaml)} found: Switchyard does not read yaml configurations. Scripts are TypeScript files, one per sync or action:`,
    `run \`switchyard migrate\` to turn ${path.basename(yaml)} into script stubs (it is then renamed to ${path.basename(yaml)}.migrated), move each script's logic into its exec(), and run \`switchyard compile\``,
    [
      `<integration>/syncs/<name>.ts     export default createSync({ frequency, endpoints, models: { Model: z.object({...}) }, exec })`,
      `<integration>/actions/<name>.ts   export default createAction({ endpoint, input: z.object({...}), output: ..., exec })`,
      `both imported from '${SDK_IMPORT}'; models and inputs are zod ${PINNED_ZOD} schemas, so exec is typed end to end`,
    ],
  );
}

export async function findScripts(dir: string): Promise<ScriptFile[]> {
  const out: ScriptFile[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.') || ['node_modules', 'build', 'dist'].includes(entry.name)) continue;
    for (const [folder, kind] of Object.entries(FOLDERS)) {
      const sub = path.join(dir, entry.name, folder);
      if (!existsSync(sub)) continue;
      for (const f of await readdir(sub)) {
        if (!f.endsWith('.ts') || f.endsWith('.d.ts') || f.endsWith('.test.ts')) continue;
        out.push({ integration: entry.name, name: f.slice(0, -3), kind, file: path.join(sub, f) });
      }
    }
  }
  return out.sort((a, b) => `${a.integration}/${a.name}`.localeCompare(`${b.integration}/${b.name}`));
}

export async function requireScripts(dir: string): Promise<ScriptFile[]> {
  const scripts = await findScripts(dir);
  if (scripts.length === 0) {
    throw new CliError(
      `No scripts found in ${dir}`,
      'put scripts at <integration>/syncs/<name>.ts or <integration>/actions/<name>.ts (the folder is the integration key), or scaffold a project with `switchyard init`',
    );
  }
  return scripts;
}

function versionOf(range: string): [number, number, number] | null {
  const m = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(range);
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : null;
}

/**
 * The project's package.json must pin zod to exactly 4.0.5 (no range, no newer version): anything
 * else (or none) is replaced by 4.0.5, and the developer is sent to `npm install`. Returns the
 * directory of the installed zod.
 */
export async function checkZod(dir: string): Promise<string> {
  const pkgPath = path.join(dir, 'package.json');
  if (!existsSync(pkgPath)) {
    throw new CliError(`No package.json in ${dir}`, 'run the command in your integrations project, pass --dir <project>, or create one with `switchyard init`');
  }
  const text = await readFile(pkgPath, 'utf8');
  const pkg = JSON.parse(text) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const section = pkg.dependencies?.zod !== undefined ? 'dependencies' : pkg.devDependencies?.zod !== undefined ? 'devDependencies' : null;
  const declared = section ? pkg[section]!.zod! : null;
  if (declared?.trim() !== PINNED_ZOD) {
    const target = section ?? 'dependencies';
    pkg[target] = { ...pkg[target], zod: PINNED_ZOD };
    const indent = /^(\s+)"/m.exec(text)?.[1] ?? '  ';
    await writeFile(pkgPath, `${JSON.stringify(pkg, null, indent)}\n`);
    throw new CliError(
      declared
        ? `package.json asked for zod ${declared}; Switchyard scripts need zod ${PINNED_ZOD} exactly (no range, no other version). package.json now pins zod ${PINNED_ZOD}.`
        : `package.json has no zod; Switchyard scripts need zod ${PINNED_ZOD}. It is now in package.json.`,
      'run `npm install`, then run the command again',
    );
  }
  const zodDir = path.join(dir, 'node_modules', 'zod');
  const installedPkg = path.join(zodDir, 'package.json');
  if (!existsSync(installedPkg)) throw new CliError(`zod is not installed in ${dir}`, 'run `npm install`, then run the command again');
  const installed = (JSON.parse(await readFile(installedPkg, 'utf8')) as { version: string }).version;
  const installedVersion = versionOf(installed);
  if (!installedVersion || installedVersion[0] < 4) {
    throw new CliError(
      `The installed zod is ${installed}; package.json pins ${declared}`,
      'run `npm install` so node_modules matches package.json, then run the command again',
    );
  }
  if (installed !== PINNED_ZOD && declared === PINNED_ZOD)
    warn(`node_modules has zod ${installed} while package.json pins ${PINNED_ZOD}; \`npm install\` aligns them`);
  return zodDir;
}

/** Loads `<project>/.env` (KEY=value lines) without overriding variables already set. */
export function loadDotEnv(dir: string): void {
  const file = path.join(dir, '.env');
  if (!existsSync(file)) return;
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\s*$/.exec(line);
    if (!m || process.env[m[1]!] !== undefined) continue;
    process.env[m[1]!] = m[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
}

export function hostOf(): string {
  return (process.env.SWITCHYARD_HOST || 'http://localhost:3003').replace(/\/+$/, '');
}

export function secretKeyFor(env: string): { key: string; variable: string } {
  const variable = `SWITCHYARD_SECRET_KEY_${env.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
  const key = process.env[variable];
  if (!key) {
    throw new CliError(
      `${variable} is not set`,
      `set it to the secret key of the ${env} environment (the platform prints the dev key at start), in your shell or in the project's .env`,
    );
  }
  return { key, variable };
}

export function relative(dir: string, file: string): string {
  return path.relative(dir, file) || '.';
}
