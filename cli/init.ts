/**
 * @module cli/init — `switchyard init [dir]`: scaffolds an integrations project: package.json (zod
 * pinned), tsconfig.json (the settings `compile` type-checks with), .env, and an example sync and
 * action for a generic items API (`GET /items` cursor-paged, `POST /items`). The integration's
 * provider must exist on the platform: by default init writes `<integration>/provider.yaml`, a
 * user-defined API-key provider that `switchyard deploy` creates (with the integration); with
 * `--provider <name>` the integration uses that provider (of the catalogue, or already defined).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT, PINNED_ZOD, SDK_IMPORT } from './project.js';
import { bold, CliError, green, info } from './ui.js';

export function templates(name: string, integration: string, sdkPackage: string, provider?: string): Record<string, string> {
  return {
    ...(provider ? {} : { [`${integration}/provider.yaml`]: providerYaml(integration) }),
    'package.json': `${JSON.stringify(
      {
        name,
        private: true,
        type: 'module',
        scripts: {
          compile: 'switchyard compile',
          'deploy:dev': 'switchyard deploy dev',
          'deploy:prod': 'switchyard deploy prod',
          generate: 'switchyard generate',
        },
        dependencies: { zod: PINNED_ZOD },
        devDependencies: { switchyard: sdkPackage },
      },
      null,
      2,
    )}\n`,
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2022'],
          types: [],
          noEmit: true,
          skipLibCheck: true,
          isolatedModules: true,
          paths: { zod: ['./node_modules/zod'] },
        },
        include: ['**/*.ts'],
        exclude: ['node_modules', 'build'],
      },
      null,
      2,
    )}\n`,
    '.env': [
      '# Read by the switchyard CLI (variables already set in the shell win).',
      'SWITCHYARD_HOST=http://localhost:3003',
      '# SWITCHYARD_SECRET_KEY_DEV=',
      '# SWITCHYARD_SECRET_KEY_PROD=',
      '',
    ].join('\n'),
    '.gitignore': 'node_modules/\nbuild/\n.switchyard/\n.env\n',
    'README.md': [
      `# ${name}`,
      '',
      `Custom integrations for Switchyard. Each folder is an integration key; scripts live in \`<integration>/syncs/*.ts\` and`,
      `\`<integration>/actions/*.ts\` and import \`createSync\` / \`createAction\` from \`${SDK_IMPORT}\`.`,
      '',
      '```sh',
      'npm install',
      'npx switchyard compile                      # type-check, bundle, write build/manifest.json',
      `npx switchyard dryrun items <connection-id>   # run against a real connection, save nothing`,
      'npx switchyard deploy dev                   # SWITCHYARD_SECRET_KEY_DEV',
      'npx switchyard generate                     # typed client for your backend',
      '```',
      '',
    ].join('\n'),
    [`${integration}/models.ts`]: [
      `import { z } from 'zod';`,
      '',
      'export const Item = z.object({',
      '  id: z.string(),',
      '  name: z.string(),',
      '  updatedAt: z.string(),',
      '});',
      'export type Item = z.infer<typeof Item>;',
      '',
      "/** The provider's own shape. */",
      'export interface ApiItem {',
      '  id: string;',
      '  name: string;',
      '  updated_at: string;',
      '}',
      '',
      'export function toItem(i: ApiItem): Item {',
      '  return { id: String(i.id), name: i.name, updatedAt: i.updated_at };',
      '}',
      '',
    ].join('\n'),
    [`${integration}/syncs/items.ts`]: [
      `import { createSync } from '${SDK_IMPORT}';`,
      `import { Item, toItem, type ApiItem } from '../models.js';`,
      '',
      '/** Every item, page by page (cursor pagination); a full sync, so items removed upstream show as deleted. */',
      'export default createSync({',
      "  description: 'Fetches all items',",
      "  frequency: 'every hour',",
      '  autoStart: true,',
      "  syncType: 'full',",
      "  endpoints: [{ method: 'GET', path: '/items', group: 'Items' }],",
      '  models: { Item },',
      '  async exec(ctx) {',
      '    for await (const page of ctx.paginate<ApiItem>({',
      "      endpoint: '/items',",
      '      retries: 5,',
      "      paginate: { type: 'cursor', response_path: 'items', cursor_path_in_response: 'next_cursor', cursor_name_in_request: 'cursor', limit: 100 },",
      '    })) {',
      "      await ctx.batchSave(page.map(toItem), 'Item');",
      '    }',
      '  },',
      '});',
      '',
    ].join('\n'),
    [`${integration}/actions/create-item.ts`]: [
      `import { z } from 'zod';`,
      `import { ActionError, createAction } from '${SDK_IMPORT}';`,
      `import { Item, toItem, type ApiItem } from '../models.js';`,
      '',
      'export default createAction({',
      "  description: 'Creates an item',",
      "  endpoint: { method: 'POST', path: '/items', group: 'Items' },",
      '  input: z.object({ name: z.string().min(1) }),',
      '  output: Item,',
      '  async exec(ctx, input) {',
      "    if (input.name.trim() === '') throw new ActionError({ message: 'name must not be blank' });",
      "    const res = await ctx.post<ApiItem>({ endpoint: '/items', data: { name: input.name } });",
      '    const item = toItem(res.data);',
      "    await ctx.batchSave([item], 'Item');",
      '    return item;',
      '  },',
      '});',
      '',
    ].join('\n'),
  };
}

/** A provider name from an integration key (provider names are lower-case letters, digits, ".", "_" and "-"). */
export function providerNameFor(integration: string): string {
  return (
    integration
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '') || 'my-api'
  );
}

/** A user-defined provider for the example scripts: an API key as a Bearer token, the host chosen per connection. */
function providerYaml(integration: string): string {
  const name = providerNameFor(integration);
  return [
    "# The provider behind this integration, in the shape of an entry of Nango's providers.yaml.",
    '# `switchyard deploy` creates it on the platform (POST /providers, then PUT on later deploys),',
    '# and the integration of this folder with it when there is none yet.',
    `name: ${name}`,
    `display_name: ${integration}`,
    'categories: [other]',
    'auth_mode: API_KEY',
    'proxy:',
    '  # ${connectionConfig.host} is asked when connecting (a full http(s):// URL is taken as is).',
    '  base_url: https://${connectionConfig.host}',
    '  headers:',
    '    authorization: Bearer ${apiKey}',
    '  # Called with the key before a connection is saved; a non-2xx answer refuses it.',
    '  verification:',
    '    method: GET',
    '    endpoints: [/items]',
    'connection_config:',
    '  host:',
    '    title: API host',
    '    description: The host name of the API, e.g. api.example.com',
    'docs: https://example.com/docs',
    '',
  ].join('\n');
}

export async function init(target: string, opts: { integration: string; provider?: string }): Promise<number> {
  const dir = path.resolve(target);
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    throw new CliError(`${dir} exists and is not empty`, 'choose a new folder: switchyard init <dir>');
  }
  if (!/^[a-zA-Z0-9~:.@_-]+$/.test(opts.integration)) {
    throw new CliError(`'${opts.integration}' is not a valid integration key`, 'use letters, digits and ~:.@_- (the key of the integration on the platform)');
  }
  const sdk = `file:${path.relative(dir, PACKAGE_ROOT) || '.'}`;
  if (opts.provider !== undefined && !/^[a-z0-9][a-z0-9._-]*$/.test(opts.provider)) {
    throw new CliError(`'${opts.provider}' is not a provider name`, 'use the name of a catalogue provider (GET /providers), e.g. --provider github');
  }
  for (const [file, content] of Object.entries(templates(path.basename(dir), opts.integration, sdk, opts.provider))) {
    const full = path.join(dir, file);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  info(
    `${green('✓')} ${bold(`Scaffolded ${dir}`)} with an example sync (${opts.integration}/syncs/items.ts) and action (${opts.integration}/actions/create-item.ts)`,
  );
  const shown = path.relative(process.cwd(), dir);
  info(`  Next: cd ${shown.startsWith('..') ? dir : shown || '.'} && npm install, then \`npx switchyard compile\``);
  if (opts.provider) {
    info(
      `  The folder ${opts.integration}/ is the key of an integration on the platform: create it with the provider ${opts.provider} (POST /integrations {"unique_key":"${opts.integration}","provider":"${opts.provider}"} or the dashboard)`,
    );
  } else {
    info(
      `  ${opts.integration}/provider.yaml defines its provider (${providerNameFor(opts.integration)}, an API key); \`npx switchyard deploy dev\` creates it and the integration ${opts.integration}`,
    );
  }
  return 0;
}
