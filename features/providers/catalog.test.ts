import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CATALOG_DIR, catalog, readCatalogEntry } from './catalog.js';
import { definitionWarnings, providerDefinitionSchema } from './definition.js';

test('every catalogue file is a valid definition named as its file', () => {
  const files = readdirSync(CATALOG_DIR).filter((f) => f.endsWith('.yaml'));
  const failures: string[] = [];
  for (const f of files) {
    try {
      readCatalogEntry(path.join(CATALOG_DIR, f));
    } catch (err) {
      failures.push((err as Error).message);
    }
  }
  assert.deepEqual(failures, []);
  assert.equal(catalog().size, files.length);
});

test('every catalogue entry cites a documentation page of its own (https)', () => {
  for (const def of catalog().values()) assert.match(def.docs ?? '', /^https:\/\//, def.name);
});

const apiKeyProvider = {
  name: 'acme',
  display_name: 'Acme',
  auth_mode: 'API_KEY',
  proxy: { base_url: 'https://${connectionConfig.subdomain}.acme.test/api', headers: { authorization: 'Bearer ${apiKey}' } },
  connection_config: { subdomain: { title: 'Subdomain' } },
  credentials: { apiKey: { title: 'API key', secret: true } },
  docs: 'https://acme.test/docs/auth',
};

test('a definition with placeholders, fields and a key it does not use parses; the key is reported', () => {
  const input = { ...apiKeyProvider, post_connection_script: 'x' };
  assert.deepEqual(definitionWarnings(providerDefinitionSchema.parse(input)), [`Nango's key "post_connection_script" kept but not used`]);
});

test('bad definitions are refused naming the field', () => {
  const problems = (input: unknown) => {
    const r = providerDefinitionSchema.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  assert.match(problems({ ...apiKeyProvider, auth_mode: 'MAGIC' }).join('\n'), /^auth_mode: /m);
  assert.match(problems({ ...apiKeyProvider, auth_mode: 'OAUTH2' }).join('\n'), /^authorization_url: is required/m);
  assert.match(problems({ ...apiKeyProvider, connection_config: {} }).join('\n'), /^proxy\.base_url: uses \$\{connectionConfig\.subdomain\}/m);
  assert.match(
    problems({ ...apiKeyProvider, proxy: { base_url: 'https://x.test', query: { k: '${secret}' } } }).join('\n'),
    /^proxy\.query\.k: unknown placeholder/m,
  );
  assert.match(problems({ ...apiKeyProvider, docs: 'not a url' }).join('\n'), /^docs: /m);
});

test('the catalogue README lists every entry as the YAML files say', async () => {
  const { readFileSync } = await import('node:fs');
  const { readmeWithTable } = await import('../../scripts/catalog-table.js');
  const readme = readFileSync(path.join(CATALOG_DIR, 'README.md'), 'utf8');
  assert.equal(readme, readmeWithTable(readme), 'run: node --import tsx scripts/catalog-table.ts --write');
});
