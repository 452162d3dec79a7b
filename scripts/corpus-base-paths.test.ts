/**
 * The corpus base-path check (scripts/corpus-base-paths.ts) on functions written here in the shape
 * Nango's library writes them: which endpoints it reads, and which base paths it calls doubled.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { basePaths, checkIntegration, doubledPrefix, endpointsIn } from './corpus-base-paths.js';

const source = `
const PAGE = '/v1/items';
export default createSync({
  endpoints: [{ method: 'GET', path: '/items' }],
  exec: async (nango) => {
    await nango.get({ endpoint: PAGE });
    await nango.get({ endpoint: \`/v1/items/\${id}/children\` });
    await nango.post({ endpoint: flag ? 'v2/a' : 'v2/b', data: {} });
    await nango.get({ endpoint: '/elsewhere', baseUrlOverride: 'https://other.test' });
    await nango.get({ endpoint: '/api/elsewhere', ...(host && { baseUrlOverride: host }) });
    await nango.get({ endpoint: '/v1/x?limit=1' + cursor });
    await helper({ endpoint: someParameter });
    const endpoint = \`\${base}/thing\`;
    const config = { endpoint: '/api/v2/hooks' };
    if (zone) config.baseUrlOverride = \`https://\${zone}\`;
    await nango.get({ endpoint });
  },
});
`;

test('the endpoints a function passes to the proxy, from literals, consts and both branches; baseUrlOverride calls and declarations left out', () => {
  const { endpoints, unresolved } = endpointsIn(source, 'a.ts');
  assert.deepEqual(
    endpoints.map((e) => e.endpoint),
    ['/v1/items', '/v1/items/{}/children', 'v2/a', 'v2/b', '/v1/x?limit=1{}', '{}/thing'],
  );
  assert.equal(unresolved, 1);
});

test('a doubled prefix: the base path ends where the endpoint starts, or two API versions', () => {
  assert.equal(doubledPrefix('/api/v2', '/api/v2/contacts'), '/api/v2 twice');
  assert.equal(doubledPrefix('/v1', 'v1/pages'), '/v1 twice');
  assert.equal(doubledPrefix('/rest/v1', '/v2/users'), 'two API versions (v1, v2)');
  assert.equal(doubledPrefix('/api', '/v2/users'), undefined);
  assert.equal(doubledPrefix('', '/v1/pages'), undefined);
  assert.equal(doubledPrefix('/gateway.php/{}', '/v1/employees'), undefined);
  assert.deepEqual(basePaths('https://${connectionConfig.region}.acme.test/api/v2 || https://acme.test/api/v2'), ['/api/v2', '/api/v2']);
  assert.equal(basePaths('${connectionConfig.instanceUrl}'), undefined);
});

test('an integration folder is checked against the catalogue entry of its name', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'corpus-base-paths-'));
  try {
    const write = (name: string, body: string) => {
      mkdirSync(path.join(root, name, 'actions'), { recursive: true });
      writeFileSync(path.join(root, name, 'actions', 'x.ts'), body);
    };
    write('notion', `nango.get({ endpoint: '/v1/pages' }); nango.get({ endpoint: 'v1/search' });`);
    write('zoom', `nango.get({ endpoint: '/v2/users/me' });`);
    write('no-such-provider-here', `nango.get({ endpoint: '/x' });`);
    assert.deepEqual(checkIntegration(path.join(root, 'notion')).doubled, []);
    assert.deepEqual(checkIntegration(path.join(root, 'zoom')).doubled, ['/v2/users/me: /v2 twice']);
    assert.equal(checkIntegration(path.join(root, 'no-such-provider-here')).problem, 'no catalogue entry');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
