import { z } from 'zod';
import { createSync } from '../../sdk/index.js';
import { BackgroundCheck, LINK_PAGINATION, toBackgroundCheck, type CheckrInvitation, type CheckrReport } from './models.js';

/**
 * Every invitation (link pagination via `next_href`), with the report of those the candidate
 * completed. A full sync: invitations no longer listed show as deleted.
 */
export default createSync({
  description: 'Fetch all the background checks',
  frequency: 'every hour',
  autoStart: true,
  syncType: 'full',
  endpoints: [{ method: 'GET', path: '/background-checks' }],
  models: { BackgroundCheck },
  metadata: z.object({}),
  async exec(ctx) {
    for await (const invitations of ctx.paginate<CheckrInvitation>({ endpoint: '/v1/invitations', retries: 10, paginate: LINK_PAGINATION })) {
      const checks: BackgroundCheck[] = [];
      for (const invitation of invitations) {
        const report = invitation.report_id ? (await ctx.get<CheckrReport>({ endpoint: `/v1/reports/${invitation.report_id}`, retries: 10 })).data : null;
        checks.push(toBackgroundCheck(invitation, report));
      }
      await ctx.batchSave(checks, 'BackgroundCheck');
    }
  },
});
