/**
 * @module api/dashboard/provider-grid — the providers an environment can use as a grid to choose
 * from (logo, name, auth mode, categories), searchable by name and filtered by category. The filters
 * are a GET form, so the server filters by the query string without JavaScript; dashboard.js
 * filters the same rendered entries as you type (each carries `data-search` and `data-categories`,
 * and the server's match is the same `includes` on the same text).
 */
import type { Context } from 'hono';
import type { Provider } from '../../features/providers/providers.js';
import type { ProviderSource } from '../../features/providers/store.js';
import { FilterForm, SelectFilter, TextFilter } from './components.js';
import { authModeLabel, categoryLabel } from './labels.js';
import { Badge } from './layout.js';

export interface ListedProvider {
  provider: Provider;
  source: ProviderSource;
}

export interface GridFilter {
  /** As typed (trimmed); matched lower-cased. */
  q: string;
  /** A category some provider has, else ''. */
  category: string;
}

const MAX_QUERY = 128;

/** The lower-cased text a search is matched in: the provider's name and its display name. */
export function searchText(p: Provider): string {
  return `${p.name}\n${p.displayName}`.toLowerCase();
}

export function matches(p: Provider, f: GridFilter): boolean {
  const q = f.q.toLowerCase();
  return (!q || searchText(p).includes(q)) && (!f.category || (p.definition.categories ?? []).includes(f.category));
}

/** The filters of the query string (`q`, `category`); an unknown category is ignored, a long query cut. */
export function gridFilter(c: Context, providers: readonly ListedProvider[]): GridFilter {
  const q = (c.req.query('q') ?? '').trim().slice(0, MAX_QUERY);
  const category = c.req.query('category') ?? '';
  const known = providers.some(({ provider }) => (provider.definition.categories ?? []).includes(category));
  return { q, category: known ? category : '' };
}

/** What the count line says; dashboard.js writes the same. */
const countText = (shown: number, total: number, filtered: boolean) => (filtered ? `${shown} of ${total} providers` : `${total} providers`);

/** Each category once, with how many providers have it, by label. */
function categoryOptions(providers: readonly ListedProvider[]): Record<string, string> {
  const counts = new Map<string, number>();
  for (const { provider } of providers) for (const c of new Set(provider.definition.categories ?? [])) counts.set(c, (counts.get(c) ?? 0) + 1);
  const sorted = [...counts].sort(([a], [b]) => categoryLabel(a).localeCompare(categoryLabel(b)));
  return Object.fromEntries(sorted.map(([c, n]) => [c, `${categoryLabel(c)} (${n})`]));
}

/** The logo /images/logos/<name>.svg serves (api/routes/logos.ts), decorative beside the name. */
export function ProviderLogo({ name, size = 40 }: { name: string; size?: number }) {
  return <img src={`/images/logos/${encodeURIComponent(name)}.svg`} alt="" width={String(size)} height={String(size)} loading="lazy" class="provider-logo" />;
}

/** The auth mode, a "yours" badge for the environment's own, and the categories. */
export function ProviderFacts({ provider, source }: ListedProvider) {
  const categories = provider.definition.categories ?? [];
  return (
    <>
      <span class="provider-badges">
        <Badge tone="neutral">{authModeLabel(provider.authMode)}</Badge>
        {source === 'user' && <Badge tone="ok">yours</Badge>}
      </span>
      {categories.length > 0 && <span class="provider-categories">{categories.map(categoryLabel).join(' · ')}</span>}
    </>
  );
}

/**
 * The search form and the grid. Every provider is rendered (sorted by display name); those the
 * filter leaves out are `hidden`, so clearing the search in the browser brings them back.
 */
export function ProviderGrid(props: {
  providers: readonly ListedProvider[];
  filter: GridFilter;
  action: string;
  providersHref: string;
  chooseHref: (name: string) => string;
}) {
  const { filter } = props;
  const sorted = [...props.providers].sort((a, b) => a.provider.displayName.localeCompare(b.provider.displayName));
  const shown = sorted.filter(({ provider }) => matches(provider, filter)).length;
  return (
    <>
      <FilterForm action={props.action} label="Find a provider" clearHref={props.action}>
        <TextFilter id="provider-search" name="q" label="Search by name" value={filter.q} type="search" />
        <SelectFilter id="provider-category" name="category" label="Category" value={filter.category} options={categoryOptions(sorted)} />
      </FilterForm>
      <p id="provider-count" class="muted" role="status">
        {countText(shown, sorted.length, Boolean(filter.q || filter.category))}
      </p>
      <p id="provider-none" class="empty" hidden={shown > 0}>
        No provider matches. You can <a href={props.providersHref}>define your own</a>.
      </p>
      <ul id="provider-grid" class="provider-grid" aria-label="Providers">
        {sorted.map((listed) => {
          const p = listed.provider;
          return (
            <li data-provider={p.name} data-search={searchText(p)} data-categories={JSON.stringify(p.definition.categories ?? [])} hidden={!matches(p, filter)}>
              <a href={props.chooseHref(p.name)} class="provider-card">
                <ProviderLogo name={p.name} />
                <span class="provider-card-text">
                  <span class="provider-name">{p.displayName}</span>
                  <ProviderFacts {...listed} />
                </span>
              </a>
            </li>
          );
        })}
      </ul>
    </>
  );
}
