import { z } from 'zod';
import { createAction } from '../../sdk/index.js';
import { hierarchyEnabled } from './hierarchy.js';
import { CheckrServicesResponse, LINK_PAGINATION, toService, type CheckrPackage, type CheckrService } from './models.js';

interface CheckrNode {
  custom_id: string;
  packages?: string[];
}

/**
 * The packages the account offers (every page). With Account Hierarchy, the packages available at
 * each node (`/v1/nodes?include=packages`), one entry per node and package with `node` set; when
 * no node has packages, the account's package list.
 */
export default createAction({
  description: 'Fetch the possible services that Checkr offers for a background check',
  endpoint: { method: 'GET', path: '/background-check/service-list' },
  input: z.object({}),
  output: CheckrServicesResponse,
  async exec(ctx) {
    const packages: CheckrPackage[] = [];
    for await (const page of ctx.paginate<CheckrPackage>({ endpoint: '/v1/packages', retries: 3, paginate: LINK_PAGINATION })) packages.push(...page);
    const services = packages.map((p) => toService(p));
    if (!(await hierarchyEnabled(ctx))) return { services };

    const bySlug = new Map(packages.map((p) => [p.slug, p]));
    const perNode: CheckrService[] = [];
    for await (const nodes of ctx.paginate<CheckrNode>({ endpoint: '/v1/nodes', params: { include: 'packages' }, retries: 3, paginate: LINK_PAGINATION })) {
      for (const node of nodes) {
        for (const slug of node.packages ?? []) {
          const pkg = bySlug.get(slug);
          if (pkg) perNode.push(toService(pkg, node.custom_id));
        }
      }
    }
    return { services: perNode.length ? perNode : services };
  },
});
