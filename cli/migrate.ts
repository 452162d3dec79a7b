/**
 * @module cli/migrate — `switchyard migrate`: turns a yaml configuration (Nango's nango.yaml shape:
 * integrations → syncs / actions, and models) into TypeScript script stubs: a models.ts of zod
 * schemas per integration and one createSync / createAction file per script, with the yaml's
 * frequency, endpoints and models filled in. Existing yaml-era script files are moved aside to
 * `<integration>/legacy/`, and the yaml file is renamed to `<name>.migrated`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { templates } from './init.js';
import { PACKAGE_ROOT, SDK_IMPORT, yamlConfigOf } from './project.js';
import { CliError, green, info } from './ui.js';

type Fields = Record<string, unknown>;

interface YamlScript {
  description?: string;
  runs?: string;
  frequency?: string;
  auto_start?: boolean;
  sync_type?: string;
  track_deletes?: boolean;
  endpoint?: unknown;
  endpoints?: unknown[];
  output?: string | string[];
  input?: string;
  scopes?: string[];
}

interface YamlConfig {
  integrations?: Record<string, { syncs?: Record<string, YamlScript>; actions?: Record<string, YamlScript> }>;
  models?: Record<string, Fields>;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function endpointsOf(s: YamlScript, fallback: string): { method: string; path: string; group?: string }[] {
  const raw = s.endpoints ?? (s.endpoint !== undefined ? [s.endpoint] : []);
  const out = raw
    .map((e) => {
      if (typeof e === 'string') {
        const [method, p] = e.trim().split(/\s+/);
        return METHODS.includes(String(method).toUpperCase()) && p ? { method: method!.toUpperCase(), path: p } : { method: fallback, path: e.trim() };
      }
      const o = e as { method?: string; path?: string; group?: string };
      return { method: (o.method ?? fallback).toUpperCase(), path: o.path ?? '/', ...(o.group ? { group: o.group } : {}) };
    })
    .filter((e) => e.path.startsWith('/'));
  return out;
}

/** A zod expression for a yaml field type: `string`, `number | null`, `Item[]`, `'a' | 'b'`, a model name, a nested map. */
function zodOf(type: unknown, models: Set<string>): string {
  if (type && typeof type === 'object' && !Array.isArray(type)) return objectOf(type as Fields, models);
  if (Array.isArray(type)) return `z.array(${type.length ? zodOf(type[0], models) : 'z.unknown()'})`;
  const t = String(type).trim();
  const parts = t.split('|').map((p) => p.trim());
  if (parts.length > 1) {
    const nullable = parts.includes('null');
    const optional = parts.includes('undefined');
    const rest = parts.filter((p) => p !== 'null' && p !== 'undefined');
    const literals = rest.every((p) => /^(['"]).*\1$/.test(p));
    let inner: string;
    if (literals) inner = `z.enum([${rest.map((p) => JSON.stringify(p.slice(1, -1))).join(', ')}])`;
    else inner = rest.length === 1 ? zodOf(rest[0], models) : `z.union([${rest.map((p) => zodOf(p, models)).join(', ')}])`;
    return `${inner}${nullable ? '.nullable()' : ''}${optional ? '.optional()' : ''}`;
  }
  if (t.endsWith('[]')) return `z.array(${zodOf(t.slice(0, -2), models)})`;
  if (/^(['"]).*\1$/.test(t)) return `z.literal(${JSON.stringify(t.slice(1, -1))})`;
  switch (t) {
    case 'string':
      return 'z.string()';
    case 'number':
    case 'integer':
      return 'z.number()';
    case 'boolean':
      return 'z.boolean()';
    case 'Date':
    case 'date':
      return 'z.string() /* ISO date: JSON carries dates as strings */';
    case 'null':
      return 'z.null()';
    case 'any':
    case 'unknown':
    case 'object':
      return 'z.unknown()';
  }
  if (models.has(t)) return `z.lazy(() => ${t})`;
  return `z.unknown() /* unknown type ${t} */`;
}

function objectOf(fields: Fields, models: Set<string>): string {
  const lines = Object.entries(fields)
    .filter(([k]) => k !== '__extends')
    .map(([k, v]) => {
      const optional = k.endsWith('?');
      const name = optional ? k.slice(0, -1) : k;
      return `  ${/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)}: ${zodOf(v, models)}${optional ? '.optional()' : ''},`;
    });
  return `z.object({\n${lines.join('\n')}\n})`;
}

function modelsFile(config: YamlConfig): string {
  const models = config.models ?? {};
  const names = new Set(Object.keys(models));
  const out = [`import { z } from 'zod';`, '', '// Converted from the yaml models by `switchyard migrate`: check each type.', ''];
  for (const [name, fields] of Object.entries(models)) {
    const ext = typeof fields === 'object' && fields && '__extends' in fields ? ` // extended ${String(fields.__extends)} in yaml: merge its fields` : '';
    out.push(`export const ${name} = ${objectOf((fields ?? {}) as Fields, names)};${ext}`, `export type ${name} = z.infer<typeof ${name}>;`, '');
  }
  return out.join('\n');
}

function stub(kind: 'sync' | 'action', name: string, s: YamlScript, legacy: string | null): string {
  const outputs = (Array.isArray(s.output) ? s.output : s.output ? [s.output] : []).filter(Boolean);
  const imports = [...new Set([...outputs, ...(kind === 'action' && s.input ? [s.input] : [])])];
  const lines = [
    ...(kind === 'action' && !s.input ? [`import { z } from 'zod';`] : []),
    `import { ${kind === 'sync' ? 'createSync' : 'createAction'} } from '${SDK_IMPORT}';`,
    ...(imports.length ? [`import { ${imports.join(', ')} } from '../models.js';`] : []),
    '',
    ...(legacy ? [`// The yaml-era script is in ${legacy}: move its body into exec (\`ctx\` replaces \`nango\`).`] : []),
  ];
  if (kind === 'sync') {
    const endpoints = endpointsOf(s, 'GET');
    lines.push(
      'export default createSync({',
      `  description: ${JSON.stringify(s.description ?? name)},`,
      `  frequency: ${JSON.stringify(s.runs ?? s.frequency ?? 'every day')},`,
      `  autoStart: ${s.auto_start ?? true},`,
      `  syncType: ${JSON.stringify(s.sync_type === 'incremental' ? 'incremental' : 'full')},`,
      `  endpoints: ${JSON.stringify(endpoints.length ? endpoints : [{ method: 'GET', path: `/${name}` }])},`,
      `  models: { ${outputs.join(', ')} },`,
      '  async exec(ctx) {',
      `    // TODO: fetch from the provider (ctx.paginate / ctx.get) and save: await ctx.batchSave(records, '${outputs[0] ?? 'Model'}');`,
      `    ctx.log('${name}: not implemented yet');`,
      '  },',
      '});',
      '',
    );
  } else {
    const endpoints = endpointsOf(s, 'POST');
    lines.push(
      'export default createAction({',
      `  description: ${JSON.stringify(s.description ?? name)},`,
      `  endpoint: ${JSON.stringify(endpoints[0] ?? { method: 'POST', path: `/${name}` })},`,
      `  input: ${s.input ?? 'z.object({})'},`,
      `  output: ${outputs[0] ?? 'z.object({})'},`,
      '  async exec(ctx, input) {',
      '    // TODO: call the provider (ctx.post / ctx.get …) and return the output',
      `    throw new Error('${name}: not implemented yet ' + JSON.stringify(input));`,
      '  },',
      '});',
      '',
    );
  }
  return lines.join('\n');
}

export async function migrate(dir: string): Promise<number> {
  const yamlFile = yamlConfigOf(dir);
  if (!yamlFile)
    throw new CliError(`No yaml configuration (nango.yaml) in ${dir}`, 'run `switchyard migrate` in the folder that holds nango.yaml, or pass --dir');
  let config: YamlConfig;
  try {
    config = (parse(await readFile(yamlFile, 'utf8')) ?? {}) as YamlConfig;
  } catch (err) {
    throw new CliError(`${path.basename(yamlFile)} is not valid yaml: ${(err as Error).message}`, 'fix the yaml, or write the TypeScript scripts by hand');
  }
  const integrations = Object.entries(config.integrations ?? {});
  if (!integrations.length)
    throw new CliError(`${path.basename(yamlFile)} has no integrations`, 'write the TypeScript scripts by hand (see `switchyard init`)');
  const written: string[] = [];
  const write = async (rel: string, content: string) => {
    const full = path.join(dir, rel);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
    written.push(rel);
  };
  for (const [integration, scripts] of integrations) {
    await write(path.join(integration, 'models.ts'), modelsFile(config));
    for (const [kind, folder] of [
      ['sync', 'syncs'],
      ['action', 'actions'],
    ] as const) {
      for (const [name, s] of Object.entries((kind === 'sync' ? scripts.syncs : scripts.actions) ?? {})) {
        const rel = path.join(integration, folder, `${name}.ts`);
        let legacy: string | null = null;
        if (existsSync(path.join(dir, rel))) {
          legacy = path.join(integration, 'legacy', folder, `${name}.ts`);
          await mkdir(path.dirname(path.join(dir, legacy)), { recursive: true });
          await rename(path.join(dir, rel), path.join(dir, legacy));
        }
        await write(rel, stub(kind, name, s ?? {}, legacy));
      }
    }
  }
  const sdk = `file:${path.relative(dir, PACKAGE_ROOT) || '.'}`;
  for (const [file, content] of Object.entries(templates(path.basename(dir), '_', sdk))) {
    if (['package.json', 'tsconfig.json', '.gitignore'].includes(file) && !existsSync(path.join(dir, file))) await write(file, content);
  }
  await rename(yamlFile, `${yamlFile}.migrated`);
  info(`${green('✓')} Wrote ${written.length} file(s) from ${path.basename(yamlFile)} (now ${path.basename(yamlFile)}.migrated):`);
  for (const w of written) info(`  ${w}`);
  info('  Next: fill in each exec (marked TODO), check the models, then `switchyard compile`');
  return 0;
}
