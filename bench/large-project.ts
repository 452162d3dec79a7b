/**
 * @module bench/large-project — writes a synthetic project in Nango's zero-yaml layout (a root
 * index.ts importing every function, `<integration>/syncs|actions/<name>.ts` made with
 * createSync/createAction from 'nango', zod models in each integration's models.ts): by default
 * 2,000 functions in 100 integrations, the scale of a real project, for the compile benchmark and
 * the CLI's tests. Our own code; zod is linked from this repository (an offline `npm install`).
 *
 * `node --import tsx bench/large-project.ts <dir> [--integrations=100] [--functions=20]`
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface LargeProjectOptions {
  integrations: number;
  functionsPerIntegration: number;
  /** Functions written to fail: `type` (a type error), `bundle` (a Node import), `load` (throws when loaded). */
  broken?: { integration: number; fn: number; as: 'type' | 'bundle' | 'load' }[];
}

export interface LargeProject {
  dir: string;
  integrations: string[];
  functions: { integration: string; name: string; kind: 'sync' | 'action' }[];
}

export const integrationKey = (i: number) => `app-${String(i).padStart(3, '0')}`;

const MODELS = `import * as z from 'zod';

export const Contact = z.object({
    id: z.string(),
    email: z.string(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    tags: z.array(z.string()),
    updatedAt: z.string()
});
export type Contact = z.infer<typeof Contact>;

export const Ticket = z.object({
    id: z.string(),
    subject: z.string(),
    status: z.enum(['open', 'pending', 'closed']),
    assignee: z.object({ id: z.string(), name: z.string() }).nullable(),
    updatedAt: z.string()
});
export type Ticket = z.infer<typeof Ticket>;

export const IdInput = z.object({ id: z.string() });
`;

function syncSource(n: number, broken?: 'type' | 'bundle' | 'load'): string {
  return `import { createSync } from 'nango';
${broken === 'bundle' ? "// @ts-ignore: type-checks (no Node types here), and the bundler refuses it\nimport { readFileSync } from 'node:fs';\n" : ''}import { Contact, Ticket } from '../models.js';

interface ApiContact {
    id: number;
    email: string;
    first_name?: string;
    last_name?: string;
    labels: string[];
    modified: string;
}
${broken === 'load' ? `\nthrow new Error('sync-${n} refuses to load');\n` : ''}
export default createSync({
    description: 'Contacts and tickets, page by page (${n})',
    version: '1.0.${n}',
    frequency: 'every hour',
    autoStart: true,
    syncType: 'full',
    endpoints: [
        { method: 'GET', path: '/contacts-${n}', group: 'Contacts' },
        { method: 'GET', path: '/tickets-${n}', group: 'Tickets' }
    ],
    models: { Contact, Ticket },
    exec: async (nango) => {
        for await (const page of nango.paginate<ApiContact>({ endpoint: '/v1/contacts', paginate: { type: 'cursor', cursor_path_in_response: 'next', cursor_name_in_request: 'cursor', response_path: 'results', limit: 100 } })) {
            const contacts: Contact[] = page.map((c) => ({
                id: String(c.id),
                email: c.email,
                firstName: c.first_name,
                lastName: c.last_name,
                tags: c.labels,
                updatedAt: ${broken === 'type' ? 'c.modified.length' : 'c.modified'}
            }));
            await nango.batchSave(contacts, 'Contact');
        }
        const tickets = await nango.get<{ results: Ticket[] }>({ endpoint: '/v1/tickets', retries: 3 });
        await nango.batchSave(tickets.data.results, 'Ticket');
${broken === 'bundle' ? '        await nango.log(String(readFileSync));\n' : ''}    }
});
`;
}

function actionSource(n: number, broken?: 'type' | 'bundle' | 'load'): string {
  return `import { createAction, ActionError } from 'nango';
${broken === 'bundle' ? "// @ts-ignore: type-checks (no Node types here), and the bundler refuses it\nimport { readFileSync } from 'node:fs';\n" : ''}import * as z from 'zod';
import { Contact, IdInput } from '../models.js';
${broken === 'load' ? `\nthrow new Error('action-${n} refuses to load');\n` : ''}
export default createAction({
    description: 'Updates one contact (${n})',
    version: '1.0.${n}',
    endpoint: { method: 'PATCH', path: '/contacts-${n}', group: 'Contacts' },
    input: IdInput.extend({ email: z.string().optional(), tags: z.array(z.string()).max(20) }),
    output: Contact,
    exec: async (nango, input) => {
        if (!input.id) throw new ActionError({ message: 'id is required' });
        const res = await nango.patch<{ id: number; email: string; labels: string[]; modified: string }>({
            endpoint: \`/v1/contacts/\${input.id}\`,
            data: { email: input.email, labels: input.tags },
            retries: 2
        });
${broken === 'bundle' ? '        await nango.log(String(readFileSync));\n' : ''}        return { id: String(res.data.id), email: res.data.email, tags: res.data.labels, updatedAt: ${broken === 'type' ? 'res.data.id' : 'res.data.modified'} };
    }
});
`;
}

/** Writes the project into `dir` (emptied first); a quarter of each integration's functions are syncs. */
export async function writeLargeProject(dir: string, opts: LargeProjectOptions): Promise<LargeProject> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.join(dir, 'node_modules'), { recursive: true });
  await symlink(path.join(ROOT, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'), 'dir');
  await writeFile(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: 'large-project', private: true, type: 'module', devDependencies: { nango: '0.71.2', zod: '4.3.6' } }, null, 2)}\n`,
  );
  const project: LargeProject = { dir, integrations: [], functions: [] };
  const index: string[] = [];
  for (let i = 0; i < opts.integrations; i++) {
    const key = integrationKey(i);
    project.integrations.push(key);
    await mkdir(path.join(dir, key, 'syncs'), { recursive: true });
    await mkdir(path.join(dir, key, 'actions'), { recursive: true });
    await writeFile(path.join(dir, key, 'models.ts'), MODELS);
    for (let f = 0; f < opts.functionsPerIntegration; f++) {
      const broken = opts.broken?.find((b) => b.integration === i && b.fn === f)?.as;
      const kind = f % 4 === 0 ? 'sync' : 'action';
      const name = `${kind === 'sync' ? 'contacts' : 'update-contact'}-${f}`;
      await writeFile(path.join(dir, key, `${kind}s`, `${name}.ts`), kind === 'sync' ? syncSource(f, broken) : actionSource(f, broken));
      index.push(`import './${key}/${kind}s/${name}.js';`);
      project.functions.push({ integration: key, name, kind });
    }
  }
  await writeFile(path.join(dir, 'index.ts'), `${index.join('\n')}\n`);
  return project;
}

if (process.argv[1] && /bench[/\\]large-project\.ts$/.test(process.argv[1])) {
  const [dir] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const flag = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  if (!dir) throw new Error('usage: bench/large-project.ts <dir> [--integrations=100] [--functions=20]');
  const p = await writeLargeProject(path.resolve(dir), { integrations: flag('integrations', 100), functionsPerIntegration: flag('functions', 20) });
  console.log(`${p.functions.length} functions in ${p.integrations.length} integrations at ${p.dir}`);
}
