/**
 * Prints the catalogue's table (features/providers/catalog/README.md between its markers) from the
 * YAML files themselves: `node --import tsx scripts/catalog-table.ts --write` rewrites it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOG_DIR, catalog } from '../features/providers/catalog.js';

export function catalogTable(): string {
  const rows = [...catalog().values()].map(
    (d) =>
      `| \`${d.name}\` | ${d.display_name} | ${d.auth_mode} | ${d.categories.join(', ')} | ${d.webhook ? `\`${d.webhook.signature_header}\`` : ''} | ${d.docs} |`,
  );
  return [
    '| name | display name | auth mode | categories | signed webhooks | documentation the entry was written from |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const START = '<!-- catalogue table: scripts/catalog-table.ts -->';
const END = '<!-- end of catalogue table -->';

export function readmeWithTable(readme: string): string {
  const [before, rest] = readme.split(START);
  const after = rest?.split(END)[1];
  if (before === undefined || after === undefined) throw new Error('README.md lacks the catalogue table markers');
  return `${before}${START}\n${catalogTable()}\n${END}${after}`;
}

if (process.argv.includes('--write')) {
  const file = path.join(CATALOG_DIR, 'README.md');
  writeFileSync(file, readmeWithTable(readFileSync(file, 'utf8')));
  console.log(`${catalog().size} entries written to ${file}`);
}
