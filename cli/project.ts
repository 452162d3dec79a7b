/**
 * @module cli/project — an integrations project on disk: where its scripts are
 * (`<integration>/syncs|actions|on-events/<name>.ts`; in a Nango zero-yaml project, those the root
 * `index.ts` imports), the rules it must follow (TypeScript scripts, not a yaml config; zod pinned
 * to 4.0.5, any zod 4 in a Nango project), its `.env` (`SWITCHYARD_*`, else Nango's `NANGO_*`
 * names), and where the SDK comes from.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clockFrom, dates, systemClock, type Clock } from '../lib/clock.js';
import { CliError, warn } from './ui.js';

/** The root of this package (the Switchyard repository the CLI runs from). */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SDK_INDEX = path.join(PACKAGE_ROOT, 'sdk', 'index.ts');
export const SDK_RUNTIME = path.join(PACKAGE_ROOT, 'sdk', 'runtime.ts');
export const SDK_EXPERIMENTAL = path.join(PACKAGE_ROOT, 'sdk', 'experimental.ts');
/** The type root holding `sandbox`: the globals and modules scripts have in the sandbox. */
export const SDK_GLOBALS = path.join(PACKAGE_ROOT, 'sdk', 'globals');
/** Modules Nango allows that need Node itself, and the empty file the type-check resolves them to (their types are the sandbox's). */
export const NODE_ONLY_MODULES = ['soap', 'unzipper', 'botbuilder'] as const;
export const SDK_NODE_ONLY_MODULE = path.join(SDK_GLOBALS, 'sandbox', 'node-only-module.d.ts');
export const CLI_VERSION: string = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
export const PINNED_ZOD = '4.0.5';
/** How scripts import the SDK. */
export const SDK_IMPORT = 'switchyard/sdk';
/** Nango's name for its function SDK: Nango projects import it unchanged, and get Switchyard's. */
export const NANGO_SDK_IMPORT = 'nango';
/** Every import the CLI maps to its SDK when it type-checks and bundles. */
export const SDK_IMPORTS = [SDK_IMPORT, NANGO_SDK_IMPORT] as const;

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

/** Every script file in the integration folders, whether or not an `index.ts` lists it. */
async function scriptFiles(dir: string): Promise<ScriptFile[]> {
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

/** The root `index.ts` of a Nango zero-yaml project, or null. */
export function nangoIndexOf(dir: string): string | null {
  const file = path.join(dir, 'index.ts');
  return existsSync(file) ? file : null;
}

/** A Nango zero-yaml project: a root `index.ts`, or `nango` in package.json. */
export function isNangoProject(dir: string): boolean {
  if (nangoIndexOf(dir)) return true;
  const pkgPath = path.join(dir, 'package.json');
  if (!existsSync(pkgPath)) return false;
  try {
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    return pkg.dependencies?.[NANGO_SDK_IMPORT] !== undefined || pkg.devDependencies?.[NANGO_SDK_IMPORT] !== undefined;
  } catch {
    return false;
  }
}

const INDEX_IMPORT = /^\s*(?:import|export\s+\*\s+from)\s+['"]\.\/([^'"]+)['"]/gm;

/**
 * The scripts a Nango `index.ts` registers (`import './<integration>/<syncs|actions|on-events>/<name>.js'`),
 * in its order. An import of a file that does not exist, or outside those folders, is an error, as
 * Nango's CLI makes it one.
 */
export function indexedScripts(dir: string, indexFile: string): { integration: string; name: string; kind: ScriptKind; file: string }[] {
  const text = readFileSync(indexFile, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const out: ScriptFile[] = [];
  const problems: string[] = [];
  for (const m of text.matchAll(INDEX_IMPORT)) {
    const spec = m[1]!;
    const parts = /^([^/]+)\/(syncs|actions|on-events)\/([^/]+?)(?:\.(?:js|ts|mjs))?$/.exec(spec);
    if (!parts) continue; // models.ts, helpers: not scripts
    const file = path.join(dir, parts[1]!, parts[2]!, `${parts[3]!}.ts`);
    if (!existsSync(file)) {
      problems.push(`index.ts imports ./${spec}, but ${relative(dir, file)} does not exist`);
      continue;
    }
    if (!out.some((s) => s.file === file)) out.push({ integration: parts[1]!, name: parts[3]!, kind: FOLDERS[parts[2]!]!, file });
  }
  if (problems.length) throw new CliError('index.ts lists scripts that are not there:', 'fix the imports in index.ts and run the command again', problems);
  return out;
}

/** Files named in the warning about function files index.ts leaves out (Nango's library leaves out hundreds). */
const SHOWN_LEFT_OUT = 10;

/**
 * The project's scripts. In a Nango zero-yaml project (a root `index.ts`) they are the ones its
 * `index.ts` imports (as Nango deploys them); a script file it does not import is left out with a
 * warning. Otherwise every `<integration>/syncs|actions|on-events/<name>.ts`.
 */
export async function findScripts(dir: string): Promise<ScriptFile[]> {
  const all = await scriptFiles(dir);
  const index = nangoIndexOf(dir);
  if (!index) return all;
  const listed = indexedScripts(dir, index);
  const imported = new Set(listed.map((l) => l.file));
  const left = all.filter((s) => !imported.has(s.file)).map((s) => relative(dir, s.file));
  if (left.length) {
    const shown = left.length > SHOWN_LEFT_OUT ? [...left.slice(0, SHOWN_LEFT_OUT), `… and ${left.length - SHOWN_LEFT_OUT} more`] : left;
    warn(`${left.length} function file(s) not imported by index.ts, so not compiled or deployed: ${shown.join(', ')}`);
  }
  return listed.sort((a, b) => `${a.integration}/${a.name}`.localeCompare(`${b.integration}/${b.name}`));
}

export async function requireScripts(dir: string): Promise<ScriptFile[]> {
  const scripts = await findScripts(dir);
  if (scripts.length === 0) {
    throw new CliError(
      `No scripts found in ${dir}`,
      nangoIndexOf(dir)
        ? "import each script in index.ts (import './<integration>/syncs/<name>.js'), as in a Nango project"
        : 'put scripts at <integration>/syncs/<name>.ts or <integration>/actions/<name>.ts (the folder is the integration key), or scaffold a project with `switchyard init`',
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
 * else (or none) is replaced by 4.0.5, and the developer is sent to `npm install`. A Nango project
 * is not edited: the zod 4 it lists (Nango's templates pin their own) is accepted as installed.
 * Returns the directory of the installed zod.
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
  const nango = isNangoProject(dir);
  if (nango) {
    const major = declared ? versionOf(declared)?.[0] : undefined;
    if (major === undefined || major < 4) {
      throw new CliError(
        declared ? `package.json asks for zod ${declared}; scripts need zod 4` : 'package.json lists no zod; scripts need zod 4',
        'list zod 4 in package.json (as Nango projects do), run `npm install`, then run the command again',
      );
    }
  } else if (declared?.trim() !== PINNED_ZOD) {
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
  if (!nango && installed !== PINNED_ZOD && declared === PINNED_ZOD)
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

/** The platform's URL: `SWITCHYARD_HOST`, else Nango's `NANGO_HOST` / `NANGO_HOSTPORT` (a Nango project's .env works as is). */
export function hostOf(): string {
  return (process.env.SWITCHYARD_HOST || process.env.NANGO_HOST || process.env.NANGO_HOSTPORT || 'http://localhost:3003').replace(/\/+$/, '');
}

/** An environment's secret key: `SWITCHYARD_SECRET_KEY_<ENV>`, else Nango's `NANGO_SECRET_KEY_<ENV>`; `variable` names the one used. */
export function secretKeyFor(env: string): { key: string; variable: string } {
  const suffix = env.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  const variable = `SWITCHYARD_SECRET_KEY_${suffix}`;
  const nangoVariable = `NANGO_SECRET_KEY_${suffix}`;
  const key = process.env[variable] || process.env[nangoVariable];
  if (!key) {
    throw new CliError(
      `${variable} is not set (nor ${nangoVariable})`,
      `set it to the secret key of the ${env} environment (the platform prints the dev key at start), in your shell or in the project's .env`,
    );
  }
  return { key, variable: process.env[variable] ? variable : nangoVariable };
}

export function relative(dir: string, file: string): string {
  return path.relative(dir, file) || '.';
}
