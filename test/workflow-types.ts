/** Every workflow type the worker runs, read from the exports of workflows/index.ts. */
import { readFile } from 'node:fs/promises';

export async function workflowTypes(): Promise<string[]> {
  const source = await readFile('workflows/index.ts', 'utf8');
  const names = [...source.matchAll(/export\s*\{([^}]+)\}\s*from/g)].flatMap((m) =>
    m[1]!.split(',').map((n) =>
      n
        .trim()
        .split(/\s+as\s+/)
        .pop()!,
    ),
  );
  return names.filter(Boolean).sort();
}
