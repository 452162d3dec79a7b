/**
 * @module cli/init — `switchyard init [dir]`: scaffolds an integrations project: package.json (zod
 * pinned), tsconfig.json (the settings `compile` type-checks with), .env, and an example sync and
 * action for a generic items API (`GET /items` cursor-paged, `POST /items`).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT, PINNED_ZOD, SDK_IMPORT } from './project.js';
import { bold, CliError, green, info } from './ui.js';

export function templates(name: string, integration: string, sdkPackage: string): Record<string, string> {
  return {
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

export async function init(target: string, opts: { integration: string }): Promise<number> {
  const dir = path.resolve(target);
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    throw new CliError(`${dir} exists and is not empty`, 'choose a new folder: switchyard init <dir>');
  }
  if (!/^[a-zA-Z0-9~:.@_-]+$/.test(opts.integration)) {
    throw new CliError(`'${opts.integration}' is not a valid integration key`, 'use letters, digits and ~:.@_- (the key of the integration on the platform)');
  }
  const sdk = `file:${path.relative(dir, PACKAGE_ROOT) || '.'}`;
  for (const [file, content] of Object.entries(templates(path.basename(dir), opts.integration, sdk))) {
    const full = path.join(dir, file);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  info(
    `${green('✓')} ${bold(`Scaffolded ${dir}`)} with an example sync (${opts.integration}/syncs/items.ts) and action (${opts.integration}/actions/create-item.ts)`,
  );
  const shown = path.relative(process.cwd(), dir);
  info(`  Next: cd ${shown.startsWith('..') ? dir : shown || '.'} && npm install, then \`npx switchyard compile\``);
  info(`  The folder ${opts.integration}/ is the key of an integration on the platform: create it there, or rename the folder`);
  return 0;
}
