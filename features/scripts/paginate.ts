/**
 * @module features/scripts/paginate — pagination helpers for cursor, link, offset and page styles (Nango's
 * `paginate` options, plus `page`: a page number from `page_start_value`), so scripts
 * rarely write paging loops. With `resume`, the position of the next page is saved before it is
 * fetched (the previous page has been processed by then), so a run restarted after a crash goes on
 * from the page in flight rather than from the start.
 */
import type { PaginateConfig, ProxyConfig, ScriptResponse } from '../../sdk/types.js';
import type { ProviderPaginate } from '../providers/providers.js';

/**
 * A script's paginate settings over its provider's `proxy.paginate` defaults: what the script says
 * wins; the defaults apply when it says nothing, or names the same type without every field.
 */
export function withPaginateDefaults(own: PaginateConfig['paginate'], defaults: ProviderPaginate | undefined): PaginateConfig['paginate'] {
  if (!defaults || (own?.type && own.type !== defaults.type)) return own;
  const base: NonNullable<PaginateConfig['paginate']> = {
    type: defaults.type,
    ...(defaults.response_path && { response_path: defaults.response_path }),
    ...(defaults.limit !== undefined && { limit: defaults.limit }),
    ...(defaults.limit_name_in_request && { limit_name_in_request: defaults.limit_name_in_request }),
    ...(defaults.cursor_path_in_response && { cursor_path_in_response: defaults.cursor_path_in_response }),
    ...(defaults.cursor_name_in_request && { cursor_name_in_request: defaults.cursor_name_in_request }),
    ...(defaults.link_path_in_response_body && { link_path_in_response_body: defaults.link_path_in_response_body }),
    ...(defaults.offset_name_in_request && { offset_name_in_request: defaults.offset_name_in_request }),
    ...(defaults.offset_start_value !== undefined && { offset_start_value: defaults.offset_start_value }),
    ...(defaults.offset_calculation_method && { offset_calculation_method: defaults.offset_calculation_method }),
    ...(defaults.link_rel_in_response_header && { link_rel_in_response_header: defaults.link_rel_in_response_header }),
  };
  return { ...base, ...own };
}

export type PagePosition = { offset: number } | { cursor: string } | { next: Pick<ProxyConfig, 'endpoint' | 'params' | 'baseUrlOverride'> };

type Query = Record<string, string | number | boolean | undefined>;

/** Query parameters as an object, from an object or an encoded query string. */
export function queryOf(params: ProxyConfig['params']): Query {
  return typeof params === 'string' ? Object.fromEntries(new URLSearchParams(params)) : { ...params };
}

export interface PageResume {
  start: PagePosition | null;
  save(position: PagePosition): Promise<void>;
}

function pick(obj: unknown, path: string | undefined): unknown {
  if (!path) return obj;
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function itemsOf<T>(data: unknown, path: string | undefined): T[] {
  const items = pick(data, path);
  if (Array.isArray(items)) return items as T[];
  // Some very old APIs answer a bare array where an envelope is documented.
  if (Array.isArray(data)) return data as T[];
  return [];
}

/** The URL of the `rel` relation in a `Link` response header (RFC 8288), if any. */
function linkHeader(headers: ScriptResponse['headers'], rel: string): string | undefined {
  const raw = headers['link'];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  for (const part of value?.split(/,(?=\s*<)/) ?? []) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    const rels = m ? /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(m[2]!)?.[1]?.toLowerCase().split(/\s+/) : undefined;
    if (rels?.includes(rel.toLowerCase())) return m![1];
  }
  return undefined;
}

/**
 * Returns once a request just started has had the chance to leave: two turns of the event loop's
 * check phase. In the first, its credentials (resolved in promise callbacks) reach the HTTP client;
 * in the second, the client has written it (undici checks an idle keep-alive socket in a check-phase
 * turn before reusing it). Without them, a caller that works on its page without waiting on I/O (a
 * pre-built script, or batchSave digesting the page) holds the request back until it is done.
 */
const letLeave = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * A page's request, started now when its method is safe to send early (GET, HEAD: a search-style
 * POST may not be), otherwise when the page is asked for. A request started early keeps its failure
 * for the await: it surfaces on its own page, or nowhere when the caller stops first.
 */
function requester(method: string | undefined) {
  const early = /^(GET|HEAD)$/i.test(method ?? 'GET');
  return async <R>(send: () => Promise<R>): Promise<() => Promise<R>> => {
    if (!early) return send;
    const p = send();
    p.catch(() => undefined);
    await letLeave();
    return () => p;
  };
}

/**
 * Pages of items. For GET and HEAD the next page's request is started (at most one page ahead), and
 * has left, before the current page is handed over, so it travels while the caller saves this one; its
 * position is still saved only once the caller asks for it (this page processed). A caller that
 * stops early has caused one request it does not use. Other methods send each request when its page
 * is asked for.
 */
export async function* paginate<T>(
  send: (config: ProxyConfig) => Promise<ScriptResponse>,
  config: PaginateConfig,
  resume?: PageResume,
): AsyncGenerator<T[], void, undefined> {
  const p = config.paginate ?? {};
  const type = p.type ?? 'cursor';
  const limit = p.limit === undefined || p.limit === '' ? undefined : Number(p.limit);
  const params = queryOf(config.params);
  if (limit !== undefined) params[p.limit_name_in_request ?? 'limit'] = limit;
  const start = resume?.start ?? null;
  const begin = requester(config.method);
  const onPage = async (response: ScriptResponse, nextPageParam: string | number | undefined) => {
    if (typeof p.on_page === 'function') await p.on_page({ nextPageParam, response });
  };

  if (type === 'offset' || type === 'page') {
    const byPage = type === 'page' || p.offset_calculation_method === 'per-page';
    const name = type === 'page' ? (p.page_name_in_request ?? p.offset_name_in_request ?? 'page') : (p.offset_name_in_request ?? 'offset');
    const first = type === 'page' ? (p.page_start_value ?? p.offset_start_value ?? 1) : (p.offset_start_value ?? 0);
    const request = (at: number) => begin(() => send({ ...config, params: { ...params, [name]: at } }));
    let offset = start && 'offset' in start ? start.offset : first;
    let pending = await request(offset);
    for (let isFirst = true; ; isFirst = false) {
      if (!isFirst) await resume?.save({ offset });
      const res = await pending();
      const items = itemsOf<T>(res.data, p.response_path);
      const done = items.length === 0 || (limit !== undefined && items.length < limit);
      // `page` and `per-page`: the value is a page number; `by-response-size` (default): a count of items.
      const next = offset + (byPage ? 1 : items.length);
      await onPage(res, done ? undefined : next);
      if (!done) pending = await request(next);
      if (items.length) yield items;
      if (done) return;
      offset = next;
    }
  }

  if (type === 'link') {
    let next: ProxyConfig = start && 'next' in start ? { ...config, ...start.next } : { ...config, params };
    let pending = await begin(() => send(next));
    const seen = new Set<string>();
    for (let first = true; ; first = false) {
      if (!first) await resume?.save({ next: { endpoint: next.endpoint, params: next.params, baseUrlOverride: next.baseUrlOverride } });
      const res: ScriptResponse = await pending();
      const items = itemsOf<T>(res.data, p.response_path);
      const link = p.link_rel_in_response_header
        ? linkHeader(res.headers, p.link_rel_in_response_header)
        : pick(res.data, p.link_path_in_response_body ?? 'next');
      await onPage(res, typeof link === 'string' && link !== '' ? link : undefined);
      let following: ProxyConfig | null = null;
      if (typeof link === 'string' && link !== '' && !seen.has(link)) {
        seen.add(link);
        const url = new URL(link, 'http://relative.invalid');
        const relative = url.origin === 'http://relative.invalid';
        following = {
          ...config,
          endpoint: url.pathname,
          params: Object.fromEntries(url.searchParams),
          baseUrlOverride: relative ? config.baseUrlOverride : url.origin,
        };
        const to = following;
        pending = await begin(() => send(to));
      }
      if (items.length) yield items;
      if (!following) return;
      next = following;
    }
  }

  const cursorName = p.cursor_name_in_request ?? 'cursor';
  const request = (at: string | undefined) => begin(() => send({ ...config, params: { ...params, ...(at ? { [cursorName]: at } : {}) } }));
  let cursor: string | undefined = start && 'cursor' in start ? start.cursor : undefined;
  let pending = await request(cursor);
  for (let first = true; ; first = false) {
    if (!first && cursor) await resume?.save({ cursor });
    const res = await pending();
    const items = itemsOf<T>(res.data, p.response_path);
    const next = pick(res.data, p.cursor_path_in_response ?? 'next_cursor');
    await onPage(res, typeof next === 'string' || typeof next === 'number' ? next : undefined);
    const more = (typeof next === 'string' || typeof next === 'number') && String(next) !== '' && String(next) !== cursor;
    if (more) pending = await request(String(next));
    if (items.length) yield items;
    if (!more) return;
    cursor = String(next);
  }
}
