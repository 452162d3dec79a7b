import type { NangoAction } from '../../sdk/index.js';

/**
 * Whether the account has Account Hierarchy (nodes). Set at connection time in
 * `connection_config.accountHierarchyEnabled` (plugin/account-hierarchy.ts, after the OAuth
 * callback); for connections without the flag (imported ones), probed here as Nango's
 * post-connection script does: `GET /v1/nodes` succeeds only for hierarchy accounts. A 429 or a 5xx
 * is rethrown (retried), not read as "no hierarchy".
 */
export async function hierarchyEnabled(ctx: Pick<NangoAction, 'get' | 'getConnection'>): Promise<boolean> {
  const flag = (await ctx.getConnection()).connectionConfig['accountHierarchyEnabled'];
  if (typeof flag === 'boolean') return flag;
  try {
    await ctx.get({ endpoint: '/v1/nodes', params: { page: 1, per_page: 1 } });
    return true;
  } catch (err) {
    const e = err as { name?: string; status?: number };
    if (e.name === 'UpstreamHttpError' && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.status !== 408) return false;
    throw err;
  }
}
