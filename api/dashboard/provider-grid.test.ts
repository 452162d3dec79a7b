import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { jsx } from 'hono/jsx';
import { getCatalogProvider } from '../../features/providers/providers.js';
import { authModeLabel, categoryLabel } from './labels.js';
import { gridFilter, matches, ProviderGrid, type ListedProvider } from './provider-grid.js';

const listed = (...names: string[]): ListedProvider[] => names.map((n) => ({ provider: getCatalogProvider(n)!, source: 'catalog' }));
const providers = listed('github', 'gitlab', 'slack', 'metabase');

test('categories and auth modes are named for people; a mode without a label keeps its name', () => {
  assert.deepEqual(['dev-tools', 'crm', 'e-commerce', 'knowledge-base', 'hr', 'ai'].map(categoryLabel), [
    'Dev tools',
    'CRM',
    'E-commerce',
    'Knowledge base',
    'HR',
    'AI',
  ]);
  assert.equal(authModeLabel('API_KEY'), 'API key');
  assert.equal(authModeLabel('TWO_STEP'), 'TWO_STEP');
});

test('a search matches the name or the display name in any case; a category keeps the providers that have it', () => {
  const names = (q: string, category = '') => providers.filter(({ provider }) => matches(provider, { q, category })).map(({ provider }) => provider.name);
  assert.deepEqual(names('GIT'), ['github', 'gitlab']);
  assert.deepEqual(names('Hub'), ['github']);
  assert.deepEqual(names('', 'analytics'), ['metabase']);
  assert.deepEqual(names('git', 'analytics'), []);
});

test('the query string filters: q trimmed and cut at 128 characters, an unknown category ignored', async () => {
  const app = new Hono().get('/', (c) => c.json(gridFilter(c, providers)));
  const read = async (qs: string) => (await app.request(`/?${qs}`)).json();
  assert.deepEqual(await read('q=%20Git%20&category=dev-tools'), { q: 'Git', category: 'dev-tools' });
  assert.deepEqual(await read(`q=${'x'.repeat(300)}&category=nope`), { q: 'x'.repeat(128), category: '' });
  assert.deepEqual(await read(''), { q: '', category: '' });
});

test('every provider is rendered; those the filter leaves out are hidden, so the browser can bring them back', async () => {
  const html = String(
    await jsx(ProviderGrid, {
      providers,
      filter: { q: 'git', category: '' },
      action: '/new',
      providersHref: '/providers',
      chooseHref: (n: string) => `/new?provider=${n}`,
    }),
  );
  const items = [...html.matchAll(/<li data-provider="([^"]+)"[^>]*?( hidden="")?>/g)].map((m) => [m[1], Boolean(m[2])]);
  assert.deepEqual(items, [
    ['github', false],
    ['gitlab', false],
    ['metabase', true],
    ['slack', true],
  ]);
  assert.match(html, /<p id="provider-count" class="muted" role="status">2 of 4 providers<\/p>/);
  assert.match(html, /<option value="dev-tools">Dev tools \(2\)<\/option>/);
});
